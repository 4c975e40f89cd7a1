//! `--lower-to-ascir`: every fusable `ascend` op becomes a call of its own AscGraph.
//!
//! What it does, per `ascend` graph function, op by op:
//! 1. Builds the op's AscGraph in hint form (`autofuse_core::lowering`: one loop nest,
//!    `data`/`load` with symbolic views, single-axis `broadcast`s after loads, keep-dim
//!    reductions, casts where the chip cannot compute a dtype, `store`/`output`), named
//!    `autofuse_<kind>_<n>_<Op>` and carrying the op's location on every node.
//! 2. Appends that AscGraph to the module and replaces the op by `func.call` of it (the
//!    AscBackend analogue: a call whose callee carries `ascir.axes`).
//! 3. Ranges (`ascend.range`, and reshapes or integer-to-float casts of one: values
//!    that are still `start + delta * flat offset`) are no kernel inputs: each kernel
//!    that reads one computes it under its read's view (`ascir.arange`). Ranges are
//!    visited last, latest first: one nothing reads any more is erased, one that a graph
//!    op (or the return) still reads is lowered like any op, into a kernel of its own.
//! 4. Leaves every other op in the graph with a remark giving a stable reason code
//!    (`AF-LW001` unsupported op, `AF-LW002` boundary, `AF-LW003` dtype, `AF-LW004`
//!    unknown shape). The pass never fails on an unsupported op.
//!
//! Preconditions: the module verifies; run after `--infer-symbolic-shapes` (dims without
//! symbols are refused with AF-LW004) and `--decompose` (composites are refused).
//! Postconditions: calls and AscGraphs verify; graph semantics are unchanged (checked by
//! the differential tests, which run both through the interpreters).

use crate::options::PassOptions;
use crate::registry::{OptionInfo, PassInfo};
use crate::statistics;
use autofuse_core::catalogue::{lookup, Category, Dialect};
use autofuse_core::graph::TensorType;
use autofuse_core::graph::ValueId;
use autofuse_core::lowering::{arange_computable, kernel_kind, lower_op_with, InlinedRange};
use autofuse_mlir::{build, diagnostics, extract, raw};
use melior::ir::{
    attribute::FlatSymbolRefAttribute, block::BlockLike, operation::OperationBuilder,
    operation::OperationLike, Identifier, OperationRef, Value,
};
use std::collections::HashMap;

pub const PASS: PassInfo = PassInfo {
    argument: "lower-to-ascir",
    summary: "Lower each fusable ascend op to a call of its own AscGraph (hint form)",
    description: "Each elementwise, compare, select, cast, broadcast_to, reduction and view op \
                  (reshape/squeeze/unsqueeze), each transpose that keeps the innermost axis or \
                  swaps the two innermost axes (f32/f16) (a load with permuted strides) and each \
                  binary concat with an axis left to tile becomes a \
                  func.call of a new AscGraph in GE's hint form. \
                  A range (i32/f32/f16; also a reshape of one, or an integer one cast to a \
                  float type) is computed by each kernel that reads it (ascir.arange under the \
                  read's view) and erased; one that a graph op still reads becomes a kernel. \
                  Other ops stay graph ops with a remark carrying a reason code (AF-LW001..AF-LW004).",
    options: &[OptionInfo {
        name: "remarks",
        kind: "bool",
        default: "true",
        help: "emit a remark for every op that is not lowered",
    }],
    run,
};

