//! The rows of the `ascend` dialect: graph-level tensor operators and the `#ascend.dims`
//! encoding (see `docs/dialects/ascend.md`, generated from them).

use autofuse_ir::catalogue::{
    a, v, AttrKind, AttrSpec, Category, Dialect, DialectAttrSpec, OpIndex, OpSpec, ValueSpec, NONE,
    NO_ATTRS, X, XY, Y,
};
use autofuse_ir::{binary_ops, unary_ops};

const REDUCE_ATTRS: &[AttrSpec] = &[
    a(
        "axes",
        AttrKind::Array,
        "reduced axes (i64, negative counts from the back)",
    ),
    a("keep_dims", AttrKind::Bool, "keep reduced axes with size 1"),
];

const STRIDES: AttrSpec = a(
    "strides",
    AttrKind::Array,
    "step of the window per spatial axis",
);
const DILATIONS: AttrSpec = a(
    "dilations",
    AttrKind::Array,
    "distance between window taps per spatial axis",
);
const PADS: AttrSpec = a(
    "pads",
    AttrKind::Array,
    "implicit zeros before each spatial axis, then after each (integers or shape \
     expressions, >= 0)",
);
const GROUPS: AttrSpec = a(
    "groups",
    AttrKind::Integer,
    "channel groups (input and output channels are split into this many independent convolutions)",
);
const KERNEL_SHAPE: AttrSpec = a(
    "kernel_shape",
    AttrKind::Array,
    "window size per spatial axis",
);
const CEIL_MODE: AttrSpec = a(
    "ceil_mode",
    AttrKind::Bool,
    "round the output size up (a window that would start in the end padding is dropped)",
);

const CONV_ATTRS: &[AttrSpec] = &[STRIDES, DILATIONS, PADS, GROUPS];
const CONV_TRANSPOSE_ATTRS: &[AttrSpec] = &[
    STRIDES,
    DILATIONS,
    PADS,
    a(
        "output_padding",
        AttrKind::Array,
        "extra elements at the end of each spatial axis of the result",
    ),
    GROUPS,
];
const MAX_POOL_ATTRS: &[AttrSpec] = &[KERNEL_SHAPE, STRIDES, DILATIONS, PADS, CEIL_MODE];
const AVG_POOL_ATTRS: &[AttrSpec] = &[
    KERNEL_SHAPE,
    STRIDES,
    DILATIONS,
    PADS,
    CEIL_MODE,
    a(
        "count_include_pad",
        AttrKind::Bool,
        "divide by the window size including padding (else by the taps inside the input)",
    ),
];

const fn ascend(
    name: &'static str,
    category: Category,
    operands: &'static [ValueSpec],
    attrs: &'static [AttrSpec],
    summary: &'static str,
) -> OpSpec {
    OpSpec {
        dialect: Dialect::Ascend,
        name,
        category,
        operands,
        results: Y,
        attrs,
        summary,
    }
}

/// Unary elementwise ops common to both levels (same names in `ascend` and `ascir`).
const ASCEND_UNARY: [OpSpec; 22] = unary_ops!(ascend, NO_ATTRS,
    "abs" => "|x|",
    "neg" => "-x",
    "exp" => "e^x",
    "log" => "natural logarithm",
    "sqrt" => "square root",
    "rsqrt" => "1/sqrt(x)",
    "reciprocal" => "1/x",
    "relu" => "max(x, 0)",
    "sigmoid" => "1/(1+e^-x)",
    "tanh" => "hyperbolic tangent",
    "erf" => "error function",
    "sign" => "-1, 0 or 1 by the sign of x",
    "floor" => "round toward -inf",
    "ceil" => "round toward +inf",
    "round" => "round half to even",
    "sin" => "sine",
    "cos" => "cosine",
    "square" => "x*x",
    "logical_not" => "!x on i1",
    "isnan" => "x != x, result i1",
    "isfinite" => "x is not inf or nan, result i1",
    "bitwise_not" => "~x on integers",
);

