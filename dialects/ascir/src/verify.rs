//! The verifier rules of AscGraphs that IRDL cannot express: axis ids unique and
//! defined, axis kinds known, sizes parse and use only declared symbols, every node's
//! `sched_axis` and view name defined axes, view lists have one entry per axis. The
//! MLIR bridge (`mlir/src/verify.rs`) reads the attributes, calls these rules and
//! reports each message at the op's location.

use crate::ops::AXIS_KINDS;
use autofuse_ir::attr::AttrValue;
use autofuse_symbolic::Expr;
use std::collections::BTreeSet;

/// The axes of an AscGraph and the size symbols its expressions may use.
pub struct AxisTable {
    pub ids: BTreeSet<i64>,
    pub symbols: BTreeSet<String>,
}

/// Reads the axis table of an AscGraph, reporting what is wrong through `report`; `None`
/// when the table cannot be read at all, else the table and whether it is valid.
pub fn axis_table(
    report: &mut dyn FnMut(String),
    sizes: Option<AttrValue>,
    axes: Option<AttrValue>,
) -> Option<(AxisTable, bool)> {
    let mut ok = true;
    let mut symbols: BTreeSet<String> = BTreeSet::new();
    match sizes.as_ref().and_then(AttrValue::as_strs) {
        Some(list) => {
            for s in list {
                match Expr::parse(s) {
                    Ok(e) if e.as_symbol().is_some() => {
                        symbols.insert(s.to_string());
                    }
                    _ => {
                        report(format!("'ascir.sizes' entry '{s}' is not a symbol name"));
                        ok = false;
                    }
                }
            }
        }
        None => {
            report("AscGraph needs 'ascir.sizes', an array of symbol names".into());
            return None;
        }
    }
    let Some(axes) = axes.as_ref().and_then(AttrValue::as_array) else {
        report("'ascir.axes' must be an array of #ascir.axis".into());
        return None;
    };
    // Tile and block splits introduce size variables named after their inner axis.
    for axis in axes {
        if let Some(params) = axis.dialect_params("ascir.axis") {
            if let Some(name) = params.get(1).and_then(AttrValue::as_str) {
                symbols.insert(format!("{name}_size"));
            }
        }
    }
    let mut ids = BTreeSet::new();
    for axis in axes {
        let Some(params) = axis.dialect_params("ascir.axis") else {
            report("'ascir.axes' must contain only #ascir.axis attributes".into());
            ok = false;
            continue;
        };
        let id = params.first().and_then(AttrValue::as_int);
        let kind = params.get(3).and_then(AttrValue::as_str);
        let size = params.get(2).and_then(AttrValue::as_str);
        let Some(id) = id else {
            report("axis id must be an integer".into());
            ok = false;
            continue;
        };
        if !ids.insert(id) {
            report(format!("axis id {id} is defined twice"));
            ok = false;
        }
        // Names become the size symbols of tile and block splits (`<name>t_size`) and C
        // identifiers of the generated kernel and tiling function.
        match params.get(1).and_then(AttrValue::as_str) {
            Some(name) if Expr::try_symbol(name).is_ok() => {}
            name => {
                let name = name.map_or_else(|| "no name".to_string(), |n| format!("name '{n}'"));
                report(format!(
                    "axis {id} has {name}; expected an identifier [A-Za-z_][A-Za-z0-9_]*"
                ));
                ok = false;
            }
        }
        if !kind.is_some_and(|k| AXIS_KINDS.contains(&k)) {
            report(format!(
                "axis {id} has kind {kind:?}; expected one of {}",
                AXIS_KINDS.join(", ")
            ));
            ok = false;
        }
        if let Some(size) = size {
            ok &= check_expr(report, &format!("size of axis {id}"), size, &symbols);
        }
    }
    Some((AxisTable { ids, symbols }, ok))
}

pub fn verify_sched_axis(
    report: &mut dyn FnMut(String),
    sched: &AttrValue,
    table: &AxisTable,
) -> bool {
    let Some(ids) = sched.as_ints() else {
        report("'sched_axis' must be an array of axis ids".into());
        return false;
    };
    let mut ok = true;
    for id in ids {
        if !table.ids.contains(&id) {
            report(format!("sched_axis names undefined axis {id}"));
            ok = false;
        }
    }
    ok
}

fn check_expr(
    report: &mut dyn FnMut(String),
    what: &str,
    text: &str,
    symbols: &BTreeSet<String>,
) -> bool {
    match Expr::parse(text) {
        Err(e) => {
            report(format!("{what}: '{text}' is not an expression ({e})"));
            false
        }
        Ok(expr) => {
            let undefined: Vec<String> = expr
                .symbols()
                .into_iter()
                .filter(|s| !symbols.contains(s))
                .collect();
            if undefined.is_empty() {
                true
            } else {
                report(format!(
                    "{what} uses undefined symbol(s) {}; declare them in 'ascir.sizes'",
                    undefined.join(", ")
                ));
                false
            }
        }
    }
}

pub fn verify_view(report: &mut dyn FnMut(String), view: &AttrValue, table: &AxisTable) -> bool {
    let Some(params) = view.dialect_params("ascir.view") else {
        report("expected a #ascir.view attribute".into());
        return false;
    };
    let (Some(axis), Some(repeats), Some(strides)) = (
        params.first().and_then(AttrValue::as_ints),
        params.get(1).and_then(AttrValue::as_strs),
        params.get(2).and_then(AttrValue::as_strs),
    ) else {
        report(
            "#ascir.view needs three arrays: axis ids, repeat expressions, stride expressions"
                .into(),
        );
        return false;
    };
    let mut ok = true;
    if repeats.len() != axis.len() || strides.len() != axis.len() {
        report(format!(
            "view has {} axes but {} repeats and {} strides",
            axis.len(),
            repeats.len(),
            strides.len()
        ));
        ok = false;
    }
    for id in &axis {
        if !table.ids.contains(id) {
            report(format!("view names undefined axis {id}"));
            ok = false;
        }
    }
    for r in repeats {
        ok &= check_expr(report, "view repeat", r, &table.symbols);
    }
    for s in strides {
        ok &= check_expr(report, "view stride", s, &table.symbols);
    }
    ok
}
