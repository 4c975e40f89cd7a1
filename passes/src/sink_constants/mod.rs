//! `--sink-constants`: moves splat constants that kernels read into the kernels, as
//! `ascir.scalar` nodes.
//!
//! Why: decomposed ops bring scalar constants (GELU's 0.044715 and sqrt(2/pi), an
//! epsilon, a 0.5) that `--lower-to-ascir` keeps as graph values, so every kernel
//! reading one loads a one-element tensor from GM and broadcasts it over each tile with
//! the scalar unit (`GetValue`, which stalls the pipes until the vector unit catches
//! up) and a `Duplicate`. A constant the kernel knows costs none of that: the emitter
//! turns an `ascir.scalar` operand of an add, mul, max or min into the scalar form of
//! the API (`Adds`, `Muls`, `Maxs`, `Mins`), and any other use into one `Duplicate`.
//!
//! What it does, per graph function (a `func.func` without `ascir.axes`):
//! 1. For every call of a kernel in hint form (`ascir.form = "hint"`) that nothing else
//!    calls, finds the operands defined by an `ascend.constant` whose value is one
//!    number (a splat, or a single element) of a type the vector unit duplicates (f32,
//!    f16, bf16, i32), finite.
//! 2. In the kernel, every `load` of such an input becomes an `ascir.scalar` holding the
//!    value under the load's view, and every broadcast of a scalar becomes a scalar
//!    under the broadcast's view. An input some other node reads (a gather's table)
//!    stays an input.
//! 3. The kernel is rebuilt without the sunk inputs (data indices renumbered), the call
//!    passes the other operands, and constants left without uses are erased.
//!
//! Preconditions: the module verifies; kernels are in hint form (after `--fuse`, before
//! `--schedule`; run after `--fuse` so that a kernel of one op can still be lifted back).
//! Postconditions: the module verifies; every graph computes the same values (each sunk
//! load read the constant's value at every element); kernel names are unchanged.

use crate::options::PassOptions;
use crate::registry::PassInfo;
use crate::statistics;
use autofuse_ascir::graph::{AscGraph, AscNode};
use autofuse_ir::attr::{quote, AttrValue};
use autofuse_ir::graph::{DType, Graph, ValueDef, ValueId};
use autofuse_mlir::{build, diagnostics, extract, raw};
use melior::ir::operation::OperationLike;
use std::collections::HashMap;

pub const PASS: PassInfo = PassInfo {
    argument: "sink-constants",
    summary: "Move splat constants that kernels read into the kernels as ascir.scalar nodes",
    description: "A kernel operand defined by an ascend.constant holding one number (a splat or a single \
                  element, f32/f16/bf16/i32/i16/i8/u8, or i64 holding an int32 value that f32 holds too; finite) becomes an ascir.scalar inside the kernel: its loads \
                  and the broadcasts of them turn into scalars under their views, the kernel loses the \
                  input and the call the operand. The emitter then uses the scalar API forms (Adds, Muls, \
                  Maxs, Mins) instead of loading a one-element tensor from GM and broadcasting it over \
                  every tile with the scalar unit. Run after --fuse, before --schedule.",
    options: &[],
    run,
};

/// The number a graph value holds when it is a constant `sink-constants` moves.
pub(crate) fn sinkable_constant(graph: &Graph, value: ValueId) -> Option<f64> {
    let ValueDef::Result { node, .. } = graph.values.get(value)?.def else {
        return None;
    };
    let node = graph.nodes.get(node)?;
    if node.op != "ascend.constant" {
        return None;
    }
    let dtype = graph.ty(value)?.dtype;
    // Small integers are widened to an exact float type where they are read (a cast
    // of the scalar folds into it); an int64 constant is sunk when int32 holds it (a
    // narrowing cast to int32 or f32 folds, an integer select takes it as its scalar
    // branch).
    if !matches!(
        dtype,
        DType::F32 | DType::F16 | DType::BF16 | DType::I32 | DType::I16 | DType::I8 | DType::U8
    ) && dtype != DType::I64
    {
        return None;
    }
    let Some(AttrValue::Dense { values, splat, .. }) = node.attr("value") else {
        return None;
    };
    let number = match values.as_slice() {
        [v] if *splat || values.len() == 1 => *v,
        _ => return None,
    };
    if dtype == DType::I64 && !(exact_in(number, DType::I32) && exact_in(number, DType::F32)) {
        return None;
    }
    number.is_finite().then_some(number)
}

