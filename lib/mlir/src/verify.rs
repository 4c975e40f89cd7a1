//! The Rust verifier: what IRDL cannot express.
//!
//! Run by the tools after parsing and after every pass. Checks, each reported as an
//! error at the op's location:
//! 1. `ascend` ops: element types supported, broadcast compatibility, result shapes and
//!    dtypes equal to those the shape rules compute, axes and permutations in range.
//! 2. AscGraphs (`func.func` with `ascir.axes`): axis ids unique and defined, axis kinds
//!    known, sizes parse and use only declared symbols, every node's `sched_axis` and
//!    view name defined axes, view lists have one entry per axis.
//!
//! Every check is a function of uniqued MLIR storage (op name, types, attributes), and
//! large modules repeat the same few combinations thousands of times (one kernel per op
//! after lowering, one view per loop nest). A module's verification therefore remembers
//! what it found valid, keyed by storage address, and checks each distinct combination
//! once. Only valid verdicts are kept, so every error is still reported at each op.

use crate::diagnostics;
use crate::extract::{attribute_value, functions, read_attributes, type_text};
use crate::registry::{lookup, Dialect, AXIS_KINDS};
use autofuse_ascend::shape::{infer, OpShapeQuery};
use autofuse_ir::attr::AttrValue;
use autofuse_ir::graph::{Dim, TensorType};
use autofuse_symbolic::{Expr, Relation, ShapeEnv, Tri};
use melior::ir::{
    attribute::AttributeLike, block::BlockLike, operation::OperationLike, r#type::TypeLike,
    BlockRef, Location, OperationRef, RegionLike, ValueLike,
};
use std::collections::{BTreeSet, HashMap, HashSet};
use std::rc::Rc;

/// Address of uniqued MLIR storage (an identifier, type or attribute); unique while the
/// context lives, which outlasts one `verify_module` call.
type Storage = *const std::ffi::c_void;

/// What one module verification already found valid.
#[derive(Default)]
struct Verdicts {
    /// `ascend` ops, by name, operand and result types and attributes.
    ascend_ops: HashSet<Vec<Storage>>,
    /// The axis table of each valid (`ascir.sizes`, `ascir.axes`) pair.
    axis_tables: HashMap<(Storage, Storage), Rc<AxisTable>>,
    /// Valid `sched_axis` (kind 0) / `view` (kind 1) attributes under a valid axis table.
    node_attrs: HashSet<(Storage, Storage, Storage, u8)>,
}

/// Verifies every function of a module; returns false if an error was emitted.
pub fn verify_module<'c, 'a>(body: BlockRef<'c, 'a>) -> bool {
    crate::extract::with_print_cache(|| verify_functions(body))
}

fn verify_functions<'c, 'a>(body: BlockRef<'c, 'a>) -> bool {
    let mut verdicts = Verdicts::default();
    let mut ok = true;
    for func in functions(body) {
        // Declarations have no body to check.
        let Some(block) = func.region(0).ok().and_then(|r| r.first_block()) else {
            continue;
        };
        if func.has_attribute("ascir.axes") {
            ok &= verify_ascgraph(&func, block, &mut verdicts);
        } else {
            ok &= verify_ascend_graph(block, &mut verdicts);
        }
    }
    ok
}

fn error_at(location: Location, message: impl Into<String>) {
    diagnostics::error(location, message);
}

fn storage(attr: melior::ir::Attribute) -> Storage {
    attr.to_raw().ptr as Storage
}

/// The ops of `block` that belong to `dialect`'s catalogue, with their names.
fn ops_of<'c, 'a>(
    block: BlockRef<'c, 'a>,
    dialect: Dialect,
) -> impl Iterator<Item = (OperationRef<'c, 'a>, String)> {
    std::iter::successors(block.first_operation(), |op| op.next_in_block()).filter_map(move |op| {
        let name = op.name().as_string_ref().as_str().ok()?.to_string();
        lookup(&name)
            .is_some_and(|spec| spec.dialect == dialect)
            .then_some((op, name))
    })
}

