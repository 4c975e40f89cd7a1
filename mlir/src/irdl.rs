//! Generates the IRDL definition of each dialect from the op catalogue.
//!
//! IRDL constraint variables unify: two operands constrained by the same `%v` must have
//! the same type. Elementwise ops need independent types (broadcasting, i1 results), so
//! every operand, result and attribute gets its own constraint variable; the Rust
//! verifier checks the relations between them.

use crate::registry::{dialect_attrs, ops_of, AttrSpec, Dialect, ValueSpec};
use std::fmt::Write;

/// The IRDL text (`irdl.dialect @name { ... }`) of one dialect.
pub fn dialect_irdl(dialect: Dialect) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "// Generated from dialects/{}/src/ops.rs by `autofuse-opt --emit-irdl`; do not edit.",
        dialect.name()
    );
    let _ = writeln!(out, "irdl.dialect @{} {{", dialect.name());
    for attr in dialect_attrs().filter(|a| a.dialect == dialect) {
        let _ = writeln!(out, "  irdl.attribute @{} {{", attr.name);
        let params = constrain_attrs(&mut out, attr.params, 0)
            .iter()
            .map(|(name, var)| format!("{name}: %{var}"))
            .collect::<Vec<_>>()
            .join(", ");
        let _ = writeln!(out, "    irdl.parameters({params})");
        let _ = writeln!(out, "  }}");
    }
    for op in ops_of(dialect) {
        let _ = writeln!(out, "  irdl.operation @{} {{", op.name);
        let mut next = 0;
        let operands = constrain_values(&mut out, op.operands, &mut next);
        let results = constrain_values(&mut out, op.results, &mut next);
        let attrs = constrain_attrs(&mut out, op.attrs, next)
            .iter()
            .map(|(name, var)| format!("\"{name}\" = %{var}"))
            .collect::<Vec<_>>()
            .join(", ");
        if !op.operands.is_empty() {
            let _ = writeln!(out, "    irdl.operands({operands})");
        }
        if !op.results.is_empty() {
            let _ = writeln!(out, "    irdl.results({results})");
        }
        if !op.attrs.is_empty() {
            let _ = writeln!(out, "    irdl.attributes {{ {attrs} }}");
        }
        let _ = writeln!(out, "  }}");
    }
    let _ = writeln!(out, "}}");
    out
}

/// All three dialects in one module, in dependency order (ascend and ascir attributes
/// are referenced across dialects).
pub fn all_irdl() -> String {
    Dialect::ALL
        .iter()
        .map(|d| dialect_irdl(*d))
        .collect::<Vec<_>>()
        .join("\n")
}

fn constrain_values(out: &mut String, values: &[ValueSpec], next: &mut usize) -> String {
    let mut list = Vec::new();
    for value in values {
        let _ = writeln!(out, "    %{next} = irdl.any");
        let variadic = if value.variadic { "variadic " } else { "" };
        list.push(format!("{}: {variadic}%{next}", value.name));
        *next += 1;
    }
    list.join(", ")
}

fn constrain_attrs(
    out: &mut String,
    attrs: &[AttrSpec],
    first: usize,
) -> Vec<(&'static str, usize)> {
    attrs
        .iter()
        .enumerate()
        .map(|(i, attr)| {
            let _ = writeln!(out, "    %{} = {}", first + i, attr.kind.irdl_constraint());
            (attr.name, first + i)
        })
        .collect()
}