fn scalar_value(node: &AscNode) -> Option<f64> {
    node.attrs
        .iter()
        .find(|(k, _)| k == "value")
        .and_then(|(_, v)| v.trim_matches('"').parse::<f64>().ok())
}

/// Whether an element of `dtype` holds `value` exactly.
fn exact_in(value: f64, dtype: DType) -> bool {
    match dtype {
        DType::F32 => f64::from(value as f32) == value,
        DType::I32 => value.fract() == 0.0 && (i32::MIN as f64..=i32::MAX as f64).contains(&value),
        // Every integer up to 2^11 in magnitude (all int8/uint8 values).
        DType::F16 => value.fract() == 0.0 && value.abs() <= 2048.0,
        _ => false,
    }
}

/// `graph` with every input `values` names (by input position) computed in place: its
/// loads become scalars, broadcasts of scalars scalars, and the input is dropped. The
/// inputs actually sunk come back with the graph; none means nothing changed.
pub fn sink_inputs(graph: &AscGraph, values: &[Option<f64>]) -> Option<(AscGraph, Vec<bool>)> {
    let mut users: Vec<Vec<usize>> = vec![Vec::new(); graph.nodes.len()];
    for (n, node) in graph.nodes.iter().enumerate() {
        for &o in &node.operands {
            if let Some(u) = users.get_mut(o) {
                u.push(n);
            }
        }
    }
    let mut sunk = vec![false; graph.inputs.len()];
    let mut nodes = graph.nodes.clone();
    let mut removed = vec![false; nodes.len()];
    for (n, node) in graph.nodes.iter().enumerate() {
        let (Some(index), "data") = (node.index, node.op.as_str()) else {
            continue;
        };
        let Some(Some(value)) = values.get(index) else {
            continue;
        };
        if users[n].is_empty() || users[n].iter().any(|&u| graph.nodes[u].op != "load") {
            continue;
        }
        for &load in &users[n] {
            let scalar = &mut nodes[load];
            scalar.op = "scalar".into();
            scalar.operands.clear();
            scalar.attrs = vec![("value".into(), quote(&format!("{value:?}")))];
        }
        removed[n] = true;
        if let Some(s) = sunk.get_mut(index) {
            *s = true;
        }
    }
    if !sunk.iter().any(|&s| s) {
        return None;
    }
    // A broadcast of a scalar is that scalar under the broadcast's view, and so is a
    // cast of one whose value the target type holds exactly (a bf16 constant widened to
    // the f32 its op computes in). Operands come before their users, so chains fold in
    // one sweep.
    for n in 0..nodes.len() {
        let source = match (nodes[n].op.as_str(), nodes[n].operands.as_slice()) {
            ("broadcast", [s]) if nodes[*s].op == "scalar" && nodes[*s].dtype == nodes[n].dtype => {
                *s
            }
            ("cast", [s])
                if nodes[*s].op == "scalar"
                    && scalar_value(&nodes[*s]).is_some_and(|v| exact_in(v, nodes[n].dtype)) =>
            {
                *s
            }
            _ => continue,
        };
        let attrs = nodes[source].attrs.clone();
        let folded = &mut nodes[n];
        folded.op = "scalar".into();
        folded.operands.clear();
        folded.attrs = attrs;
    }
    // Scalars nothing reads any more go (from the last, so chains empty out).
    let mut readers = vec![0usize; nodes.len()];
    for node in &nodes {
        for &o in &node.operands {
            readers[o] += 1;
        }
    }
    for n in (0..nodes.len()).rev() {
        if nodes[n].op == "scalar" && readers[n] == 0 && !removed[n] {
            removed[n] = true;
            for &o in &nodes[n].operands {
                readers[o] -= 1;
            }
        }
    }
    let mut new_index = vec![usize::MAX; nodes.len()];
    let mut kept: Vec<AscNode> = Vec::new();
    let input_map: Vec<Option<usize>> = {
        let mut next = 0;
        sunk.iter()
            .map(|&s| {
                (!s).then(|| {
                    next += 1;
                    next - 1
                })
            })
            .collect()
    };
    for (n, mut node) in nodes.into_iter().enumerate() {
        if removed[n] {
            continue;
        }
        node.operands = node.operands.iter().map(|&o| new_index[o]).collect();
        if node.op == "data" {
            node.index = node.index.and_then(|i| input_map.get(i).copied().flatten());
        }
        new_index[n] = kept.len();
        kept.push(node);
    }
    if kept.iter().any(|n| n.operands.contains(&usize::MAX)) {
        return None;
    }
    let mut result = graph.clone();
    result.nodes = kept;
    result.inputs = graph
        .inputs
        .iter()
        .zip(&sunk)
        .filter(|(_, &s)| !s)
        .map(|(t, _)| t.clone())
        .collect();
    Some((result, sunk))
}

