//! The rows of the `tiling` dialect: schedule and tiling facts of a fused kernel (see
//! `docs/dialects/tiling.md`).

use autofuse_ir::catalogue::{
    a, AttrKind, AttrSpec, Category, Dialect, DialectAttrSpec, OpIndex, OpSpec, NONE,
};

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

/// The attributes of the dialect (none: its ops carry builtin attributes).
pub const ATTRS: &[DialectAttrSpec] = &[];

/// Every op of the dialect.
pub fn ops() -> impl Iterator<Item = &'static OpSpec> {
    TILING_OPS.iter()
}

/// Looks up an op by its full name (`tiling.x`); other dialects' names find nothing.
pub fn lookup(full_name: &str) -> Option<&'static OpSpec> {
    lookup_short(full_name.strip_prefix("tiling.")?)
}

/// Looks up an op by its name without the dialect prefix.
pub fn lookup_short(name: &str) -> Option<&'static OpSpec> {
    static INDEX: OpIndex = OpIndex::new();
    INDEX.get(ops, name)
}
