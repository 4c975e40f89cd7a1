//! `--lower-to-ascir`: every fusable `ascend` op becomes a call of its own AscGraph.
//!
//! What it does, per `ascend` graph function, op by op:
//! 1. Builds the op's AscGraph in hint form (`crate::lower_to_ascir::lowering`: one loop nest,
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
//!    A select of i64 data whose branch is broadcast from anything but a constant
//!    int32 value stays a graph op (`wide_select_refusal`), as no kernel broadcasts
//!    64-bit data.
//! 4. Leaves every other op in the graph with a remark giving a stable reason code
//!    (`AF-LW001` unsupported op, `AF-LW002` boundary, `AF-LW003` dtype, `AF-LW004`
//!    unknown shape, `AF-LW005` named by the `disable` option). The pass never fails on
//!    an unsupported op.
//!
//! Preconditions: the module verifies; run after `--infer-symbolic-shapes` (dims without
//! symbols are refused with AF-LW004) and `--decompose` (composites are refused).
//! Postconditions: calls and AscGraphs verify; graph semantics are unchanged (checked by
//! the differential tests, which run both through the interpreters).

pub mod lowering;

use crate::lower_to_ascir::lowering::{
    arange_computable, kernel_kind, lower_op_with, InlinedRange,
};
use crate::options::PassOptions;
use crate::registry::{OptionInfo, PassInfo};
use crate::statistics;
use autofuse_ascir::graph::AscGraph;
use autofuse_ir::graph::TensorType;
use autofuse_ir::graph::{Graph, Node, ValueId};
use autofuse_mlir::extract::ExtractedGraph;
use autofuse_mlir::registry::{lookup, Category, Dialect};
use autofuse_mlir::{build, diagnostics, extract, raw};
use melior::ir::{
    attribute::FlatSymbolRefAttribute, block::BlockLike, operation::OperationBuilder,
    operation::OperationLike, BlockRef, Identifier, OperationRef, Value,
};
use std::collections::HashMap;

/// Why a select of int64 data stays a graph op, if it does. Such a select only moves
/// bits (`autofuse_ascir::kernel::int_select`), and a kernel holds 64-bit values only as
/// whole loaded tiles or as scalar branches it materializes from an int32 value: a
/// branch broadcast to the result's shape must be a constant holding one int32 value
/// (it becomes such a scalar, `--sink-constants`). Any other would be a broadcast of
/// 64-bit data, which no kernel emits, and the kernel would be left to the interpreter.
fn wide_select_refusal(
    graph: &autofuse_ir::graph::Graph,
    node: &autofuse_ir::graph::Node,
    operand_types: &[TensorType],
    result_types: &[TensorType],
) -> Option<String> {
    use autofuse_ir::attr::AttrValue;
    use autofuse_ir::graph::DType;
    let result = result_types.first()?;
    if node.op != "ascend.select" || result.dtype != DType::I64 {
        return None;
    }
    for i in 1..node.operands.len() {
        let ty = operand_types.get(i)?;
        if ty.dims == result.dims {
            continue;
        }
        let value = node.operands[i];
        let producer = graph.nodes.iter().find(|n| n.results.contains(&value));
        let int32_constant = producer.is_some_and(|p| {
            p.op == "ascend.constant"
                && matches!(
                    p.attr("value"),
                    Some(AttrValue::Dense { values, .. })
                        if !values.is_empty()
                            && values.iter().all(|&v| v == values[0])
                            && autofuse_ascir::kernel::int32_value(values[0])
                )
        });
        if !int32_constant {
            return Some(format!(
                "a select of i64 whose branch {i} is broadcast (not a constant int32 value) \
                 would broadcast 64-bit data, which no kernel does"
            ));
        }
    }
    None
}