fn run(module: melior::ir::OperationRef, _options: &PassOptions) -> Result<(), ()> {
    let body = extract::module_body(module).ok_or(())?;
    let mut kernels = HashMap::new();
    let mut calls: HashMap<String, usize> = HashMap::new();
    for func in extract::functions(body) {
        if func.has_attribute("ascir.axes") {
            let attrs = extract::read_attributes(&func);
            if attrs.get("ascir.form").and_then(AttrValue::as_str) == Some("hint") {
                kernels.insert(extract::function_name(&func), func);
            }
        } else {
            for callee in extract::callees(&func) {
                *calls.entry(callee).or_insert(0) += 1;
            }
        }
    }
    let mut cache = build::SpecCache::new(&module);
    let mut sunk_total = 0u64;
    let mut ok = true;
    // Graph functions first: kernels are erased and rebuilt below.
    let graph_functions: Vec<_> = extract::functions(body)
        .into_iter()
        .filter(|f| !f.has_attribute("ascir.axes"))
        .collect();
    for func in graph_functions {
        let Some(extracted) = extract::extract_function(func) else {
            continue;
        };
        let graph = &extracted.graph;
        for (node, op) in graph.nodes.iter().zip(&extracted.ops) {
            if node.op != "func.call" {
                continue;
            }
            let Some(callee) = node.attr("callee").and_then(AttrValue::as_symbol) else {
                continue;
            };
            let (Some(&kernel), Some(1)) = (kernels.get(callee), calls.get(callee)) else {
                continue;
            };
            let values: Vec<Option<f64>> = node
                .operands
                .iter()
                .map(|&v| sinkable_constant(graph, v))
                .collect();
            if values.iter().all(Option::is_none) {
                continue;
            }
            let asc = match crate::fuse::read_ascgraph(&kernel) {
                Ok(g) => g,
                Err(e) => {
                    diagnostics::error(kernel.location(), e);
                    ok = false;
                    continue;
                }
            };
            let Some((sunk_graph, sunk)) = sink_inputs(&asc, &values) else {
                continue;
            };
            let location = kernel.location();
            raw::erase_op(kernel);
            if let Err(e) =
                build::append_func(&mut cache, body, &sunk_graph.to_func_spec(), location)
            {
                diagnostics::error(location, format!("internal error: the AscGraph {e}"));
                ok = false;
                continue;
            }
            let kept: Vec<bool> = sunk.iter().map(|&s| !s).collect();
            if crate::lower_to_ascir::replace_with_call(op, callee, &kept).is_err() {
                diagnostics::error(
                    op.location(),
                    "internal error: cannot rebuild the kernel call",
                );
                ok = false;
                continue;
            }
            sunk_total += sunk.iter().filter(|&&s| s).count() as u64;
        }
        // Constants the calls no longer read.
        for (node, op) in graph.nodes.iter().zip(&extracted.ops) {
            if node.op == "ascend.constant" && op.results().all(|r| !raw::has_uses(r.into())) {
                raw::erase_op(*op);
            }
        }
    }
    statistics::add(
        PASS.argument,
        "sunk",
        "Number of constant kernel operands moved into their kernels",
        sunk_total,
    );
    if ok {
        Ok(())
    } else {
        Err(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use autofuse_ascir::graph::View;
    use autofuse_ir::graph::{Dim, TensorType};
    use autofuse_symbolic::Expr;

    fn node(op: &str, operands: Vec<usize>, repeats: &[i64], index: Option<usize>) -> AscNode {
        let repeats: Vec<Expr> = repeats.iter().map(|&r| Expr::constant(r)).collect();
        AscNode {
            op: op.into(),
            operands,
            dtype: DType::F32,
            view: View::contiguous(vec![0, 1], repeats),
            attrs: Vec::new(),
            index,
            loc: None,
        }
    }

    /// x[4, 8] * c, with c a one-element input broadcast twice.
    fn scaled() -> AscGraph {
        let ty =
            |d: &[i64]| TensorType::new(DType::F32, d.iter().map(|&v| Dim::constant(v)).collect());
        AscGraph {
            name: "k".into(),
            axes: Vec::new(),
            sizes: Vec::new(),
            inputs: vec![ty(&[4, 8]), ty(&[])],
            outputs: vec![ty(&[4, 8])],
            nodes: vec![
                node("data", vec![], &[4, 8], Some(0)),
                node("load", vec![0], &[4, 8], None),
                node("data", vec![], &[1, 1], Some(1)),
                node("load", vec![2], &[1, 1], None),
                node("broadcast", vec![3], &[4, 1], None),
                node("broadcast", vec![4], &[4, 8], None),
                node("mul", vec![1, 5], &[4, 8], None),
                node("store", vec![6], &[4, 8], None),
                node("output", vec![7], &[4, 8], Some(0)),
            ],
            source_ops: vec!["Mul".into(), "Mul".into()],
        }
    }

    #[test]
    fn a_broadcast_constant_becomes_one_scalar_under_the_full_view() {
        let (g, sunk) = sink_inputs(&scaled(), &[None, Some(0.5)]).unwrap();
        assert_eq!(sunk, vec![false, true]);
        assert_eq!(g.inputs.len(), 1);
        let ops: Vec<&str> = g.nodes.iter().map(|n| n.op.as_str()).collect();
        assert_eq!(ops, ["data", "load", "scalar", "mul", "store", "output"]);
        assert_eq!(
            g.nodes[2].view.repeats,
            vec![Expr::constant(4), Expr::constant(8)]
        );
        assert_eq!(g.nodes[2].attrs, vec![("value".into(), "\"0.5\"".into())]);
        assert_eq!(g.nodes[3].operands, vec![1, 2]);
        assert_eq!(g.nodes[4].operands, vec![3]);
    }

    #[test]
    fn an_exact_cast_of_a_scalar_folds_and_an_inexact_one_stays() {
        let mut g = scaled();
        g.nodes[4] = AscNode {
            dtype: DType::F32,
            ..node("cast", vec![3], &[1, 1], None)
        };
        g.nodes[3].dtype = DType::BF16;
        g.nodes[2].dtype = DType::BF16;
        let (s, _) = sink_inputs(&g, &[None, Some(0.5)]).unwrap();
        let ops: Vec<&str> = s.nodes.iter().map(|n| n.op.as_str()).collect();
        assert_eq!(ops, ["data", "load", "scalar", "mul", "store", "output"]);
        assert_eq!(s.nodes[2].dtype, DType::F32);
        // 0.1 is no f32: the cast stays (and computes the rounding on the device).
        let (s, _) = sink_inputs(&g, &[None, Some(0.1)]).unwrap();
        let ops: Vec<&str> = s.nodes.iter().map(|n| n.op.as_str()).collect();
        assert_eq!(
            ops,
            [
                "data",
                "load",
                "scalar",
                "cast",
                "broadcast",
                "mul",
                "store",
                "output"
            ]
        );
    }

    #[test]
    fn later_inputs_are_renumbered_and_other_readers_keep_an_input() {
        let mut g = scaled();
        // Input 0 is the constant now; x is input 1.
        g.nodes[0].index = Some(1);
        g.nodes[2].index = Some(0);
        g.inputs.swap(0, 1);
        let (s, sunk) = sink_inputs(&g, &[Some(2.0), None]).unwrap();
        assert_eq!(sunk, vec![true, false]);
        assert_eq!(s.nodes[0].index, Some(0));
        // A gather-like reader of the data node keeps the input.
        let mut g = scaled();
        g.nodes[6] = node("gather", vec![2, 1], &[4, 8], None);
        assert!(sink_inputs(&g, &[None, Some(2.0)]).is_none());
        assert!(sink_inputs(&scaled(), &[None, None]).is_none());
    }
}