const ASCEND_BINARY: [OpSpec; 13] = binary_ops!(ascend, Category::Binary, NO_ATTRS,
    "add" => "lhs + rhs",
    "sub" => "lhs - rhs",
    "mul" => "lhs * rhs",
    "div" => "lhs / rhs (true division for floats, truncating for integers)",
    "pow" => "lhs ^ rhs",
    "maximum" => "max(lhs, rhs)",
    "minimum" => "min(lhs, rhs)",
    "floor_div" => "floor(lhs / rhs)",
    "mod" => "lhs - floor(lhs / rhs) * rhs (sign of the divisor)",
    "logical_and" => "lhs && rhs on i1",
    "logical_or" => "lhs || rhs on i1",
    "logical_xor" => "lhs != rhs on i1",
    "bitwise_and" => "lhs & rhs on integers",
);

const ASCEND_COMPARE: [OpSpec; 6] = binary_ops!(ascend, Category::Compare, NO_ATTRS,
    "eq" => "lhs == rhs",
    "ne" => "lhs != rhs",
    "lt" => "lhs < rhs",
    "le" => "lhs <= rhs",
    "gt" => "lhs > rhs",
    "ge" => "lhs >= rhs",
);

const ASCEND_REDUCE: [OpSpec; 7] = [
    ascend(
        "reduce_sum",
        Category::Reduce,
        X,
        REDUCE_ATTRS,
        "sum over axes",
    ),
    ascend(
        "reduce_mean",
        Category::Composite,
        X,
        REDUCE_ATTRS,
        "mean over axes (decomposes to reduce_sum and div)",
    ),
    ascend(
        "reduce_max",
        Category::Reduce,
        X,
        REDUCE_ATTRS,
        "maximum over axes",
    ),
    ascend(
        "reduce_min",
        Category::Reduce,
        X,
        REDUCE_ATTRS,
        "minimum over axes",
    ),
    ascend(
        "reduce_prod",
        Category::Reduce,
        X,
        REDUCE_ATTRS,
        "product over axes",
    ),
    ascend(
        "reduce_any",
        Category::Reduce,
        X,
        REDUCE_ATTRS,
        "logical or over axes (i1)",
    ),
    ascend(
        "reduce_all",
        Category::Reduce,
        X,
        REDUCE_ATTRS,
        "logical and over axes (i1)",
    ),
];

