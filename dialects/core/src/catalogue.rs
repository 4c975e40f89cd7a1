//! The op catalogue of the three autofuse dialects (`ascend`, `ascir`, `tiling`).
//!
//! This table is the single source of truth for what each op looks like: the IRDL
//! definitions loaded into every MLIR context are generated from it (`irdl.rs`), the
//! dialect reference in `docs/dialects/` is generated from it, and the Rust verifier,
//! interpreters and passes ask it for an op's category. Adding an op means adding one
//! row here and regenerating (`autofuse-opt --emit-irdl` / `--emit-dialect-docs`).

/// Which of the three dialects an op or attribute belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dialect {
    Ascend,
    Ascir,
    Tiling,
}

impl Dialect {
    pub const ALL: [Dialect; 3] = [Dialect::Ascend, Dialect::Ascir, Dialect::Tiling];

    pub fn name(self) -> &'static str {
        match self {
            Dialect::Ascend => "ascend",
            Dialect::Ascir => "ascir",
            Dialect::Tiling => "tiling",
        }
    }

    pub fn summary(self) -> &'static str {
        match self {
            Dialect::Ascend => {
                "Ascend IR: graph-level tensor operators on builtin ranked tensors; dynamic \
                 dims carry symbolic sizes in a `#ascend.dims` encoding."
            }
            Dialect::Ascir => {
                "AscIR: loop-level nodes that map 1:1 to Ascend C APIs. An AscGraph is a \
                 `func.func` carrying `ascir.axes` and `ascir.sizes`; every node carries its \
                 loop axes (`sched_axis`) and every result its `view`."
            }
            Dialect::Tiling => {
                "Schedule and tiling facts of a fused kernel: TilingGroups, splits, tiling \
                 cases, tiling-data fields and the tiling function."
            }
        }
    }
}

/// What an op does, in the terms the passes and interpreters need.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Category {
    /// Elementwise op with one operand; result has the operand's shape.
    Unary,
    /// Elementwise op with two operands and numpy broadcasting.
    Binary,
    /// Elementwise comparison producing `i1`.
    Compare,
    /// `select(cond, on_true, on_false)` with broadcasting.
    Select,
    /// Element type conversion; the result type names the target dtype.
    Cast,
    /// Reduction over `axes`, optionally keeping reduced dims.
    Reduce,
    /// Data-movement-free or data-movement view changes of one tensor.
    Layout,
    /// Several inputs or outputs along one axis (concat, split) or indexed reads.
    Structural,
    /// Ops that a decomposition pass expands into primitives.
    Composite,
    /// Never fused: matmul and anything unknown to the compiler.
    Boundary,
    /// Constant tensors.
    Constant,
    /// AscIR buffer nodes: data, output, workspace, scalar.
    Buffer,
    /// AscIR GM<->UB movement.
    Movement,
    /// `tiling` dialect records.
    Tiling,
}

/// The IRDL constraint of an attribute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AttrKind {
    Integer,
    Float,
    /// `true`/`false` (a builtin integer attribute of type i1).
    Bool,
    String,
    /// A builtin array (of integers, strings or dialect attributes).
    Array,
    SymbolRef,
    /// Any attribute (for example dense elements).
    Any,
    /// `#ascir.view<...>`
    View,
    /// `#ascend.dims<...>`
    Dims,
}

impl AttrKind {
    /// The IRDL constraint expression for this attribute kind.
    pub fn irdl_constraint(self) -> &'static str {
        match self {
            AttrKind::Integer | AttrKind::Bool => "irdl.base \"#builtin.integer\"",
            AttrKind::Float => "irdl.base \"#builtin.float\"",
            AttrKind::String => "irdl.base \"#builtin.string\"",
            AttrKind::Array => "irdl.base \"#builtin.array\"",
            AttrKind::SymbolRef => "irdl.base \"#builtin.symbol_ref\"",
            AttrKind::Any => "irdl.any",
            AttrKind::View => "irdl.base @ascir::@view",
            AttrKind::Dims => "irdl.base @ascend::@dims",
        }
    }

    pub fn doc_name(self) -> &'static str {
        match self {
            AttrKind::Integer => "integer",
            AttrKind::Float => "float",
            AttrKind::Bool => "bool",
            AttrKind::String => "string",
            AttrKind::Array => "array",
            AttrKind::SymbolRef => "symbol reference",
            AttrKind::Any => "attribute",
            AttrKind::View => "#ascir.view",
            AttrKind::Dims => "#ascend.dims",
        }
    }
}

