//! The registry of the three dialects: every dialect's rows (`autofuse_ascend::ops`,
//! `autofuse_ascir::ops`, `autofuse_tiling::ops`) as one catalogue, for what needs them
//! all: the IRDL loaded into contexts, the verifier, the generated references, passes
//! that look ops up by full name.

pub use autofuse_ascir::ops::AXIS_KINDS;
pub use autofuse_ir::catalogue::{
    AttrKind, AttrSpec, Category, Dialect, DialectAttrSpec, OpSpec, ValueSpec,
};

/// Every op of every dialect.
pub fn all_ops() -> impl Iterator<Item = &'static OpSpec> {
    autofuse_ascend::ops::ops()
        .chain(autofuse_ascir::ops::ops())
        .chain(autofuse_tiling::ops::ops())
}

pub fn ops_of(dialect: Dialect) -> impl Iterator<Item = &'static OpSpec> {
    all_ops().filter(move |op| op.dialect == dialect)
}

/// Every dialect attribute.
pub fn dialect_attrs() -> impl Iterator<Item = &'static DialectAttrSpec> {
    autofuse_ascend::ops::ATTRS
        .iter()
        .chain(autofuse_ascir::ops::ATTRS)
        .chain(autofuse_tiling::ops::ATTRS)
}

/// Looks up an op by its full name (`ascend.add`).
pub fn lookup(full_name: &str) -> Option<&'static OpSpec> {
    let (dialect, name) = full_name.split_once('.')?;
    lookup_in(dialect, name)
}

/// Looks up an op by dialect and name (`"ascir"`, `"load"`) without building the full
/// name.
pub fn lookup_in(dialect: &str, name: &str) -> Option<&'static OpSpec> {
    match dialect {
        "ascend" => autofuse_ascend::ops::lookup_short(name),
        "ascir" => autofuse_ascir::ops::lookup_short(name),
        "tiling" => autofuse_tiling::ops::lookup_short(name),
        _ => None,
    }
}

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