fn run(module: OperationRef, options: &PassOptions) -> Result<(), ()> {
    let remarks = diagnostics::or_error(module.location(), options.get_bool("remarks", true))?;
    let body = extract::module_body(module).ok_or(())?;
    // Kernels repeat the same attribute and type texts: parse each once per run.
    let mut cache = build::SpecCache::new(&module);
    let mut counter = extract::functions(body)
        .iter()
        .filter(|f| extract::function_name(f).starts_with("autofuse_"))
        .count();
    let (mut lowered, mut kept) = (0u64, 0u64);
    let mut ok = true;
    for func in extract::functions(body) {
        if func.has_attribute("ascir.axes") {
            continue;
        }
        let Some(extracted) = extract::extract_function(func) else {
            continue;
        };
        let graph = &extracted.graph;
        // Ranges the kernels that read them compute themselves, and values that are
        // still ranges: a reshape keeps every element's flat offset, and an integer range
        // cast to a float type is the same progression in that type.
        let mut ranges: HashMap<ValueId, InlinedRange> = HashMap::new();
        for node in &graph.nodes {
            let &[result] = node.results.as_slice() else {
                continue;
            };
            let Some(result_type) = graph.ty(result) else {
                continue;
            };
            if !arange_computable(result_type.dtype) {
                continue;
            }
            let derived = match node.op.as_str() {
                "ascend.range" => InlinedRange::from_range_attrs(&node.attrs),
                "ascend.reshape" | "ascend.squeeze" | "ascend.unsqueeze" | "ascend.cast" => node
                    .operands
                    .first()
                    .filter(|&&v| {
                        let source = graph.ty(v).map(|t| t.dtype);
                        source == Some(result_type.dtype)
                            || (node.op == "ascend.cast"
                                && source.is_some_and(|d| d.is_int())
                                && result_type.dtype.is_float())
                    })
                    .and_then(|v| ranges.get(v).cloned()),
                _ => None,
            };
            if let Some(range) = derived {
                ranges.insert(result, range);
            }
        }
        let is_range = |node: &autofuse_core::graph::Node| {
            node.results.len() == 1 && ranges.contains_key(&node.results[0])
        };
        // Ranges come last, latest first: one that every reader inlined is erased, one
        // that some other op still reads becomes a kernel of its own.
        let order = graph
            .nodes
            .iter()
            .zip(&extracted.ops)
            .filter(|(node, _)| !is_range(node))
            .chain(
                graph
                    .nodes
                    .iter()
                    .zip(&extracted.ops)
                    .filter(|(node, _)| is_range(node))
                    .rev(),
            );
        for (node, op) in order {
            let Some(spec) = lookup(&node.op) else {
                continue;
            };
            if spec.dialect != Dialect::Ascend {
                continue;
            }
            if is_range(node)
                && op
                    .results()
                    .all(|r| !autofuse_mlir::raw::has_uses(r.into()))
            {
                raw::erase_op(*op);
                continue;
            }
            let operand_types: Option<Vec<TensorType>> = node
                .operands
                .iter()
                .map(|v| graph.ty(*v).cloned())
                .collect();
            let result_types: Option<Vec<TensorType>> =
                node.results.iter().map(|v| graph.ty(*v).cloned()).collect();
            let (Some(operand_types), Some(result_types)) = (operand_types, result_types) else {
                continue;
            };
            let name = format!(
                "autofuse_{}_{}_{}",
                kernel_kind(&node.op),
                counter,
                autofuse_core::lowering::camel_name(&node.op)
            );
            let loc = Some(extract::location_text(op.location()));
            let inlined: Vec<Option<InlinedRange>> = node
                .operands
                .iter()
                .map(|v| ranges.get(v).cloned())
                .collect();
            match lower_op_with(
                &node.op,
                &node.attrs,
                &operand_types,
                &result_types,
                loc,
                &name,
                &inlined,
            ) {
                Err(refusal) => {
                    kept += 1;
                    // Constants stay kernel inputs by design; a range that stays says why.
                    if remarks && (spec.category != Category::Constant || node.op == "ascend.range")
                    {
                        diagnostics::remark(
                            op.location(),
                            format!("{} not lowered: {}", refusal.code, refusal.reason),
                        );
                    }
                }
                Ok(ascgraph) => {
                    // The kernel's arguments and return have no source text of their
                    // own: they take the location of the op the kernel replaces.
                    let spec = ascgraph.to_func_spec();
                    if let Err(e) = build::append_func(&mut cache, body, &spec, op.location()) {
                        diagnostics::error(
                            op.location(),
                            format!("internal error: the AscGraph of '{}': {e}", node.op),
                        );
                        ok = false;
                        continue;
                    }
                    let kept: Vec<bool> = inlined.iter().map(Option::is_none).collect();
                    if replace_with_call(op, &name, &kept).is_err() {
                        diagnostics::error(
                            op.location(),
                            "internal error: cannot build the kernel call",
                        );
                        ok = false;
                        continue;
                    }
                    counter += 1;
                    lowered += 1;
                }
            }
        }
    }
    statistics::add(
        PASS.argument,
        "lowered",
        "Number of ops lowered to AscGraphs",
        lowered,
    );
    statistics::add(
        PASS.argument,
        "kept",
        "Number of ops kept as graph ops",
        kept,
    );
    if ok {
        Ok(())
    } else {
        Err(())
    }
}

/// Replaces `op` by `func.call @name` with the operands `kept` marks (the others the
/// kernel computes itself) and the same result types.
fn replace_with_call(op: &OperationRef, name: &str, kept: &[bool]) -> Result<(), ()> {
    let block = op.block().ok_or(())?;
    // SAFETY: the context outlives the op we build in it.
    // `to_ref` borrows the ContextRef's own storage: keep it alive while used.
    let context_ref = op.context();
    let context = unsafe { context_ref.to_ref() };
    let operands: Vec<Value> = op
        .operands()
        .enumerate()
        .filter(|(i, _)| kept.get(*i).copied().unwrap_or(true))
        .map(|(_, v)| v)
        .collect();
    let result_types: Vec<_> = op
        .results()
        .map(|r| melior::ir::ValueLike::r#type(&r))
        .collect();
    let call = OperationBuilder::new("func.call", op.location())
        .add_operands(&operands)
        .add_results(&result_types)
        .add_attributes(&[(
            Identifier::new(context, "callee"),
            FlatSymbolRefAttribute::new(context, name).into(),
        )])
        .build()
        .map_err(|_| ())?;
    let call = block.insert_operation_before(*op, call);
    for (index, old) in op.results().enumerate() {
        let new = call.result(index).map_err(|_| ())?;
        raw::replace_all_uses(old.into(), new.into());
    }
    raw::erase_op(*op);
    Ok(())
}