pub const PASS: PassInfo = PassInfo {
    argument: "lower-to-ascir",
    summary: "Lower each fusable ascend op to a call of its own AscGraph (hint form)",
    description: "Each elementwise, compare, select, cast, broadcast_to, reduction and view op \
                  (reshape/squeeze/unsqueeze), each transpose that keeps the innermost axis or \
                  swaps the two innermost axes (f32/f16) (a load with permuted strides), each \
                  slice (a load at an offset), each gather (rows copied by index; i32 or i64 \
                  indices), each binary concat with an axis left to tile and each constant pad \
                  of one axis (a concat of fills and the operand) becomes a \
                  func.call of a new AscGraph in GE's hint form. \
                  A range (i32/f32/f16; also a reshape of one, or an integer one cast to a \
                  float type) is computed by each kernel that reads it (ascir.arange under the \
                  read's view) and erased; one that a graph op still reads becomes a kernel. \
                  A select of i64 data whose branch is broadcast from anything but a constant \
                  int32 value stays a graph op (AF-LW003: no kernel broadcasts 64-bit data). \
                  Other ops, and the structural ops named by `disable`, stay graph ops with a \
                  remark carrying a reason code (AF-LW001..AF-LW005).",
    options: &[
        OptionInfo {
            name: "remarks",
            kind: "bool",
            default: "true",
            help: "emit a remark for every op that is not lowered",
        },
        OptionInfo {
            name: "disable",
            kind: "list",
            default: "",
            help: "structural ops to keep as graph ops (GE's disable list): any of slice, \
                   concat, gather, transpose, pad, e.g. disable='slice,gather'",
        },
    ],
    run,
};

/// The ops `disable` may name.
pub const DISABLEABLE: &[&str] = &["slice", "concat", "gather", "transpose", "pad"];

/// The `disable` option's op names, each checked against [`DISABLEABLE`].
fn disabled_ops(options: &PassOptions) -> Result<Vec<String>, String> {
    let Some(list) = options.get("disable") else {
        return Ok(Vec::new());
    };
    list.split([',', ' ', ';'])
        .map(str::trim)
        .filter(|name| !name.is_empty())
        .map(|name| {
            if DISABLEABLE.contains(&name) {
                Ok(name.to_string())
            } else {
                Err(format!(
                    "option 'disable' names '{name}'; it takes {}",
                    DISABLEABLE.join(", ")
                ))
            }
        })
        .collect()
}

fn run(module: OperationRef, options: &PassOptions) -> Result<(), ()> {
    let remarks = diagnostics::or_error(module.location(), options.get_bool("remarks", true))?;
    let disabled = diagnostics::or_error(module.location(), disabled_ops(options))?;
    let body = extract::module_body(module).ok_or(())?;
    let mut lowering = Lowering {
        body,
        remarks,
        disabled,
        // Kernels repeat the same attribute and type texts: parse each once per run.
        cache: build::SpecCache::new(&module),
        counter: extract::functions(body)
            .iter()
            .filter(|f| extract::function_name(f).starts_with("autofuse_"))
            .count(),
        lowered: 0,
        kept: 0,
        ok: true,
    };
    for func in extract::functions(body) {
        if func.has_attribute("ascir.axes") {
            continue;
        }
        let Some(extracted) = extract::extract_function(func) else {
            continue;
        };
        lowering.lower_function(&extracted);
    }
    statistics::add(
        PASS.argument,
        "lowered",
        "Number of ops lowered to AscGraphs",
        lowering.lowered,
    );
    statistics::add(
        PASS.argument,
        "kept",
        "Number of ops kept as graph ops",
        lowering.kept,
    );
    if lowering.ok {
        Ok(())
    } else {
        Err(())
    }
}

/// The state of one run: the module body kernels are appended to, the options, the
/// kernel counter that names kernels, and the counts and outcome it reports.
struct Lowering<'c, 'a> {
    body: BlockRef<'c, 'a>,
    remarks: bool,
    disabled: Vec<String>,
    cache: build::SpecCache<'c>,
    /// The number of the next kernel (after those the module already holds).
    counter: usize,
    lowered: u64,
    kept: u64,
    ok: bool,
}

/// Values that are ranges the kernels that read them compute themselves: an
/// `ascend.range`, and values that are still ranges: a reshape keeps every element's
/// flat offset, and an integer range cast to a float type is the same progression in
/// that type.
fn range_values(graph: &Graph) -> HashMap<ValueId, InlinedRange> {
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
    ranges
}

/// Whether `node` computes one of `ranges`.
fn is_range(ranges: &HashMap<ValueId, InlinedRange>, node: &Node) -> bool {
    node.results.len() == 1 && ranges.contains_key(&node.results[0])
}

/// The ops of a function in the order they are lowered: ranges come last, latest
/// first, so that one every reader inlined is erased and one that some other op still
/// reads becomes a kernel of its own.
fn lowering_order<'g, 'c, 'a>(
    extracted: &'g ExtractedGraph<'c, 'a>,
    ranges: &'g HashMap<ValueId, InlinedRange>,
) -> impl Iterator<Item = (&'g Node, &'g OperationRef<'c, 'a>)> {
    let graph = &extracted.graph;
    graph
        .nodes
        .iter()
        .zip(&extracted.ops)
        .filter(|(node, _)| !is_range(ranges, node))
        .chain(
            graph
                .nodes
                .iter()
                .zip(&extracted.ops)
                .filter(|(node, _)| is_range(ranges, node))
                .rev(),
        )
}