#[derive(Clone, Copy, Debug)]
pub struct AttrSpec {
    pub name: &'static str,
    pub kind: AttrKind,
    pub doc: &'static str,
}

#[derive(Clone, Copy, Debug)]
pub struct ValueSpec {
    pub name: &'static str,
    pub variadic: bool,
}

/// One op of one dialect.
#[derive(Clone, Copy, Debug)]
pub struct OpSpec {
    pub dialect: Dialect,
    pub name: &'static str,
    pub category: Category,
    pub operands: &'static [ValueSpec],
    pub results: &'static [ValueSpec],
    pub attrs: &'static [AttrSpec],
    pub summary: &'static str,
}

impl OpSpec {
    pub fn full_name(&self) -> String {
        format!("{}.{}", self.dialect.name(), self.name)
    }

    pub fn fixed_operand_count(&self) -> Option<usize> {
        (!self.operands.iter().any(|v| v.variadic)).then_some(self.operands.len())
    }

    pub fn attr(&self, name: &str) -> Option<&AttrSpec> {
        self.attrs.iter().find(|a| a.name == name)
    }
}

/// A dialect attribute (IRDL `irdl.attribute`), whose parameters are attributes.
#[derive(Clone, Copy, Debug)]
pub struct DialectAttrSpec {
    pub dialect: Dialect,
    pub name: &'static str,
    pub params: &'static [AttrSpec],
    pub summary: &'static str,
}

const fn v(name: &'static str) -> ValueSpec {
    ValueSpec {
        name,
        variadic: false,
    }
}

const fn a(name: &'static str, kind: AttrKind, doc: &'static str) -> AttrSpec {
    AttrSpec { name, kind, doc }
}

const X: &[ValueSpec] = &[v("x")];
const XY: &[ValueSpec] = &[v("lhs"), v("rhs")];
const Y: &[ValueSpec] = &[v("y")];
const NONE: &[ValueSpec] = &[];
const NO_ATTRS: &[AttrSpec] = &[];

const REDUCE_ATTRS: &[AttrSpec] = &[
    a(
        "axes",
        AttrKind::Array,
        "reduced axes (i64, negative counts from the back)",
    ),
    a("keep_dims", AttrKind::Bool, "keep reduced axes with size 1"),
];