fn verify_ascend_graph<'c, 'a>(block: BlockRef<'c, 'a>, verdicts: &mut Verdicts) -> bool {
    let mut ok = true;
    for (op, name) in ops_of(block, Dialect::Ascend) {
        let mut key: Vec<Storage> = vec![op.name().to_raw().ptr as Storage];
        key.extend(op.operands().map(|v| v.r#type().to_raw().ptr as Storage));
        // Operand and result types are told apart by position: the op fixes the counts
        // only together with its name, so mark the boundary.
        key.push(std::ptr::null());
        key.extend(op.results().map(|v| v.r#type().to_raw().ptr as Storage));
        for (attr_name, attr) in op.attributes() {
            key.push(attr_name.to_raw().ptr as Storage);
            key.push(storage(attr));
        }
        if verdicts.ascend_ops.contains(&key) {
            continue;
        }
        if verify_ascend_op(&op, &name) {
            verdicts.ascend_ops.insert(key);
        } else {
            ok = false;
        }
    }
    ok
}

/// Reads a value's type; a type the model cannot read is reported at `location`.
fn read_type(ty: melior::ir::Type, location: Location) -> Option<TensorType> {
    let text = type_text(ty);
    match TensorType::parse_mlir(&text) {
        Ok(parsed) => Some(parsed),
        Err(e) => {
            error_at(location, format!("{e} in type '{text}'"));
            None
        }
    }
}

fn verify_ascend_op(op: &OperationRef, name: &str) -> bool {
    let location = op.location();
    let mut operands = Vec::new();
    for value in op.operands() {
        match read_type(value.r#type(), location) {
            Some(ty) => operands.push(ty),
            None => return false,
        }
    }
    let mut declared = Vec::new();
    for value in op.results() {
        match read_type(value.r#type(), location) {
            Some(ty) => declared.push(ty),
            None => return false,
        }
    }
    let attrs = read_attributes(op);
    let query = OpShapeQuery {
        op: name,
        operands: &operands,
        attrs: &attrs,
        declared: &declared,
    };
    // Each op is checked on its own: guards one op would record must not make a later
    // op look valid.
    let mut local_env = ShapeEnv::new();
    let expected = match infer(&query, &mut local_env) {
        Err(e) => {
            error_at(location, e.0);
            return false;
        }
        Ok(expected) => expected,
    };
    if expected.len() != declared.len() {
        error_at(
            location,
            format!(
                "expected {} results, found {}",
                expected.len(),
                declared.len()
            ),
        );
        return false;
    }
    let mut ok = true;
    for (i, (want, have)) in expected.iter().zip(&declared).enumerate() {
        if let Some(message) = compare_types(want, have, &local_env) {
            error_at(location, format!("result #{i}: {message}"));
            ok = false;
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

/// The axes of an AscGraph and the size symbols its expressions may use.
struct AxisTable {
    ids: BTreeSet<i64>,
    symbols: BTreeSet<String>,
}

fn verify_ascgraph<'c, 'a>(
    func: &OperationRef<'c, 'a>,
    block: BlockRef<'c, 'a>,
    verdicts: &mut Verdicts,
) -> bool {
    let sizes = func.attribute("ascir.sizes").ok();
    let axes = func.attribute("ascir.axes").ok();
    let table_key = sizes.zip(axes).map(|(s, a)| (storage(s), storage(a)));
    let cached = table_key.and_then(|key| verdicts.axis_tables.get(&key).cloned());
    let (table, mut ok) = match cached {
        Some(table) => (table, true),
        None => {
            let location = func.location();
            let Some((table, valid)) = axis_table(
                location,
                sizes.map(attribute_value),
                axes.map(attribute_value),
            ) else {
                return false;
            };
            let table = Rc::new(table);
            if let (true, Some(key)) = (valid, table_key) {
                verdicts.axis_tables.insert(key, table.clone());
            }
            (table, valid)
        }
    };
    // Node verdicts hold only under a valid table (the key names it).
    let table_key = table_key.filter(|_| ok);
    for (op, _) in ops_of(block, Dialect::Ascir) {
        for (attr_name, kind) in [("sched_axis", 0u8), ("view", 1u8)] {
            let Ok(attr) = op.attribute(attr_name) else {
                continue;
            };
            let key = table_key.map(|(s, a)| (s, a, storage(attr), kind));
            if key.is_some_and(|key| verdicts.node_attrs.contains(&key)) {
                continue;
            }
            let value = attribute_value(attr);
            let valid = if kind == 0 {
                verify_sched_axis(op.location(), &value, &table)
            } else {
                verify_view(op.location(), &value, &table)
            };
            match (valid, key) {
                (true, Some(key)) => {
                    verdicts.node_attrs.insert(key);
                }
                (true, None) => {}
                (false, _) => ok = false,
            }
        }
    }
    ok
}

/// Reads the axis table of an AscGraph, reporting what is wrong at `location`; `None`
/// when the table cannot be read at all, else the table and whether it is valid.
fn axis_table(
    location: Location,
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
            return None;
        }
    }
    let Some(axes) = axes.as_ref().and_then(AttrValue::as_array) else {
        error_at(location, "'ascir.axes' must be an array of #ascir.axis");
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
        if !ids.insert(id) {
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
    Some((AxisTable { ids, symbols }, ok))
}

fn verify_sched_axis(location: Location, sched: &AttrValue, table: &AxisTable) -> bool {
    let Some(ids) = sched.as_ints() else {
        error_at(location, "'sched_axis' must be an array of axis ids");
        return false;
    };
    let mut ok = true;
    for id in ids {
        if !table.ids.contains(&id) {
            error_at(location, format!("sched_axis names undefined axis {id}"));
            ok = false;
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

fn verify_view(location: Location, view: &AttrValue, table: &AxisTable) -> bool {
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
        ok &= check_expr(location, "view repeat", r, &table.symbols);
    }
    for s in strides {
        ok &= check_expr(location, "view stride", s, &table.symbols);
    }
    ok
}