impl<'c, 'a> Lowering<'c, 'a> {
    /// Lowers every fusable `ascend` op of one graph function to a kernel call.
    fn lower_function(&mut self, extracted: &ExtractedGraph<'c, 'a>) {
        let graph = &extracted.graph;
        let ranges = range_values(graph);
        for (node, op) in lowering_order(extracted, &ranges) {
            self.lower_node(graph, node, op, &ranges);
        }
    }

    /// Lowers one op: erased if it is a range nothing reads any more, replaced by a
    /// call of its kernel if it lowers, kept with a remark otherwise.
    fn lower_node(
        &mut self,
        graph: &Graph,
        node: &Node,
        op: &OperationRef<'c, 'a>,
        ranges: &HashMap<ValueId, InlinedRange>,
    ) {
        let Some(spec) = lookup(&node.op) else {
            return;
        };
        if spec.dialect != Dialect::Ascend {
            return;
        }
        if is_range(ranges, node)
            && op
                .results()
                .all(|r| !autofuse_mlir::raw::has_uses(r.into()))
        {
            raw::erase_op(*op);
            return;
        }
        if self.disabled.iter().any(|d| *d == spec.name) {
            self.keep(
                op,
                format!(
                    "AF-LW005 not lowered: '{}' is in the disable list of --lower-to-ascir",
                    spec.name
                ),
            );
            return;
        }
        let operand_types: Option<Vec<TensorType>> = node
            .operands
            .iter()
            .map(|v| graph.ty(*v).cloned())
            .collect();
        let result_types: Option<Vec<TensorType>> =
            node.results.iter().map(|v| graph.ty(*v).cloned()).collect();
        let (Some(operand_types), Some(result_types)) = (operand_types, result_types) else {
            return;
        };
        let name = format!(
            "autofuse_{}_{}_{}",
            kernel_kind(&node.op),
            self.counter,
            crate::lower_to_ascir::lowering::camel_name(&node.op)
        );
        let loc = Some(extract::location_text(op.location()));
        if let Some(reason) = wide_select_refusal(graph, node, &operand_types, &result_types) {
            self.keep(op, format!("AF-LW003 not lowered: {reason}"));
            return;
        }
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
                self.kept += 1;
                // Constants stay kernel inputs by design; a range that stays says why.
                if self.remarks
                    && (spec.category != Category::Constant || node.op == "ascend.range")
                {
                    diagnostics::remark(
                        op.location(),
                        format!("{} not lowered: {}", refusal.code, refusal.reason),
                    );
                }
            }
            Ok(ascgraph) => self.replace_by_kernel(node, op, (&ascgraph, &name), &inlined),
        }
    }

    /// Counts `op` as kept, with a remark saying why when remarks are on.
    fn keep(&mut self, op: &OperationRef<'c, 'a>, remark: String) {
        self.kept += 1;
        if self.remarks {
            diagnostics::remark(op.location(), remark);
        }
    }

    /// Appends `ascgraph`, the kernel `name`, to the module and replaces `op` by a call
    /// of it that passes the operands the kernel does not compute itself (`inlined`).
    fn replace_by_kernel(
        &mut self,
        node: &Node,
        op: &OperationRef<'c, 'a>,
        (ascgraph, name): (&AscGraph, &str),
        inlined: &[Option<InlinedRange>],
    ) {
        // The kernel's arguments and return have no source text of their own: they take
        // the location of the op the kernel replaces.
        let spec = ascgraph.to_func_spec();
        if let Err(e) = build::append_func(&mut self.cache, self.body, &spec, op.location()) {
            diagnostics::error(
                op.location(),
                format!("internal error: the AscGraph of '{}': {e}", node.op),
            );
            self.ok = false;
            return;
        }
        let kept: Vec<bool> = inlined.iter().map(Option::is_none).collect();
        if replace_with_call(op, name, &kept).is_err() {
            diagnostics::error(
                op.location(),
                "internal error: cannot build the kernel call",
            );
            self.ok = false;
            return;
        }
        self.counter += 1;
        self.lowered += 1;
    }
}

