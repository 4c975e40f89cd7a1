//! The Rust verifier: what IRDL cannot express.
//!
//! Run by the tools after parsing and after every pass. Checks, each reported as an
//! error at the op's location:
//! 1. `ascend` ops: element types supported, broadcast compatibility, result shapes and
//!    dtypes equal to those the shape rules compute, axes and permutations in range.
//! 2. AscGraphs (`func.func` with `ascir.axes`): axis ids unique and defined, axis kinds
//!    known, sizes parse and use only declared symbols, every node's `sched_axis` and
//!    view name defined axes, view lists have one entry per axis.

use crate::diagnostics;
use crate::extract::{extract_function, functions, read_attributes, ExtractedGraph};
use autofuse_core::attr::AttrValue;
use autofuse_core::catalogue::{lookup, Dialect, AXIS_KINDS};
use autofuse_core::graph::{Dim, TensorType};
use autofuse_core::shape::{infer, OpShapeQuery};
use autofuse_symbolic::{Expr, Relation, ShapeEnv, Tri};
use melior::ir::{operation::OperationLike, BlockRef, Location, OperationRef};
use std::collections::BTreeSet;

/// Verifies every function of a module; returns false if an error was emitted.
pub fn verify_module<'c, 'a>(body: BlockRef<'c, 'a>) -> bool {
    crate::extract::with_print_cache(|| verify_functions(body))
}

fn verify_functions<'c, 'a>(body: BlockRef<'c, 'a>) -> bool {
    let funcs = functions(body);
    let mut ok = true;
    for func in funcs {
        let attrs = read_attributes(&func);
        let Some(extracted) = extract_function(func) else {
            continue;
        };
        if attrs.contains_key("ascir.axes") {
            ok &= verify_ascgraph(&func, &attrs, &extracted);
        } else {
            ok &= verify_ascend_graph(&extracted);
        }
    }
    ok
}

fn error_at(location: Location, message: impl Into<String>) {
    diagnostics::error(location, message);
}

fn verify_ascend_graph(extracted: &ExtractedGraph) -> bool {
    let graph = &extracted.graph;
    let mut ok = true;
    for (node, op) in graph.nodes.iter().zip(&extracted.ops) {
        let Some(spec) = lookup(&node.op) else {
            continue;
        };
        if spec.dialect != Dialect::Ascend {
            continue;
        }
        let location = op.location();
        let type_error = node
            .operands
            .iter()
            .chain(&node.results)
            .find_map(|v| extracted.type_errors.get(*v).cloned().flatten());
        if let Some(message) = type_error {
            error_at(location, message);
            ok = false;
            continue;
        }
        let operands: Vec<TensorType> = node
            .operands
            .iter()
            .filter_map(|v| graph.ty(*v).cloned())
            .collect();
        let declared: Vec<TensorType> = node
            .results
            .iter()
            .filter_map(|v| graph.ty(*v).cloned())
            .collect();
        if operands.len() != node.operands.len() || declared.len() != node.results.len() {
            continue;
        }
        let query = OpShapeQuery {
            op: &node.op,
            operands: &operands,
            attrs: &node.attrs,
            declared: &declared,
        };
        // Each op is checked on its own: guards one op would record must not make a
        // later op look valid.
        let mut local_env = ShapeEnv::new();
        match infer(&query, &mut local_env) {
            Err(e) => {
                error_at(location, e.0);
                ok = false;
            }
            Ok(expected) => {
                if expected.len() != declared.len() {
                    error_at(
                        location,
                        format!(
                            "expected {} results, found {}",
                            expected.len(),
                            declared.len()
                        ),
                    );
                    ok = false;
                    continue;
                }
                for (i, (want, have)) in expected.iter().zip(&declared).enumerate() {
                    if let Some(message) = compare_types(want, have, &local_env) {
                        error_at(location, format!("result #{i}: {message}"));
                        ok = false;
                    }
                }
            }
        }
    }
    ok
}

/// Explains why a declared result type contradicts the computed one.
fn compare_types(want: &TensorType, have: &TensorType, env: &ShapeEnv) -> Option<String> {
    if want.dtype != have.dtype {
        return Some(format!(
            "element type is {}, expected {}",
            have.dtype, want.dtype
        ));
    }
    if want.rank() != have.rank() {
        return Some(format!(
            "rank is {}, expected {} ({})",
            have.rank(),
            want.rank(),
            want
        ));
    }
    for (d, (w, h)) in want.dims.iter().zip(&have.dims).enumerate() {
        if let (Dim::Known(w), Dim::Known(h)) = (w, h) {
            if env.static_check(w, Relation::Eq, h) == Tri::False {
                return Some(format!("dim {d} is '{h}', expected '{w}'"));
            }
        }
    }
    None
}

/// The axes of an AscGraph: id -> (name, size).
struct AxisTable {
    ids: BTreeSet<i64>,
}