const ASCEND_OTHER: [OpSpec; 33] = [
    ascend(
        "leaky_relu",
        Category::Unary,
        X,
        &[a("alpha", AttrKind::Float, "slope for x < 0")],
        "x >= 0 ? x : alpha*x",
    ),
    ascend(
        "select",
        Category::Select,
        &[v("cond"), v("on_true"), v("on_false")],
        NO_ATTRS,
        "cond ? on_true : on_false, with broadcasting",
    ),
    ascend(
        "cast",
        Category::Cast,
        X,
        NO_ATTRS,
        "convert to the result element type (floats to integers truncate toward zero, \
         float narrowing rounds to nearest even)",
    ),
    ascend(
        "broadcast_to",
        Category::Layout,
        X,
        NO_ATTRS,
        "numpy broadcast to the result shape",
    ),
    ascend(
        "reshape",
        Category::Layout,
        X,
        NO_ATTRS,
        "same elements in row-major order, result shape from the result type",
    ),
    ascend(
        "squeeze",
        Category::Layout,
        X,
        &[a("axes", AttrKind::Array, "size-1 axes to remove")],
        "remove size-1 axes",
    ),
    ascend(
        "unsqueeze",
        Category::Layout,
        X,
        &[a("axes", AttrKind::Array, "positions of new size-1 axes in the result")],
        "insert size-1 axes",
    ),
    ascend(
        "transpose",
        Category::Layout,
        X,
        &[a("perm", AttrKind::Array, "result axis i is input axis perm[i]")],
        "permute axes",
    ),
    ascend(
        "concat",
        Category::Structural,
        XY,
        &[a("axis", AttrKind::Integer, "concatenation axis")],
        "concatenate two tensors along axis (n-ary concats are chains; IRDL variadics are homogeneous)",
    ),
    ascend(
        "slice",
        Category::Structural,
        X,
        &[
            a("starts", AttrKind::Array, "start index per listed axis"),
            a("ends", AttrKind::Array, "end index (exclusive, clamped) per listed axis"),
            a("axes", AttrKind::Array, "sliced axes"),
            a("steps", AttrKind::Array, "step per listed axis (> 0)"),
        ],
        "strided slice of static extents",
    ),
    ascend(
        "gather",
        Category::Structural,
        &[v("data"), v("indices")],
        &[a("axis", AttrKind::Integer, "gathered axis of data")],
        "take slices of data along axis at integer indices",
    ),
    ascend(
        "gather_elements",
        Category::Structural,
        &[v("data"), v("indices")],
        &[a("axis", AttrKind::Integer, "indexed axis of data")],
        "out[i][j][k] = data[i][indices[i][j][k]][k] (axis 1; indices have data's rank)",
    ),
    ascend(
        "gather_nd",
        Category::Structural,
        &[v("data"), v("indices")],
        &[a(
            "batch_dims",
            AttrKind::Integer,
            "leading dims shared by data and indices",
        )],
        "slices of data at the index tuples in the last dim of indices (ONNX GatherND)",
    ),
    ascend(
        "pad",
        Category::Structural,
        X,
        &[
            a(
                "pads",
                AttrKind::Array,
                "elements added before each axis, then after each axis (integers or shape \
                 expressions; negative crops)",
            ),
            a("value", AttrKind::Float, "the value of added elements (mode constant)"),
            a(
                "mode",
                AttrKind::String,
                "constant, edge (repeat the border), reflect (mirror without the border) or \
                 wrap (periodic)",
            ),
        ],
        "padding of every axis (ONNX Pad)",
    ),
    ascend(
        "cumsum",
        Category::Structural,
        X,
        &[
            a("axis", AttrKind::Integer, "scanned axis"),
            a("exclusive", AttrKind::Bool, "each element excludes itself"),
            a("reverse", AttrKind::Bool, "scan from the end of the axis"),
        ],
        "running sum along axis",
    ),
    ascend(
        "softmax",
        Category::Composite,
        X,
        &[a("axis", AttrKind::Integer, "normalized axis")],
        "exp(x - max) / sum(exp(x - max)) along axis",
    ),
    ascend(
        "log_softmax",
        Category::Composite,
        X,
        &[a("axis", AttrKind::Integer, "normalized axis")],
        "x - max - log(sum(exp(x - max))) along axis",
    ),
    ascend(
        "layer_norm",
        Category::Composite,
        &[v("x"), v("gamma"), v("beta")],
        &[
            a("axis", AttrKind::Integer, "first normalized axis; all axes from it on are normalized"),
            a("epsilon", AttrKind::Float, "added to the variance"),
        ],
        "(x - mean) / sqrt(var + eps) * gamma + beta",
    ),
    ascend(
        "rms_norm",
        Category::Composite,
        &[v("x"), v("gamma")],
        &[
            a("axis", AttrKind::Integer, "first normalized axis"),
            a("epsilon", AttrKind::Float, "added to the mean square"),
        ],
        "x / sqrt(mean(x^2) + eps) * gamma",
    ),
    ascend(
        "gelu",
        Category::Composite,
        X,
        &[a("approximate", AttrKind::String, "\"none\" (erf form) or \"tanh\"")],
        "x * Phi(x)",
    ),
    ascend("silu", Category::Composite, X, NO_ATTRS, "x * sigmoid(x)"),
    ascend(
        "swish",
        Category::Composite,
        X,
        &[a("beta", AttrKind::Float, "slope inside the sigmoid")],
        "x * sigmoid(beta * x)",
    ),
    ascend(
        "swiglu",
        Category::Composite,
        &[v("gate"), v("up")],
        NO_ATTRS,
        "silu(gate) * up",
    ),
    ascend(
        "clip",
        Category::Composite,
        &[v("x"), v("min"), v("max")],
        NO_ATTRS,
        "min(max(x, min), max), bounds broadcast",
    ),
    ascend(
        "matmul",
        Category::Boundary,
        XY,
        &[
            a("transpose_a", AttrKind::Bool, "use lhs transposed (last two axes)"),
            a("transpose_b", AttrKind::Bool, "use rhs transposed (last two axes)"),
        ],
        "(batched) matrix product; never fused",
    ),
    ascend(
        "conv",
        Category::Boundary,
        &[v("x"), v("w")],
        CONV_ATTRS,
        "N-D convolution (ONNX Conv without bias): x [N, C, d1..dn], w [M, C/groups, \
         k1..kn] -> [N, M, o1..on], o = floor((d + pad_begin + pad_end - dilation*(k-1) - 1) \
         / stride) + 1; never fused",
    ),
    ascend(
        "conv_transpose",
        Category::Boundary,
        &[v("x"), v("w")],
        CONV_TRANSPOSE_ATTRS,
        "N-D transposed convolution (ONNX ConvTranspose without bias): x [N, C, d1..dn], \
         w [C, M/groups, k1..kn] -> [N, M, o1..on], o = stride*(d-1) + output_padding + \
         dilation*(k-1) + 1 - pad_begin - pad_end; never fused",
    ),
    ascend(
        "max_pool",
        Category::Boundary,
        X,
        MAX_POOL_ATTRS,
        "N-D windowed maximum over the spatial axes (ONNX MaxPool; padding never wins); a \
         boundary op because strided windows do not map to AscIR loops",
    ),
    ascend(
        "avg_pool",
        Category::Boundary,
        X,
        AVG_POOL_ATTRS,
        "N-D windowed mean over the spatial axes (ONNX AveragePool); a boundary op because \
         strided windows do not map to AscIR loops",
    ),
    OpSpec {
        dialect: Dialect::Ascend,
        name: "constant",
        category: Category::Constant,
        operands: NONE,
        results: Y,
        attrs: &[a("value", AttrKind::Any, "dense elements attribute")],
        summary: "a constant tensor",
    },
    OpSpec {
        dialect: Dialect::Ascend,
        name: "parameter",
        category: Category::Constant,
        operands: NONE,
        results: Y,
        attrs: &[
            a(
                "file",
                AttrKind::String,
                "the file holding the weight: absolute, or relative to the directory of the \
                 IR file",
            ),
            a(
                "offset",
                AttrKind::Integer,
                "byte offset of the first element in the file (elements little-endian, \
                 row-major, packed)",
            ),
        ],
        summary: "a weight held by reference: the tensor of the result's static type stored \
                  at `offset` of `file` (an ONNX model or its external data). Passes see \
                  only the type; the executors map the file",
    },
    OpSpec {
        dialect: Dialect::Ascend,
        name: "symbolic_constant",
        category: Category::Constant,
        operands: NONE,
        results: Y,
        attrs: &[a(
            "values",
            AttrKind::Array,
            "the elements in row-major order: integers or expressions of the graph's \
             shape symbols (strings)",
        )],
        summary: "a small tensor whose elements are shape expressions, computed on the host \
                  from the runtime symbols (what ONNX Shape/Size subgraphs fold to)",
    },
    OpSpec {
        dialect: Dialect::Ascend,
        name: "range",
        category: Category::Constant,
        operands: NONE,
        results: Y,
        attrs: &[
            a("start", AttrKind::Any, "first element (integer, float or shape expression)"),
            a("delta", AttrKind::Any, "step between elements (integer or float, not 0)"),
        ],
        summary: "1-D arithmetic progression start + i*delta; its length is the result \
                  type's (symbolic) dim",
    },
];

/// The attributes of the dialect.
pub const ATTRS: &[DialectAttrSpec] = &[DialectAttrSpec {
    dialect: Dialect::Ascend,
    name: "dims",
    params: &[a(
        "dims",
        AttrKind::Array,
        "one symbolic size per dim, as expression strings (`\"s0\"`, `\"128\"`, `\"s1*2\"`)",
    )],
    summary: "tensor encoding with the symbolic size of every dim",
}];

/// Every op of the dialect.
pub fn ops() -> impl Iterator<Item = &'static OpSpec> {
    ASCEND_UNARY
        .iter()
        .chain(ASCEND_BINARY.iter())
        .chain(ASCEND_COMPARE.iter())
        .chain(ASCEND_REDUCE.iter())
        .chain(ASCEND_OTHER.iter())
}

/// Looks up an op by its full name (`ascend.x`); other dialects' names find nothing.
pub fn lookup(full_name: &str) -> Option<&'static OpSpec> {
    lookup_short(full_name.strip_prefix("ascend.")?)
}

/// Looks up an op by its name without the dialect prefix.
pub fn lookup_short(name: &str) -> Option<&'static OpSpec> {
    static INDEX: OpIndex = OpIndex::new();
    INDEX.get(ops, name)
}