/// Replaces `op` by `func.call @name` with the operands `kept` marks (the others the
/// kernel computes itself) and the same result types.
pub(crate) fn replace_with_call(op: &OperationRef, name: &str, kept: &[bool]) -> Result<(), ()> {
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

/// The MLIR builder of `autofuse_mlir::build` on kernels this pass lowers.
#[cfg(test)]
mod build_tests {
    use super::lowering::lower_op;
    use autofuse_ascir::graph::{AscGraph, FuncSpec, OperandSpec};
    use autofuse_ir::graph::{DType, TensorType};
    use autofuse_mlir::build::{append_func, SpecCache};
    use autofuse_mlir::{context::create_context, diagnostics, raw};
    use melior::ir::block::BlockLike;
    use melior::ir::operation::OperationLike;
    use melior::ir::{BlockRef, Location, Module, OperationRef, RegionLike};
    use std::collections::BTreeMap;

    fn t(dtype: DType, dims: &[&str]) -> TensorType {
        TensorType::with_dims(dtype, dims).unwrap()
    }

    /// An AscGraph with broadcasts, symbolic views and located nodes, plus one node
    /// without a location.
    fn kernel() -> AscGraph {
        let mut graph = lower_op(
            "ascend.add",
            &BTreeMap::new(),
            &[t(DType::F32, &["s0", "16"]), t(DType::F32, &["1", "16"])],
            &[t(DType::F32, &["s0", "16"])],
            Some("loc(\"x.mlir\":3:7)".into()),
            "autofuse_pointwise_0_Add",
        )
        .unwrap();
        graph.nodes[2].loc = None;
        graph
    }

    fn functions<'c, 'a>(body: BlockRef<'c, 'a>) -> Vec<OperationRef<'c, 'a>> {
        let mut out = Vec::new();
        let mut next = body.first_operation();
        while let Some(op) = next {
            next = op.next_in_block();
            out.push(op);
        }
        out
    }

    #[test]
    fn built_function_prints_as_the_parsed_text() {
        let context = create_context();
        let location = Location::new(&context, "<test>", 1, 1);
        let parsed = Module::new(location);
        let built = Module::new(location);
        let graph = kernel();
        assert!(raw::append_parsed(
            &parsed.as_operation(),
            parsed.body(),
            &graph.to_mlir(),
            "<test>"
        ));
        let mut cache = SpecCache::new(&built.as_operation());
        // Twice, the second time entirely from the cache.
        for name in ["first", "second"] {
            let mut spec = graph.to_func_spec();
            spec.name = name.into();
            append_func(&mut cache, built.body(), &spec, location).unwrap();
        }
        assert!(built.as_operation().verify());
        let [parsed_func] = functions(parsed.body())[..] else {
            panic!("one function parsed");
        };
        let built_funcs = functions(built.body());
        assert_eq!(built_funcs.len(), 2);
        let expected = parsed_func
            .to_string()
            .replacen(&format!("@{}", graph.name), "@second", 1);
        assert_eq!(built_funcs[1].to_string(), expected);
        // Located nodes keep their location; the others get the one passed.
        let block = built_funcs[1].region(0).unwrap().first_block().unwrap();
        let ops: Vec<OperationRef> = functions(block);
        assert_eq!(ops.len(), graph.nodes.len() + 1);
        for (op, node) in ops.iter().zip(&graph.nodes) {
            let want = node.loc.clone().unwrap_or_else(|| location.to_string());
            assert_eq!(op.location().to_string(), want);
        }
        assert_eq!(built_funcs[1].location().to_string(), location.to_string());
        assert!(diagnostics::drain(&context).is_empty());
    }

    #[test]
    fn texts_that_do_not_parse_are_errors_and_leave_the_block_unchanged() {
        let context = create_context();
        let location = Location::unknown(&context);
        let module = Module::new(location);
        let mut cache = SpecCache::new(&module.as_operation());
        let good = kernel().to_func_spec();
        type Mutation = fn(&mut FuncSpec);
        let cases: [(Mutation, &str); 7] = [
            (
                |s| s.ops[3].attrs[1].1 = "#ascir.view<".into(),
                "op 3 'ascir.load'",
            ),
            (
                |s| s.ops[0].result_type = "tensor<?xf99>".into(),
                "op 0 'ascir.data'",
            ),
            (
                |s| s.ops[1].loc = Some("\"not a loc\"".into()),
                "is not a location",
            ),
            (|s| s.arg_types[0] = "tensor<".into(), "the type 'tensor<'"),
            (
                |s| s.ops[1].operands = vec![OperandSpec::Op(5)],
                "not defined before",
            ),
            (|s| s.returns[0] = None, "no op gives result 0"),
            (
                |s| s.attrs.push(("sym_name".into(), "\"f\"".into())),
                "twice",
            ),
        ];
        for (mutate, expected) in cases {
            let mut spec = good.clone();
            mutate(&mut spec);
            let e = append_func(&mut cache, module.body(), &spec, location).unwrap_err();
            assert!(e.message.starts_with("@autofuse_pointwise_0_Add: "), "{e}");
            assert!(e.message.contains(expected), "{e} lacks {expected}");
            assert!(module.body().first_operation().is_none());
            diagnostics::drain(&context);
        }
    }
}

/// The printed form of a lowered AscGraph.
#[cfg(test)]
mod ascir_print_tests {
    use autofuse_ir::graph::{DType, Dim, TensorType};
    use autofuse_symbolic::Expr;
    use std::collections::BTreeMap;

    /// The printed form is parsed by the tests and read by people: pin it.
    #[test]
    fn prints_the_spec_as_generic_ops() {
        let ty = TensorType::new(
            DType::F32,
            vec![
                Dim::Known(Expr::parse("s0").unwrap()),
                Dim::Known(Expr::constant(16)),
            ],
        );
        let mut graph = super::lowering::lower_op(
            "ascend.exp",
            &BTreeMap::new(),
            std::slice::from_ref(&ty),
            std::slice::from_ref(&ty),
            Some("loc(\"x.mlir\":3:7)".into()),
            "k",
        )
        .unwrap();
        graph.nodes[1].loc = None;
        let text = graph.to_mlir();
        assert_eq!(text, graph.to_func_spec().to_mlir());
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), graph.nodes.len() + 3);
        assert_eq!(
            lines[0],
            "func.func @k(%arg0: tensor<?x16xf32, #ascend.dims<[\"s0\", \"16\"]>>) -> \
             (tensor<?x16xf32, #ascend.dims<[\"s0\", \"16\"]>>) attributes \
             {ascir.axes = [#ascir.axis<0, \"z0\", \"s0\", \"original\", []>, \
             #ascir.axis<1, \"z1\", \"16\", \"original\", []>], ascir.form = \"hint\", \
             ascir.ops = [\"Exp\"], ascir.sizes = [\"s0\"]} {"
        );
        assert_eq!(
            lines[1],
            "  %0 = \"ascir.data\"(%arg0) {index = 0 : i64, view = #ascir.view<[0, 1], \
             [\"s0\", \"16\"], [\"16\", \"1\"]>} : (tensor<?x16xf32, #ascend.dims<[\"s0\", \
             \"16\"]>>) -> tensor<?x16xf32> loc(\"x.mlir\":3:7)"
        );
        assert!(
            lines[2].starts_with("  %1 = \"ascir.load\"(%0) {"),
            "{}",
            lines[2]
        );
        assert!(lines[2].contains("sched_axis = [0, 1], view = #ascir.view<"));
        assert!(lines[2].ends_with(": (tensor<?x16xf32>) -> tensor<?x16xf32>"));
        assert_eq!(
            lines[lines.len() - 2],
            format!(
                "  return %{} : tensor<?x16xf32, #ascend.dims<[\"s0\", \"16\"]>>",
                graph.nodes.len() - 1
            )
        );
        assert_eq!(lines[lines.len() - 1], "}");
    }
}

