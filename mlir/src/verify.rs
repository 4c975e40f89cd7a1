//! The Rust verifier: what IRDL cannot express.
//!
//! Run by the tools after parsing and after every pass. Checks, each reported as an
//! error at the op's location:
//! 1. `ascend` ops: element types supported, broadcast compatibility, result shapes and
//!    dtypes equal to those the shape rules compute (`autofuse_ascend::shape`), axes and
//!    permutations in range.
//!    A graph function's `ascend.derived_symbols` must be well formed (names not of
//!    the arguments, each defined once from argument symbols and earlier definitions);
//!    a declared dim that spells a derived symbol is compared with the computed one
//!    through the definitions.
//! 2. AscGraphs (`func.func` with `ascir.axes`): the rules of `autofuse_ascir::verify`
//!    (axes, sizes, `sched_axis` and views).
//!
//! Every check is a function of uniqued MLIR storage (op name, types, attributes), and
//! large modules repeat the same few combinations thousands of times (one kernel per op
//! after lowering, one view per loop nest). A module's verification therefore remembers
//! what it found valid, keyed by storage address, and checks each distinct combination
//! once. Only valid verdicts are kept, so every error is still reported at each op.

use crate::diagnostics;
use crate::extract::{attribute_value, functions, read_attributes, type_text};
use crate::registry::{lookup, Dialect};
use autofuse_ascend::derived::{self, DerivedSymbols};
use autofuse_ascend::shape::{infer, OpShapeQuery};
use autofuse_ascir::verify::{axis_table, verify_sched_axis, verify_view, AxisTable};
use autofuse_ir::graph::{Dim, TensorType};
use autofuse_symbolic::{Relation, ShapeEnv, Tri};
use melior::ir::{
    attribute::AttributeLike, block::BlockLike, operation::OperationLike, r#type::TypeLike,
    BlockRef, Location, OperationRef, RegionLike, ValueLike,
};
use std::collections::{HashMap, HashSet};
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
            match derived_env(&func, block) {
                Ok(derived) => ok &= verify_ascend_graph(block, derived.as_ref(), &mut verdicts),
                Err(message) => {
                    error_at(func.location(), message);
                    ok = false;
                }
            }
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

/// The definitions of a graph function's derived symbols as a shape env, with the
/// storage of their attribute (part of every verdict's key: the same types mean
/// different sizes under different definitions); `None` without derived symbols.
fn derived_env<'c, 'a>(
    func: &OperationRef<'c, 'a>,
    block: BlockRef<'c, 'a>,
) -> Result<Option<(ShapeEnv, Storage)>, String> {
    let Ok(attr) = func.attribute(derived::ATTRIBUTE) else {
        return Ok(None);
    };
    let entries = attribute_value(attr);
    let entries = entries
        .as_strs()
        .ok_or_else(|| format!("{} must be an array of strings", derived::ATTRIBUTE))?;
    let mut arguments = std::collections::BTreeSet::new();
    for index in 0..block.argument_count() {
        let Ok(arg) = block.argument(index) else {
            continue;
        };
        // An unreadable argument type is reported at its ops.
        if let Ok(ty) = TensorType::parse_mlir(&type_text(arg.r#type())) {
            for e in ty.dims.iter().filter_map(Dim::expr) {
                e.collect_symbols(&mut arguments);
            }
        }
    }
    let symbols = DerivedSymbols::parse(&entries, &arguments)?;
    let mut env = ShapeEnv::new();
    for (name, definition) in symbols.iter() {
        env.define(name, definition);
    }
    Ok(Some((env, storage(attr))))
}

fn verify_ascend_graph<'c, 'a>(
    block: BlockRef<'c, 'a>,
    derived: Option<&(ShapeEnv, Storage)>,
    verdicts: &mut Verdicts,
) -> bool {
    let mut ok = true;
    for (op, name) in ops_of(block, Dialect::Ascend) {
        let mut key: Vec<Storage> = vec![op.name().to_raw().ptr as Storage];
        if let Some((_, definitions)) = derived {
            key.push(*definitions);
        }
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
        if verify_ascend_op(&op, &name, derived.map(|(env, _)| env)) {
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

fn verify_ascend_op(op: &OperationRef, name: &str, derived: Option<&ShapeEnv>) -> bool {
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
        if let Some(message) = compare_types(want, have, &local_env, derived) {
            error_at(location, format!("result #{i}: {message}"));
            ok = false;
        }
    }
    ok
}

/// Explains why a declared result type contradicts the computed one (under the op's
/// guards in `env`, or else through the function's derived symbols).
fn compare_types(
    want: &TensorType,
    have: &TensorType,
    env: &ShapeEnv,
    derived: Option<&ShapeEnv>,
) -> Option<String> {
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
            let mut verdict = env.static_check(w, Relation::Eq, h);
            if let (Tri::Unknown, Some(derived)) = (verdict, derived) {
                verdict = derived.static_check(w, Relation::Eq, h);
            }
            if verdict == Tri::False {
                return Some(format!("dim {d} is '{h}', expected '{w}'"));
            }
        }
    }
    None
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
                &mut |message| error_at(location, message),
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
                verify_sched_axis(&mut |m| error_at(op.location(), m), &value, &table)
            } else {
                verify_view(&mut |m| error_at(op.location(), m), &value, &table)
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