/// AscIR attributes every node carries.
const NODE_ATTRS: &[AttrSpec] = &[
    a(
        "sched_axis",
        AttrKind::Array,
        "loop axes of the node, outer to inner (axis ids)",
    ),
    a("view", AttrKind::View, "the view of the node's result"),
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

const fn ascir(
    name: &'static str,
    category: Category,
    operands: &'static [ValueSpec],
    attrs: &'static [AttrSpec],
    summary: &'static str,
) -> OpSpec {
    OpSpec {
        dialect: Dialect::Ascir,
        name,
        category,
        operands,
        results: Y,
        attrs,
        summary,
    }
}

const fn tiling(name: &'static str, attrs: &'static [AttrSpec], summary: &'static str) -> OpSpec {
    OpSpec {
        dialect: Dialect::Tiling,
        name,
        category: Category::Tiling,
        operands: NONE,
        results: NONE,
        attrs,
        summary,
    }
}

macro_rules! unary_ops {
    ($ctor:ident, $attrs:expr, $( $name:literal => $doc:literal ),* $(,)?) => {
        [ $( $ctor($name, Category::Unary, X, $attrs, $doc) ),* ]
    };
}

macro_rules! binary_ops {
    ($ctor:ident, $cat:expr, $attrs:expr, $( $name:literal => $doc:literal ),* $(,)?) => {
        [ $( $ctor($name, $cat, XY, $attrs, $doc) ),* ]
    };
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

const ASCEND_OTHER: [OpSpec; 28] = [
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

const ASCIR_BUFFERS: [OpSpec; 8] = [
    ascir(
        "data",
        Category::Buffer,
        X,
        &[
            a("index", AttrKind::Integer, "kernel input index"),
            a("view", AttrKind::View, "the GM tensor's view"),
        ],
        "a kernel input in GM (wraps the AscGraph's function argument)",
    ),
    ascir(
        "output",
        Category::Buffer,
        X,
        &[
            a("index", AttrKind::Integer, "kernel output index"),
            a("view", AttrKind::View, "the GM tensor's view"),
        ],
        "a kernel output in GM; its result is returned by the AscGraph",
    ),
    ascir(
        "workspace",
        Category::Buffer,
        X,
        &[
            a("index", AttrKind::Integer, "workspace slot"),
            a("view", AttrKind::View, "the GM tensor's view"),
        ],
        "a GM scratch tensor between loop groups of one kernel",
    ),
    ascir(
        "scalar",
        Category::Buffer,
        NONE,
        &[
            a("value", AttrKind::String, "the value as text (C++ literal)"),
            a("sched_axis", AttrKind::Array, "loop axes"),
            a("view", AttrKind::View, "broadcast view of the scalar"),
        ],
        "a compile-time scalar operand",
    ),
    ascir(
        "arange",
        Category::Buffer,
        NONE,
        &[
            a(
                "start",
                AttrKind::String,
                "the value at element offset 0: a number, or an expression of the kernel's symbols",
            ),
            a(
                "delta",
                AttrKind::String,
                "the step per element offset: a number, or an expression of the kernel's symbols",
            ),
            a("sched_axis", AttrKind::Array, "loop axes"),
            a(
                "view",
                AttrKind::View,
                "the element offsets computed: offset = sum of index * stride (stride 0 = the \
                 value repeats along that axis)",
            ),
        ],
        "start + delta * offset at every element of its view, computed in UB (CreateVecIndex, \
         Muls, Adds): an ascend.range inlined into the kernel that reads it",
    ),
    ascir(
        "load",
        Category::Movement,
        X,
        &[
            a("sched_axis", AttrKind::Array, "loop axes"),
            a("view", AttrKind::View, "the loaded view"),
            a(
                "offset",
                AttrKind::String,
                "element offset into the GM tensor (expression)",
            ),
        ],
        "GM -> UB copy (DataCopy / DataCopyPad)",
    ),
    ascir(
        "store",
        Category::Movement,
        X,
        &[
            a("sched_axis", AttrKind::Array, "loop axes"),
            a("view", AttrKind::View, "the stored view"),
            a(
                "offset",
                AttrKind::String,
                "element offset into the GM tensor (expression)",
            ),
        ],
        "UB -> GM copy",
    ),
    ascir(
        "broadcast",
        Category::Layout,
        X,
        NODE_ATTRS,
        "expand axes whose input repeat is 1 to the result repeats",
    ),
];

const ASCIR_UNARY: [OpSpec; 22] = unary_ops!(ascir, NODE_ATTRS,
    "abs" => "Abs",
    "neg" => "Muls(x, -1)",
    "exp" => "Exp",
    "log" => "Ln",
    "sqrt" => "Sqrt",
    "rsqrt" => "Rsqrt",
    "reciprocal" => "Reciprocal",
    "relu" => "Relu",
    "sigmoid" => "Sigmoid",
    "tanh" => "Tanh",
    "erf" => "Erf",
    "sign" => "Sign",
    "floor" => "Cast float->float CAST_FLOOR",
    "ceil" => "Cast float->float CAST_CEIL",
    "round" => "Cast float->float CAST_RINT",
    "sin" => "Sin",
    "cos" => "Cos",
    "square" => "Mul(x, x)",
    "logical_not" => "Not",
    "isnan" => "Compare(x, x, NE)",
    "isfinite" => "IsFinite",
    "bitwise_not" => "Not",
);

const ASCIR_BINARY: [OpSpec; 13] = binary_ops!(ascir, Category::Binary, NODE_ATTRS,
    "add" => "Add",
    "sub" => "Sub",
    "mul" => "Mul",
    "div" => "Div",
    "pow" => "Power",
    "maximum" => "Max",
    "minimum" => "Min",
    "floor_div" => "Div then Cast CAST_FLOOR",
    "mod" => "floor modulo",
    "logical_and" => "And",
    "logical_or" => "Or",
    "logical_xor" => "Xor",
    "bitwise_and" => "And",
);

const ASCIR_COMPARE: [OpSpec; 6] = binary_ops!(ascir, Category::Compare, NODE_ATTRS,
    "eq" => "Compare EQ",
    "ne" => "Compare NE",
    "lt" => "Compare LT",
    "le" => "Compare LE",
    "gt" => "Compare GT",
    "ge" => "Compare GE",
);

const ASCIR_OTHER: [OpSpec; 16] = [
    ascir(
        "leaky_relu",
        Category::Unary,
        X,
        &[
            a("sched_axis", AttrKind::Array, "loop axes"),
            a("view", AttrKind::View, "result view"),
            a("alpha", AttrKind::Float, "slope for x < 0"),
        ],
        "LeakyRelu",
    ),
    ascir(
        "cast",
        Category::Cast,
        X,
        NODE_ATTRS,
        "Cast to the result dtype",
    ),
    ascir(
        "select",
        Category::Select,
        &[v("cond"), v("on_true"), v("on_false")],
        NODE_ATTRS,
        "Select (mode: tensor-tensor)",
    ),
    ascir(
        "where",
        Category::Select,
        &[v("cond"), v("on_true"), v("on_false")],
        NODE_ATTRS,
        "Select with a bit-mask condition from Compare",
    ),
    ascir(
        "sum",
        Category::Reduce,
        X,
        NODE_ATTRS,
        "sum over the axes whose result repeat is 1 and input repeat is not",
    ),
    ascir(
        "mean",
        Category::Reduce,
        X,
        NODE_ATTRS,
        "mean over reduced axes",
    ),
    ascir(
        "max",
        Category::Reduce,
        X,
        NODE_ATTRS,
        "maximum over reduced axes",
    ),
    ascir(
        "min",
        Category::Reduce,
        X,
        NODE_ATTRS,
        "minimum over reduced axes",
    ),
    ascir(
        "prod",
        Category::Reduce,
        X,
        NODE_ATTRS,
        "product over reduced axes",
    ),
    ascir(
        "any",
        Category::Reduce,
        X,
        NODE_ATTRS,
        "logical or over reduced axes",
    ),
    ascir(
        "all",
        Category::Reduce,
        X,
        NODE_ATTRS,
        "logical and over reduced axes",
    ),
    ascir(
        "transpose",
        Category::Layout,
        X,
        NODE_ATTRS,
        "reorder the axes of the input view into the result view's order",
    ),
    ascir(
        "concat",
        Category::Structural,
        XY,
        NODE_ATTRS,
        "concatenate two views along the axis where their repeats differ from the result",
    ),
    ascir(
        "split",
        Category::Structural,
        X,
        &[
            a("sched_axis", AttrKind::Array, "loop axes"),
            a("view", AttrKind::View, "the view of this piece"),
            a(
                "index",
                AttrKind::Integer,
                "which piece of the split this node produces",
            ),
        ],
        "one piece of a split (GE's Split with an output index)",
    ),
    ascir(
        "gather",
        Category::Structural,
        &[v("params"), v("indices")],
        &[
            a("sched_axis", AttrKind::Array, "loop axes"),
            a("view", AttrKind::View, "result view"),
            a("axis", AttrKind::Integer, "gathered axis of params"),
        ],
        "Gather",
    ),
    ascir(
        "fill",
        Category::Buffer,
        NONE,
        &[
            a("sched_axis", AttrKind::Array, "loop axes"),
            a("view", AttrKind::View, "result view"),
            a("value", AttrKind::String, "the fill value as text"),
        ],
        "Duplicate a scalar into a UB tensor",
    ),
];

const TILING_OPS: [OpSpec; 6] = [
    tiling(
        "group",
        &[
            a("kernel", AttrKind::SymbolRef, "the AscGraph"),
            a("x", AttrKind::Array, "x-group axes (transpose-distinct)"),
            a("y", AttrKind::Array, "y-group axes (elementwise / kept)"),
            a("r", AttrKind::Array, "r-group axes (reduced)"),
        ],
        "the normalized TilingGroup of a kernel",
    ),
    tiling(
        "split",
        &[
            a("kernel", AttrKind::SymbolRef, "the AscGraph"),
            a("axis", AttrKind::Integer, "the split axis id"),
            a("outer", AttrKind::Integer, "the outer axis id"),
            a("inner", AttrKind::Integer, "the inner axis id"),
            a("kind", AttrKind::String, "\"tile\" or \"block\""),
            a(
                "size_var",
                AttrKind::String,
                "the tiling variable holding the inner size",
            ),
        ],
        "a block or tile split of one axis",
    ),
    tiling(
        "case",
        &[
            a("kernel", AttrKind::SymbolRef, "the AscGraph"),
            a("key", AttrKind::Integer, "tiling key"),
            a(
                "ub_split",
                AttrKind::Array,
                "axis ids split for UB, one per group",
            ),
            a("block_split", AttrKind::Array, "axis ids bound to cores"),
        ],
        "one tiling case (a kernel variant selected by tiling key)",
    ),
    tiling(
        "field",
        &[
            a("kernel", AttrKind::SymbolRef, "the AscGraph"),
            a(
                "name",
                AttrKind::String,
                "field name in the tiling-data struct",
            ),
            a("type", AttrKind::String, "C type (uint32_t, int64_t, ...)"),
            a("expr", AttrKind::String, "how the host computes it"),
        ],
        "one field of the tiling-data struct",
    ),
    tiling(
        "buffer",
        &[
            a("kernel", AttrKind::SymbolRef, "the AscGraph"),
            a("id", AttrKind::Integer, "queue or buffer id"),
            a("position", AttrKind::String, "VECIN, VECOUT or VECCALC"),
            a(
                "count",
                AttrKind::Integer,
                "number of blocks (2 = double buffering)",
            ),
            a("bytes", AttrKind::String, "bytes per block (expression)"),
        ],
        "a UB queue or buffer of a kernel",
    ),
    tiling(
        "function",
        &[
            a("kernel", AttrKind::SymbolRef, "the AscGraph"),
            a(
                "symbols",
                AttrKind::Array,
                "runtime symbols read by the host",
            ),
            a(
                "ub_bytes",
                AttrKind::Integer,
                "UB capacity the solution respects",
            ),
            a("cores", AttrKind::Integer, "vector core count"),
        ],
        "the host tiling function of a kernel",
    ),
];

/// Every op of every dialect.
pub fn all_ops() -> impl Iterator<Item = &'static OpSpec> {
    ASCEND_UNARY
        .iter()
        .chain(ASCEND_BINARY.iter())
        .chain(ASCEND_COMPARE.iter())
        .chain(ASCEND_REDUCE.iter())
        .chain(ASCEND_OTHER.iter())
        .chain(ASCIR_BUFFERS.iter())
        .chain(ASCIR_UNARY.iter())
        .chain(ASCIR_BINARY.iter())
        .chain(ASCIR_COMPARE.iter())
        .chain(ASCIR_OTHER.iter())
        .chain(TILING_OPS.iter())
}

pub fn ops_of(dialect: Dialect) -> impl Iterator<Item = &'static OpSpec> {
    all_ops().filter(move |op| op.dialect == dialect)
}

/// Looks up an op by its full name (`ascend.add`).
pub fn lookup(full_name: &str) -> Option<&'static OpSpec> {
    let (dialect, name) = full_name.split_once('.')?;
    lookup_in(dialect, name)
}