/// The AscIR interpreter on kernels this pass lowers, against hand computation.
#[cfg(test)]
mod ascir_interp_tests {
    use super::lowering::lower_op;
    use autofuse_ascir::interp::*;
    use autofuse_ir::attr::AttrValue;
    use autofuse_ir::graph::{DType, Dim, TensorType};
    use autofuse_ir::tensor::Tensor;
    use autofuse_symbolic::Expr;
    use std::collections::BTreeMap;

    fn ty(dtype: DType, dims: &[&str]) -> TensorType {
        TensorType::new(
            dtype,
            dims.iter()
                .map(|d| Dim::Known(Expr::parse(d).unwrap()))
                .collect(),
        )
    }

    #[test]
    fn concat_and_transpose_match_hand_computation() {
        let mut attrs = BTreeMap::new();
        attrs.insert("axis".to_string(), AttrValue::Int(1));
        let g = lower_op(
            "ascend.concat",
            &attrs,
            &[ty(DType::F32, &["s0", "2"]), ty(DType::F32, &["s0", "1"])],
            &[ty(DType::F32, &["s0", "3"])],
            None,
            "k",
        )
        .unwrap();
        let x = Tensor::new(DType::F32, vec![2, 2], vec![1.0, 2.0, 3.0, 4.0]).unwrap();
        let y = Tensor::new(DType::F32, vec![2, 1], vec![5.0, 6.0]).unwrap();
        let out = run(&g, &[x, y]).unwrap();
        assert_eq!(out[0].shape, vec![2, 3]);
        assert_eq!(out[0].data, vec![1.0, 2.0, 5.0, 3.0, 4.0, 6.0]);

        let mut attrs = BTreeMap::new();
        let perm = [1, 0, 2].map(AttrValue::Int).to_vec();
        attrs.insert("perm".to_string(), AttrValue::Array(perm));
        let g = lower_op(
            "ascend.transpose",
            &attrs,
            &[ty(DType::F32, &["2", "3", "2"])],
            &[ty(DType::F32, &["3", "2", "2"])],
            None,
            "k",
        )
        .unwrap();
        let x = Tensor::new(DType::F32, vec![2, 3, 2], (0..12).map(f64::from).collect()).unwrap();
        let out = run(&g, &[x]).unwrap();
        assert_eq!(out[0].shape, vec![3, 2, 2]);
        let expected = [0, 1, 6, 7, 2, 3, 8, 9, 4, 5, 10, 11]
            .map(f64::from)
            .to_vec();
        assert_eq!(out[0].data, expected);
    }

