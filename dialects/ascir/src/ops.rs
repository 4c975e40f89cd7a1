//! The rows of the `ascir` dialect: loop-level nodes that map 1:1 to Ascend C APIs, and
//! the `#ascir.axis` and `#ascir.view` attributes (see `docs/dialects/ascir.md`).

use autofuse_ir::catalogue::{
    a, v, AttrKind, AttrSpec, Category, Dialect, DialectAttrSpec, OpIndex, OpSpec, ValueSpec, NONE,
    X, XY, Y,
};
use autofuse_ir::{binary_ops, unary_ops};

/// AscIR attributes every node carries.
const NODE_ATTRS: &[AttrSpec] = &[
    a(
        "sched_axis",
        AttrKind::Array,
        "loop axes of the node, outer to inner (axis ids)",
    ),
    a("view", AttrKind::View, "the view of the node's result"),
];

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

const ASCIR_OTHER: [OpSpec; 17] = [
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
        "extract_slice",
        Category::Structural,
        X,
        &[
            a("sched_axis", AttrKind::Array, "loop axes"),
            a("view", AttrKind::View, "the view of the part"),
            a(
                "axis",
                AttrKind::Integer,
                "the loop axis (position) along which the part is taken",
            ),
            a(
                "offset",
                AttrKind::String,
                "index along `axis` where the part starts (expression)",
            ),
        ],
        "a part of a UB tile along one axis (UB -> UB DataCopy): a slice of an input the \
         kernel also loads whole, read from that tile instead of from GM again",
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

/// The attributes of the dialect.
pub const ATTRS: &[DialectAttrSpec] = &[
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

/// Every op of the dialect.
pub fn ops() -> impl Iterator<Item = &'static OpSpec> {
    ASCIR_BUFFERS
        .iter()
        .chain(ASCIR_UNARY.iter())
        .chain(ASCIR_BINARY.iter())
        .chain(ASCIR_COMPARE.iter())
        .chain(ASCIR_OTHER.iter())
}

/// Looks up an op by its full name (`ascir.x`); other dialects' names find nothing.
pub fn lookup(full_name: &str) -> Option<&'static OpSpec> {
    lookup_short(full_name.strip_prefix("ascir.")?)
}

/// Looks up an op by its name without the dialect prefix.
pub fn lookup_short(name: &str) -> Option<&'static OpSpec> {
    static INDEX: OpIndex = OpIndex::new();
    INDEX.get(ops, name)
}