/// Looks up an op by dialect and name (`"ascir"`, `"load"`) without building the full
/// name. Passes ask for every node of every kernel, so the table is indexed once.
pub fn lookup_in(dialect: &str, name: &str) -> Option<&'static OpSpec> {
    static INDEX: std::sync::OnceLock<
        std::collections::HashMap<(&'static str, &'static str), &'static OpSpec>,
    > = std::sync::OnceLock::new();
    let index = INDEX.get_or_init(|| {
        let mut index = std::collections::HashMap::new();
        for op in all_ops() {
            // The first spec of a name wins, as the linear search it replaces did.
            index.entry((op.dialect.name(), op.name)).or_insert(op);
        }
        index
    });
    index.get(&(dialect, name)).copied()
}

pub const DIALECT_ATTRS: &[DialectAttrSpec] = &[
    DialectAttrSpec {
        dialect: Dialect::Ascend,
        name: "dims",
        params: &[a(
            "dims",
            AttrKind::Array,
            "one symbolic size per dim, as expression strings (`\"s0\"`, `\"128\"`, `\"s1*2\"`)",
        )],
        summary: "tensor encoding with the symbolic size of every dim",
    },
    DialectAttrSpec {
        dialect: Dialect::Ascir,
        name: "axis",
        params: &[
            a("id", AttrKind::Integer, "axis id, unique in the graph"),
            a(
                "name",
                AttrKind::String,
                "readable name (z0, z0T, z0t, ...)",
            ),
            a("size", AttrKind::String, "symbolic size"),
            a(
                "kind",
                AttrKind::String,
                "original, block_outer, block_inner, tile_outer, tile_inner or merged",
            ),
            a(
                "from",
                AttrKind::Array,
                "parent axis ids of a split or merge",
            ),
        ],
        summary: "one loop axis of an AscGraph",
    },
    DialectAttrSpec {
        dialect: Dialect::Ascir,
        name: "view",
        params: &[
            a("axis", AttrKind::Array, "axis ids, outer to inner"),
            a(
                "repeats",
                AttrKind::Array,
                "symbolic extent per axis (1 = broadcast or reduced)",
            ),
            a(
                "strides",
                AttrKind::Array,
                "symbolic stride per axis (0 = broadcast or reduced)",
            ),
        ],
        summary: "the view of an AscIR value over the graph's axes",
    },
];