    #[test]
    fn broadcast_add_matches_hand_computation() {
        let g = lower_op(
            "ascend.add",
            &BTreeMap::new(),
            &[ty(DType::F32, &["s0", "3"]), ty(DType::F32, &["3"])],
            &[ty(DType::F32, &["s0", "3"])],
            None,
            "k",
        )
        .unwrap();
        let x = Tensor::new(DType::F32, vec![2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
        let b = Tensor::new(DType::F32, vec![3], vec![10.0, 20.0, 30.0]).unwrap();
        let out = run(&g, &[x, b]).unwrap();
        assert_eq!(out[0].shape, vec![2, 3]);
        assert_eq!(out[0].data, vec![11.0, 22.0, 33.0, 14.0, 25.0, 36.0]);
    }

    #[test]
    fn reduction_without_keep_dims_writes_the_compact_layout() {
        let mut attrs = BTreeMap::new();
        attrs.insert(
            "axes".to_string(),
            AttrValue::Array(vec![AttrValue::Int(0)]),
        );
        attrs.insert("keep_dims".to_string(), AttrValue::Bool(false));
        let g = lower_op(
            "ascend.reduce_max",
            &attrs,
            &[ty(DType::F16, &["2", "s1"])],
            &[ty(DType::F16, &["s1"])],
            None,
            "k",
        )
        .unwrap();
        let x = Tensor::new(DType::F16, vec![2, 3], vec![1.0, -5.0, 3.0, 0.5, 7.0, -2.0]).unwrap();
        let out = run(&g, &[x]).unwrap();
        assert_eq!(out[0].shape, vec![3]);
        assert_eq!(out[0].data, vec![1.0, 7.0, 3.0]);
    }

    #[test]
    fn f16_sum_accumulates_in_f32() {
        // 2048 + 1 + 1 in f16 steps would stay 2048 (ulp 2); the f32 accumulator gives 2050.
        let mut attrs = BTreeMap::new();
        attrs.insert(
            "axes".to_string(),
            AttrValue::Array(vec![AttrValue::Int(0)]),
        );
        attrs.insert("keep_dims".to_string(), AttrValue::Bool(false));
        let g = lower_op(
            "ascend.reduce_sum",
            &attrs,
            &[ty(DType::F16, &["3"])],
            &[ty(DType::F16, &[])],
            None,
            "k",
        )
        .unwrap();
        let x = Tensor::new(DType::F16, vec![3], vec![2048.0, 1.0, 1.0]).unwrap();
        let out = run(&g, &[x]).unwrap();
        assert_eq!(out[0].data, vec![2050.0]);
    }

    #[test]
    fn input_shapes_are_checked() {
        let g = lower_op(
            "ascend.abs",
            &BTreeMap::new(),
            &[ty(DType::F32, &["4"])],
            &[ty(DType::F32, &["4"])],
            None,
            "k",
        )
        .unwrap();
        let x = Tensor::new(DType::F32, vec![5], vec![0.0; 5]).unwrap();
        assert!(run(&g, &[x]).is_err());
        assert!(run(&g, &[]).is_err());
    }
}