fn verify_ascgraph(
    func: &OperationRef,
    attrs: &std::collections::BTreeMap<String, AttrValue>,
    extracted: &ExtractedGraph,
) -> bool {
    let location = func.location();
    let mut ok = true;
    let mut symbols: BTreeSet<String> = BTreeSet::new();
    match attrs.get("ascir.sizes").and_then(AttrValue::as_strs) {
        Some(list) => {
            for s in list {
                match Expr::parse(s) {
                    Ok(e) if e.as_symbol().is_some() => {
                        symbols.insert(s.to_string());
                    }
                    _ => {
                        error_at(
                            location,
                            format!("'ascir.sizes' entry '{s}' is not a symbol name"),
                        );
                        ok = false;
                    }
                }
            }
        }
        None => {
            error_at(
                location,
                "AscGraph needs 'ascir.sizes', an array of symbol names",
            );
            return false;
        }
    }
    let mut table = AxisTable {
        ids: BTreeSet::new(),
    };
    let Some(axes) = attrs.get("ascir.axes").and_then(AttrValue::as_array) else {
        error_at(location, "'ascir.axes' must be an array of #ascir.axis");
        return false;
    };
    // Tile and block splits introduce size variables named after their inner axis.
    for axis in axes {
        if let Some(params) = axis.dialect_params("ascir.axis") {
            if let Some(name) = params.get(1).and_then(AttrValue::as_str) {
                symbols.insert(format!("{name}_size"));
            }
        }
    }
    for axis in axes {
        let Some(params) = axis.dialect_params("ascir.axis") else {
            error_at(
                location,
                "'ascir.axes' must contain only #ascir.axis attributes",
            );
            ok = false;
            continue;
        };
        let id = params.first().and_then(AttrValue::as_int);
        let kind = params.get(3).and_then(AttrValue::as_str);
        let size = params.get(2).and_then(AttrValue::as_str);
        let Some(id) = id else {
            error_at(location, "axis id must be an integer");
            ok = false;
            continue;
        };
        if !table.ids.insert(id) {
            error_at(location, format!("axis id {id} is defined twice"));
            ok = false;
        }
        if !kind.is_some_and(|k| AXIS_KINDS.contains(&k)) {
            error_at(
                location,
                format!(
                    "axis {id} has kind {kind:?}; expected one of {}",
                    AXIS_KINDS.join(", ")
                ),
            );
            ok = false;
        }
        if let Some(size) = size {
            ok &= check_expr(location, &format!("size of axis {id}"), size, &symbols);
        }
    }
    for (node, op) in extracted.graph.nodes.iter().zip(&extracted.ops) {
        let Some(spec) = lookup(&node.op) else {
            continue;
        };
        if spec.dialect != Dialect::Ascir {
            continue;
        }
        let location = op.location();
        if let Some(sched) = node.attr("sched_axis") {
            match sched.as_ints() {
                Some(ids) => {
                    for id in ids {
                        if !table.ids.contains(&id) {
                            error_at(location, format!("sched_axis names undefined axis {id}"));
                            ok = false;
                        }
                    }
                }
                None => {
                    error_at(location, "'sched_axis' must be an array of axis ids");
                    ok = false;
                }
            }
        }
        if let Some(view) = node.attr("view") {
            ok &= verify_view(location, view, &table, &symbols);
        }
    }
    ok
}

fn check_expr(location: Location, what: &str, text: &str, symbols: &BTreeSet<String>) -> bool {
    match Expr::parse(text) {
        Err(e) => {
            error_at(
                location,
                format!("{what}: '{text}' is not an expression ({e})"),
            );
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
                error_at(
                    location,
                    format!(
                        "{what} uses undefined symbol(s) {}; declare them in 'ascir.sizes'",
                        undefined.join(", ")
                    ),
                );
                false
            }
        }
    }
}

fn verify_view(
    location: Location,
    view: &AttrValue,
    table: &AxisTable,
    symbols: &BTreeSet<String>,
) -> bool {
    let Some(params) = view.dialect_params("ascir.view") else {
        error_at(location, "expected a #ascir.view attribute");
        return false;
    };
    let (Some(axis), Some(repeats), Some(strides)) = (
        params.first().and_then(AttrValue::as_ints),
        params.get(1).and_then(AttrValue::as_strs),
        params.get(2).and_then(AttrValue::as_strs),
    ) else {
        error_at(
            location,
            "#ascir.view needs three arrays: axis ids, repeat expressions, stride expressions",
        );
        return false;
    };
    let mut ok = true;
    if repeats.len() != axis.len() || strides.len() != axis.len() {
        error_at(
            location,
            format!(
                "view has {} axes but {} repeats and {} strides",
                axis.len(),
                repeats.len(),
                strides.len()
            ),
        );
        ok = false;
    }
    for id in &axis {
        if !table.ids.contains(id) {
            error_at(location, format!("view names undefined axis {id}"));
            ok = false;
        }
    }
    for r in repeats {
        ok &= check_expr(location, "view repeat", r, symbols);
    }
    for s in strides {
        ok &= check_expr(location, "view stride", s, symbols);
    }
    ok
}