/// Axis kinds allowed in `#ascir.axis`.
pub const AXIS_KINDS: &[&str] = &[
    "original",
    "block_outer",
    "block_inner",
    "tile_outer",
    "tile_inner",
    "merged",
];

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn op_names_are_unique_per_dialect() {
        let mut seen = HashSet::new();
        for op in all_ops() {
            assert!(seen.insert(op.full_name()), "duplicate {}", op.full_name());
        }
    }

    #[test]
    fn every_ascir_compute_node_has_a_view_and_axes() {
        for op in ops_of(Dialect::Ascir) {
            if op.category == Category::Buffer && !matches!(op.name, "scalar" | "fill" | "arange") {
                continue;
            }
            assert!(
                op.attr("sched_axis").is_some(),
                "{} lacks sched_axis",
                op.name
            );
            assert!(
                op.attr("view").is_some() || op.attr("views").is_some(),
                "{} lacks a view",
                op.name
            );
        }
    }

    #[test]
    fn lookup_finds_ops_of_each_dialect() {
        assert_eq!(
            lookup("ascend.add").map(|o| o.category),
            Some(Category::Binary)
        );
        assert_eq!(
            lookup("ascir.sum").map(|o| o.category),
            Some(Category::Reduce)
        );
        assert_eq!(
            lookup("tiling.case").map(|o| o.category),
            Some(Category::Tiling)
        );
        assert!(lookup("ascend.nope").is_none());
        assert!(lookup("nodot").is_none());
    }
}
