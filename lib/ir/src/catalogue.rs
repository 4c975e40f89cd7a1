//! The machinery of the op catalogue: how an op, its operands and attributes are
//! described. Each dialect keeps its own rows (`dialects/<name>/src/ops.rs`); the MLIR
//! bridge joins them into one registry (`autofuse_mlir::registry`), from which the IRDL
//! loaded into every MLIR context and the dialect references in `docs/dialects/` are
//! generated, and which the verifier, interpreters and passes ask for an op's category.
//! Adding an op means adding one row to its dialect and regenerating
//! (`scripts/regen-docs.sh`).

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

pub const fn v(name: &'static str) -> ValueSpec {
    ValueSpec {
        name,
        variadic: false,
    }
}

pub const fn a(name: &'static str, kind: AttrKind, doc: &'static str) -> AttrSpec {
    AttrSpec { name, kind, doc }
}

pub const X: &[ValueSpec] = &[v("x")];
pub const XY: &[ValueSpec] = &[v("lhs"), v("rhs")];
pub const Y: &[ValueSpec] = &[v("y")];
pub const NONE: &[ValueSpec] = &[];
pub const NO_ATTRS: &[AttrSpec] = &[];

/// Rows of same-shaped unary ops (`x -> y`) built by a dialect's row constructor.
#[macro_export]
macro_rules! unary_ops {
    ($ctor:ident, $attrs:expr, $( $name:literal => $doc:literal ),* $(,)?) => {
        [ $( $ctor($name, $crate::catalogue::Category::Unary, $crate::catalogue::X, $attrs, $doc) ),* ]
    };
}

/// Rows of same-shaped binary ops (`lhs, rhs -> y`) built by a dialect's row constructor.
#[macro_export]
macro_rules! binary_ops {
    ($ctor:ident, $cat:expr, $attrs:expr, $( $name:literal => $doc:literal ),* $(,)?) => {
        [ $( $ctor($name, $cat, $crate::catalogue::XY, $attrs, $doc) ),* ]
    };
}

/// One dialect's rows indexed by op name, built on first use: passes ask for every node of
/// every kernel, so a dialect keeps one of these in a `static`.
pub struct OpIndex {
    index: std::sync::OnceLock<std::collections::HashMap<&'static str, &'static OpSpec>>,
}

impl OpIndex {
    pub const fn new() -> OpIndex {
        OpIndex {
            index: std::sync::OnceLock::new(),
        }
    }

    /// The row named `name` among `rows` (the first of a name wins).
    pub fn get<I>(&self, rows: impl FnOnce() -> I, name: &str) -> Option<&'static OpSpec>
    where
        I: Iterator<Item = &'static OpSpec>,
    {
        let index = self.index.get_or_init(|| {
            let mut index = std::collections::HashMap::new();
            for op in rows() {
                index.entry(op.name).or_insert(op);
            }
            index
        });
        index.get(name).copied()
    }
}

impl Default for OpIndex {
    fn default() -> OpIndex {
        OpIndex::new()
    }
}
