//! `--fuse`: fuses the kernel calls of every graph function into larger kernels, with a
//! reason for every decision.
//!
//! What it does, per graph function (a `func.func` without `ascir.axes`):
//! 1. Reads every `func.call` of an AscGraph (the AscBackend analogue) and every other
//!    op into the planner's model (`crate::fuse::fusion::FuncModel`), with the
//!    AscGraphs' node locations.
//! 2. Runs GE's greedy solver (`crate::fuse::fusion::plan`): candidate pairs share a
//!    buffer; they are scored by GM bytes saved (compared under the symbol hints the
//!    function records in `ascend.symbol_hints`, else statically), then proximity, then
//!    order; each pair must pass the rules (no cycle, `max-fusion-size`, `max-inputs`,
//!    axis mapping, TilingGroup merge, `max-proximity` for siblings).
//! 3. Appends each fused AscGraph, named after the ops it holds and located at the fused
//!    location of its members, and replaces its member calls by one `func.call` (ops are
//!    reordered topologically where a fused call must move).
//! 4. Lifting (option `lifting`): a kernel with fewer than 2 compute ops (view ops such
//!    as reshape do not count) goes back to its original `ascend` ops, as GE rolls back
//!    AscBackends with fewer than `kMinComputeNodes` = 2 compute nodes; each lifted op
//!    gets the remark `AF-NF012 lifted` saying why (the code of its GM edges).
//! 5. Emits a remark `AF-NF0xx <slug>` at both kernels of every refused pair that did
//!    not end up in one kernel anyway; records size equalities decided on hints as
//!    `expect` guards in `ascend.guards`; adds statistics; writes the JSON report
//!    (`report=<file>`).
//!
//! Preconditions: the module verifies; kernels are in hint form (`--lower-to-ascir`).
//! Postconditions: the module verifies; graph semantics are unchanged (the differential
//! test runs random graphs through the interpreters before and after); AscGraphs no
//! longer called are removed.

pub mod fusion;
mod reshape_axes;

use crate::options::PassOptions;
use crate::registry::{OptionInfo, PassInfo};
use crate::statistics;
use autofuse_ascir::graph::AscGraph;
use autofuse_ir::attr::{quote, AttrValue};
use autofuse_ir::graph::{Graph, TensorType, ValueDef, ValueId};
use autofuse_mlir::builder::{Emitter, Typed};
use autofuse_mlir::extract::ExtractedGraph;
use autofuse_mlir::{build, diagnostics, extract, raw};
use autofuse_symbolic::{DerivedSymbols, Expr, Guard, Relation, ShapeEnv, SymbolInfo};
use fusion::{Decision, FuncModel, Kernel, Limits, Plan, Unit};
use melior::ir::{
    attribute::FlatSymbolRefAttribute,
    block::BlockLike,
    operation::{OperationBuilder, OperationLike, OperationMutLike, OperationRefMut},
    Attribute, BlockRef, Identifier, Location, Operation, OperationRef, RegionLike, Value,
    ValueLike,
};
use melior::Context;
use serde_json::{json, Value as Json};
use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap};

pub const PASS: PassInfo = PassInfo {
    argument: "fuse",
    summary: "Fuse kernel calls into larger AscGraphs (GE's CanFuse), with a reason code for every refusal",
    description: "Greedy, score-sorted fusion of AscGraph calls per graph function: vertical (the GM round trip \
                  between producer and consumer disappears), horizontal (siblings share the load of a common \
                  input), elementwise with broadcasts, reductions with their prologue and their broadcast-back \
                  epilogue, multi-output kernels, transposes and concats with pointwise producers and \
                  consumers. Pairs must share a buffer, create no cycle, stay within \
                  max-fusion-size ops and max-inputs inputs, follow GE's transpose and concat rules, map \
                  their loop axes by symbolic size, merge their TilingGroups and give a kernel the schedule \
                  can express on the target chip. Refused pairs get remarks \
                  AF-NF001..AF-NF011 (docs/fusion.md). \
                  Kernels left with one op are lifted back to the ascend op (remark AF-NF012).",
    options: &[
        OptionInfo {
            name: "max-fusion-size",
            kind: "uint",
            default: "64",
            help: "most original ops in one kernel",
        },
        OptionInfo {
            name: "max-inputs",
            kind: "uint",
            default: "8",
            help: "most GM inputs of one kernel",
        },
        OptionInfo {
            name: "max-rounds",
            kind: "uint",
            default: "10",
            help: "rounds of the greedy solver",
        },
        OptionInfo {
            name: "max-proximity",
            kind: "uint",
            default: "64",
            help: "most ops between two siblings fused horizontally (0 = no limit)",
        },
        OptionInfo {
            name: "disable",
            kind: "list",
            default: "",
            help: "op kinds whose kernels fuse with nothing (GE's --autofuse_disable_pass): any of \
                   reduce, concat, transpose, gather, slice, pad, e.g. disable='reduce,concat'",
        },
        OptionInfo {
            name: "target",
            kind: "string",
            default: "ascend910b",
            help: "chip profile whose schedule every fused kernel must fit (as --schedule's \
                   target): ascend910b, ascend910_93 or ascend950",
        },
        OptionInfo {
            name: "lifting",
            kind: "bool",
            default: "true",
            help: "turn kernels holding one op back into that ascend op",
        },
        OptionInfo {
            name: "remarks",
            kind: "bool",
            default: "true",
            help: "emit a remark for every refused pair and every lifted kernel",
        },
        OptionInfo {
            name: "report",
            kind: "string",
            default: "",
            help: "write the decisions and GM traffic as JSON to this file",
        },
    ],
    run,
};

struct Settings {
    limits: Limits,
    lifting: bool,
    remarks: bool,
    report: String,
}

fn settings(options: &PassOptions) -> Result<Settings, String> {
    Ok(Settings {
        limits: Limits {
            max_fusion_size: options.get_usize("max-fusion-size", 64)?,
            max_inputs: options.get_usize("max-inputs", 8)?,
            max_rounds: options.get_usize("max-rounds", 10)?,
            max_proximity: options.get_usize("max-proximity", 64)?,
            disabled: disabled_kinds(options)?,
            target: autofuse_ascir::chip::ChipProfile::lookup(
                options
                    .get("target")
                    .unwrap_or(autofuse_ascir::chip::DEFAULT_TARGET),
            )?
            .name,
        },
        lifting: options.get_bool("lifting", true)?,
        remarks: options.get_bool("remarks", true)?,
        report: options.get("report").unwrap_or("").to_string(),
    })
}

/// The `disable` option as a bit set over [`fusion::FUSION_KINDS`].
fn disabled_kinds(options: &PassOptions) -> Result<u8, String> {
    let mut bits = 0u8;
    for name in options
        .get("disable")
        .unwrap_or("")
        .split(',')
        .map(str::trim)
        .filter(|n| !n.is_empty())
    {
        let index = fusion::FUSION_KINDS
            .iter()
            .position(|k| *k == name)
            .ok_or_else(|| {
                format!(
                    "option 'disable' names '{name}'; it takes {}",
                    fusion::FUSION_KINDS.join(", ")
                )
            })?;
        bits |= 1 << index;
    }
    Ok(bits)
}

/// Counters summed over the module.
#[derive(Default)]
struct Totals {
    kernels_before: u64,
    kernels_after: u64,
    fusions: u64,
    refused: u64,
    lifted: u64,
    guards: u64,
    gm_before: Option<u64>,
    gm_after: Option<u64>,
    gm_minimum: Option<u64>,
    /// False once a function's traffic could not be evaluated.
    gm_known: bool,
}

fn run(module: OperationRef, options: &PassOptions) -> Result<(), ()> {
    let settings = diagnostics::or_error(module.location(), settings(options))?;
    let body = extract::module_body(module).ok_or(())?;
    let mut fusion = ModuleFusion {
        kernels: HashMap::new(),
        calls: HashMap::new(),
        fresh: 0,
        totals: Totals {
            gm_known: true,
            ..Totals::default()
        },
        reports: Vec::new(),
        retired: BTreeSet::new(),
        // Fused kernels repeat the same attribute and type texts: parse each once per run.
        sink: KernelSink {
            body,
            cache: build::SpecCache::new(&module),
            names: BTreeSet::new(),
        },
        ok: true,
        settings,
    };
    fusion.read_kernels(body)?;
    fusion.count_calls(body);
    for func in extract::functions(body) {
        fusion.fuse_function(func);
    }
    remove_retired(body, &fusion.retired);
    record_statistics(&fusion.totals);
    if !fusion.settings.report.is_empty() {
        fusion.write_report(module.location());
    }
    if fusion.ok {
        Ok(())
    } else {
        Err(())
    }
}

/// One run of the pass over a module.
struct ModuleFusion<'c, 'a> {
    settings: Settings,
    /// The module's AscGraphs by name (a kernel called once moves into its caller's
    /// model).
    kernels: HashMap<String, AscGraph>,
    /// Calls of each AscGraph from graph functions (the only callers of kernels) not
    /// yet modelled.
    calls: HashMap<String, usize>,
    /// The next kernel number not taken.
    fresh: usize,
    totals: Totals,
    reports: Vec<Json>,
    /// AscGraphs whose calls were removed.
    retired: BTreeSet<String>,
    sink: KernelSink<'c, 'a>,
    /// False once an error was reported.
    ok: bool,
}

impl<'c, 'a> ModuleFusion<'c, 'a> {
    /// Reads the module's function names and AscGraphs; numbers fresh kernels past
    /// every kernel number in use.
    fn read_kernels(&mut self, body: BlockRef<'c, 'a>) -> Result<(), ()> {
        for func in extract::functions(body) {
            let name = extract::function_name(&func);
            if let Some(n) = fusion::kernel_number(&name) {
                self.fresh = self.fresh.max(n + 1);
            }
            self.sink.names.insert(name.clone());
            if func.has_attribute("ascir.axes") {
                let graph = diagnostics::or_error(func.location(), read_ascgraph(&func))?;
                self.kernels.insert(name, graph);
            }
        }
        Ok(())
    }

    /// Counts the calls of each AscGraph from graph functions.
    fn count_calls(&mut self, body: BlockRef<'c, 'a>) {
        for func in extract::functions(body) {
            if !func.has_attribute("ascir.axes") {
                for callee in extract::callees(&func) {
                    *self.calls.entry(callee).or_insert(0) += 1;
                }
            }
        }
    }

    /// Plans, rewrites and accounts for one function of the module (kernels and
    /// functions without kernel calls are left alone).
    fn fuse_function(&mut self, func: OperationRef<'c, 'a>) {
        if func.has_attribute("ascir.axes") {
            return;
        }
        let Some(extracted) = extract::extract_function(func) else {
            return;
        };
        // A kernel called once moves into the model; one called again is copied.
        let (calls, kernels) = (&mut self.calls, &mut self.kernels);
        let model = model_with(&extracted.graph, |callee| {
            let left = calls.get_mut(callee)?;
            *left = left.saturating_sub(1);
            if *left == 0 {
                kernels.remove(callee)
            } else {
                kernels.get(callee).cloned()
            }
        });
        if !model.units.iter().any(|u| u.kernel.is_some()) {
            return;
        }
        let mut env = shape_env(&func, &model, &extracted.graph.derived);
        let guards_before = env.guards().len();
        let mut plan = fusion::plan(&model, &self.settings.limits, &mut env, &mut self.fresh);
        let split = if self.settings.lifting {
            unfuse_for_lifting(&mut plan, &model)
        } else {
            Vec::new()
        };
        let split_from: HashMap<usize, String> = split
            .iter()
            .flat_map(|(name, units)| units.iter().map(move |&u| (u, name.clone())))
            .collect();
        let unfused: Vec<String> = split.into_iter().map(|(name, _)| name).collect();
        let traffic = fusion::traffic(&model, &plan);
        if self.settings.remarks {
            emit_remarks(&plan, &extracted);
        }
        let outcome = match rewrite(
            func,
            &mut self.sink,
            &extracted,
            &model,
            &plan,
            &self.settings,
            &split_from,
        ) {
            Ok(outcome) => Outcome { unfused, ..outcome },
            Err(message) => {
                diagnostics::error(func.location(), format!("internal error: {message}"));
                self.ok = false;
                return;
            }
        };
        self.retired.extend(outcome.retired.iter().cloned());
        let new_guards: Vec<Guard> = env.guards()[guards_before..].to_vec();
        if !new_guards.is_empty() {
            append_guards(&func, &new_guards);
        }
        self.totals
            .add_function(&model, &plan, &outcome, &new_guards, &traffic, &env);
        // The report lists every decision: built only when asked for.
        if !self.settings.report.is_empty() {
            self.reports.push(function_report(
                &extracted.graph.name,
                &model,
                &plan,
                &traffic,
                &env,
                &outcome,
                &new_guards,
            ));
        }
    }

    /// Writes the JSON report of every function to the `report` file.
    fn write_report(&mut self, location: Location) {
        let settings = &self.settings;
        let report = json!({
            "pass": "fuse",
            "limits": {
                "max_fusion_size": settings.limits.max_fusion_size,
                "max_inputs": settings.limits.max_inputs,
                "max_rounds": settings.limits.max_rounds,
                "max_proximity": settings.limits.max_proximity,
                "target": settings.limits.target,
                "disable": fusion::FUSION_KINDS
                    .iter()
                    .filter(|k| settings.limits.disables(k))
                    .collect::<Vec<_>>(),
                "lifting": settings.lifting,
            },
            "functions": std::mem::take(&mut self.reports),
        });
        let text = serde_json::to_string_pretty(&report).unwrap_or_default();
        if let Err(e) = std::fs::write(&settings.report, text + "\n") {
            diagnostics::error(
                location,
                format!("cannot write the fusion report '{}': {e}", settings.report),
            );
            self.ok = false;
        }
    }
}

/// Splits again the fused kernels GE would lift (fewer than 2 compute nodes: view ops
/// and one compute op) when each member can be lifted: they go back to their original
/// ops. The names of the kernels split, each with its member units.
fn unfuse_for_lifting(plan: &mut Plan, model: &FuncModel) -> Vec<(String, Vec<usize>)> {
    let mut unfused = Vec::new();
    for index in (0..plan.kernels.len()).rev() {
        let kernel = &plan.kernels[index];
        let liftable = kernel.members.iter().all(|&u| {
            model.units[u]
                .kernel
                .as_ref()
                .is_some_and(|k| fusion::lift(&k.graph).is_ok())
        });
        if kernel.members.len() > 1
            && fusion::compute_op_count(&kernel.kernel.graph) < fusion::MIN_COMPUTE_OPS
            && liftable
        {
            unfused.push((kernel.kernel.graph.name.clone(), kernel.members.clone()));
            plan.unfuse(index, model);
        }
    }
    unfused
}

impl Totals {
    /// Adds the counts of one function.
    fn add_function(
        &mut self,
        model: &FuncModel,
        plan: &Plan,
        outcome: &Outcome,
        new_guards: &[Guard],
        traffic: &fusion::Traffic,
        env: &ShapeEnv,
    ) {
        let kernel_units = model.units.iter().filter(|u| u.kernel.is_some()).count() as u64;
        self.kernels_before += kernel_units;
        self.kernels_after += (plan.kernels.len() - outcome.lifted.len()) as u64;
        self.fusions += plan.decisions.iter().filter(|d| d.outcome.is_ok()).count() as u64;
        self.refused += final_refusals(plan).len() as u64;
        self.lifted += outcome.lifted.len() as u64;
        self.guards += new_guards.len() as u64;
        let eval = |e: &Expr| env.hint_eval(e).and_then(|v| u64::try_from(v).ok());
        match (
            eval(&traffic.before),
            eval(&traffic.after),
            eval(&traffic.minimum),
        ) {
            (Some(b), Some(a), Some(m)) => {
                self.gm_before = Some(self.gm_before.unwrap_or(0) + b);
                self.gm_after = Some(self.gm_after.unwrap_or(0) + a);
                self.gm_minimum = Some(self.gm_minimum.unwrap_or(0) + m);
            }
            _ => self.gm_known = false,
        }
    }
}

/// Reads an AscGraph and gives every node the location of its MLIR op.
pub(crate) fn read_ascgraph(func: &OperationRef) -> Result<AscGraph, String> {
    let attrs = extract::read_attributes(func);
    let extracted = extract::extract_function(*func).ok_or("an AscGraph without a body")?;
    let mut graph = AscGraph::from_graph(&extracted.graph, &attrs)
        .map_err(|e| format!("AscGraph @{}: {e}", extracted.graph.name))?;
    for (node, op) in graph.nodes.iter_mut().zip(&extracted.ops) {
        node.loc = Some(extract::location_text(op.location()));
    }
    Ok(graph)
}

fn callee(node: &autofuse_ir::graph::Node) -> Option<&str> {
    (node.op == "func.call")
        .then(|| node.attr("callee").and_then(AttrValue::as_symbol))
        .flatten()
}

/// The planner's view of a graph function: its ops in order, the AscGraph of every
/// kernel call (from `kernels`, by callee), its results and value types.
pub fn model_of(graph: &Graph, kernels: &HashMap<String, AscGraph>) -> FuncModel {
    model_with(graph, |callee| kernels.get(callee).cloned())
}

/// [`model_of`] with the AscGraph of each kernel call given by `kernel_of(callee)`.
fn model_with(graph: &Graph, mut kernel_of: impl FnMut(&str) -> Option<AscGraph>) -> FuncModel {
    let units = graph
        .nodes
        .iter()
        .map(|node| {
            let kernel = callee(node).and_then(&mut kernel_of);
            let label = match (callee(node), &kernel) {
                (Some(c), Some(_)) => c.to_string(),
                (Some(c), None) => format!("func.call @{c}"),
                _ => node.op.clone(),
            };
            Unit {
                label,
                inputs: node.operands.clone(),
                outputs: node.results.clone(),
                kernel: kernel.map(|graph| Kernel {
                    graph,
                    inputs: node.operands.clone(),
                    outputs: node.results.clone(),
                }),
            }
        })
        .collect();
    FuncModel {
        units,
        returns: graph.outputs.clone(),
        types: graph.values.iter().map(|v| v.ty.clone()).collect(),
        sinkable: (0..graph.values.len())
            .map(|v| crate::sink_constants::sinkable_constant(graph, v))
            .collect(),
    }
}

/// Symbols of the function's types, its hints, its derived symbols' definitions and
/// its guards as facts: the shape environment the solver decides in.
pub fn shape_env(func: &OperationRef, model: &FuncModel, derived: &DerivedSymbols) -> ShapeEnv {
    let mut env = ShapeEnv::new();
    for ty in model.types.iter().flatten() {
        for dim in &ty.dims {
            for s in dim.expr().map(Expr::symbols).unwrap_or_default() {
                if env.info(&s).is_none() {
                    env.declare(SymbolInfo::new(&s));
                }
            }
        }
    }
    let attrs = extract::read_attributes(func);
    if let Some(hints) = attrs.get("ascend.symbol_hints") {
        for (name, value) in parse_hints(hints) {
            env.set_hint(&name, value);
        }
    }
    // After the hints: a derived symbol's hint is its definition's value under them.
    for (name, definition) in derived.iter() {
        env.define(name, definition);
    }
    // Guards the function already relies on hold for every run of its kernels.
    for text in attrs
        .get("ascend.guards")
        .and_then(AttrValue::as_strs)
        .unwrap_or_default()
    {
        if let Ok(guard) = Guard::parse(text) {
            let _ = env.assert_rel(&guard.lhs, guard.rel, &guard.rhs);
        }
    }
    env
}

/// `{s0 = 4096 : i64, s1 = 8 : i64}` as printed by MLIR.
fn parse_hints(value: &AttrValue) -> Vec<(String, i64)> {
    let text = match value {
        AttrValue::Other(t) => t.clone(),
        other => format!("{other:?}"),
    };
    text.trim()
        .trim_start_matches('{')
        .trim_end_matches('}')
        .split(',')
        .filter_map(|entry| {
            let (name, rest) = entry.split_once('=')?;
            let number = rest.split(':').next()?.trim().parse().ok()?;
            Some((name.trim().to_string(), number))
        })
        .collect()
}

/// The refusals worth a remark: per pair of final kernels that stayed apart, the last
/// refused attempt between them (the one with the largest sides). Attempts whose two
/// sides ended in one kernel through other merges are only in the report.
fn final_refusals(plan: &Plan) -> Vec<&Decision> {
    // Kernel of every unit, indexed once: there may be a refusal per unit.
    let mut kernel_index: HashMap<usize, usize> = HashMap::new();
    for (k, kernel) in plan.kernels.iter().enumerate() {
        for &unit in &kernel.members {
            kernel_index.entry(unit).or_insert(k);
        }
    }
    let kernel_of = |unit: usize| kernel_index.get(&unit).copied();
    let mut last: BTreeMap<(Option<usize>, Option<usize>), usize> = BTreeMap::new();
    for (index, d) in plan.decisions.iter().enumerate() {
        if d.outcome.is_ok() {
            continue;
        }
        let (Some(&a), Some(&b)) = (d.first.first(), d.second.first()) else {
            continue;
        };
        let (ka, kb) = (kernel_of(a), kernel_of(b));
        if ka.is_some() && ka == kb {
            continue;
        }
        last.insert((ka.min(kb), ka.max(kb)), index);
    }
    let mut chosen: Vec<usize> = last.into_values().collect();
    chosen.sort_unstable();
    chosen.into_iter().map(|i| &plan.decisions[i]).collect()
}

fn emit_remarks(plan: &Plan, extracted: &ExtractedGraph) {
    for decision in final_refusals(plan) {
        let Err(refusal) = &decision.outcome else {
            continue;
        };
        let message = format!(
            "{} {}: {} and {} not fused: {}",
            refusal.rule.code(),
            refusal.rule.slug(),
            decision.first_name,
            decision.second_name,
            refusal.detail
        );
        let at = |members: &[usize]| {
            members
                .iter()
                .min()
                .and_then(|&u| extracted.ops.get(u))
                .map(|op| op.location())
        };
        let (Some(first), Some(second)) = (at(&decision.first), at(&decision.second)) else {
            continue;
        };
        diagnostics::remark(first, message.clone());
        if first.to_string() != second.to_string() {
            diagnostics::remark(second, message);
        }
    }
}

/// What the rewrite of one function did.
#[derive(Default)]
struct Outcome {
    /// Names of the kernels in the result (fused ones renamed if needed), by plan index.
    names: Vec<String>,
    /// Plan indices of kernels lifted back to graph ops, with the op and why.
    lifted: BTreeMap<usize, LiftedKernel>,
    /// Plan indices of kernels that could not be lifted, with why.
    kept: BTreeMap<usize, String>,
    /// AscGraphs whose calls this pass removed.
    retired: Vec<String>,
    /// Fused kernels split again to be lifted (too few compute ops).
    unfused: Vec<String>,
}

/// A kernel lifting turned back into its op.
struct LiftedKernel {
    /// The `ascend` op it became.
    op: String,
    /// Why (the detail of its `AF-NF012` remark).
    detail: String,
}

/// Why kernel `graph` is lifted back to its op (`split_from`: the fused kernel it was a
/// member of, split again because that one held fewer than 2 compute ops).
fn lift_detail(graph: &AscGraph, split_from: Option<&String>) -> String {
    let what = if fusion::compute_op_count(graph) == 0 {
        "no compute op: a view moves no data as a graph op, while a kernel of its own \
         would copy it through UB"
            .to_string()
    } else {
        format!(
            "one compute op, fewer than the {} of a kernel (GE's kMinComputeNodes): \
             as its op it runs as a library kernel",
            fusion::MIN_COMPUTE_OPS
        )
    };
    match split_from {
        Some(fused) => format!(
            "{what}; split again from {fused}, which had fewer than {} compute ops",
            fusion::MIN_COMPUTE_OPS
        ),
        None => what,
    }
}

/// An SSA value of the extracted function.
fn value_of<'c, 'a>(
    extracted: &ExtractedGraph<'c, 'a>,
    block: BlockRef<'c, 'a>,
    v: ValueId,
) -> Option<Value<'c, 'a>> {
    match extracted.graph.values.get(v)?.def {
        ValueDef::Argument(i) => block.argument(i).ok().map(Into::into),
        ValueDef::Result { node, index } => {
            extracted.ops.get(node)?.result(index).ok().map(Into::into)
        }
    }
}

/// Where fused kernels go: the module body, with the texts already parsed for it and
/// the names taken.
struct KernelSink<'c, 'a> {
    body: BlockRef<'c, 'a>,
    cache: build::SpecCache<'c>,
    /// Every function name of the module, fused kernels' included.
    names: BTreeSet<String>,
}

/// Rewrites one function to its plan: appends the fused AscGraphs, replaces their
/// members' calls, and lifts the kernels holding one op.
fn rewrite<'c, 'a>(
    func: OperationRef<'c, 'a>,
    sink: &mut KernelSink<'c, 'a>,
    extracted: &ExtractedGraph<'c, 'a>,
    model: &FuncModel,
    plan: &Plan,
    settings: &Settings,
    split_from: &HashMap<usize, String>,
) -> Result<Outcome, String> {
    let mut outcome = Outcome::default();
    let block = func
        .region(0)
        .ok()
        .and_then(|r| r.first_block())
        .ok_or("function without a body")?;
    let terminator = extracted.terminator.ok_or("function without a return")?;
    // SAFETY: the context outlives every op and attribute built here.
    // `to_ref` borrows the ContextRef's own storage: keep it alive while used.
    let context_ref = func.context();
    let context = unsafe { context_ref.to_ref() };
    let site = Rewrite {
        context,
        block,
        terminator,
        extracted,
        model,
        plan,
        split_from,
        remarks: settings.remarks,
    };
    let fused: Vec<usize> = (0..plan.kernels.len())
        .filter(|&k| plan.kernels[k].members.len() > 1)
        .collect();
    let locations = site.append_fused_kernels(sink, &mut outcome)?;
    if !fused.is_empty() {
        let items = site.program_items(&fused);
        let order = site.item_order(&items)?;
        let calls = site.place_in_order(&items, order, &locations, &outcome.names)?;
        site.replace_member_calls(&fused, &calls)?;
    }
    if settings.lifting {
        site.lift_kernels(&mut outcome)?;
    }
    Ok(outcome)
}

/// A graph function being rewritten to its plan.
struct Rewrite<'x, 'c, 'a> {
    context: &'c Context,
    block: BlockRef<'c, 'a>,
    /// The function's return: ops are moved and built before it.
    terminator: OperationRef<'c, 'a>,
    extracted: &'x ExtractedGraph<'c, 'a>,
    model: &'x FuncModel,
    plan: &'x Plan,
    /// Units split from a fused kernel for lifting: that kernel's name.
    split_from: &'x HashMap<usize, String>,
    /// Whether a lifted kernel gets its `AF-NF012` remark.
    remarks: bool,
}

/// What the ops of a function are reordered as: every unit alone, and every fused
/// kernel standing for its members.
struct Items {
    /// The item of every unit: the fused kernel's, if any.
    item_of_unit: Vec<usize>,
    /// The units of every item.
    units: Vec<Vec<usize>>,
    /// The plan index of the kernel of every fused item.
    kernel_of_item: HashMap<usize, usize>,
}

impl<'c: 'a, 'a> Rewrite<'_, 'c, 'a> {
    /// Names every kernel of the plan (a fused one after its ops, made unique among the
    /// module's names) and appends each fused AscGraph to the module, located at the fused
    /// location of its members. The locations of the fused kernels, by plan index.
    fn append_fused_kernels(
        &self,
        sink: &mut KernelSink<'c, 'a>,
        outcome: &mut Outcome,
    ) -> Result<HashMap<usize, Location<'c>>, String> {
        let mut locations: HashMap<usize, Location> = HashMap::new();
        for (index, kernel) in self.plan.kernels.iter().enumerate() {
            let mut name = kernel.kernel.graph.name.clone();
            if kernel.members.len() > 1 {
                let base = name.clone();
                let mut suffix = 1;
                while sink.names.contains(&name) {
                    name = format!("{base}_v{suffix}");
                    suffix += 1;
                }
                sink.names.insert(name.clone());
                for &u in &kernel.members {
                    outcome.retired.push(self.model.units[u].label.clone());
                }
                let member_locs: Vec<Location> = kernel
                    .members
                    .iter()
                    .filter_map(|&u| self.extracted.ops.get(u).map(|op| op.location()))
                    .collect();
                let metadata = Attribute::parse(self.context, &quote(&name))
                    .ok_or("cannot build the location metadata")?;
                let location = Location::fused(self.context, &member_locs, metadata);
                let mut spec = kernel.kernel.graph.to_func_spec();
                spec.name = name.clone();
                // The kernel's arguments and return have no source text of their own:
                // like the kernel, they are located at its members.
                build::append_func(&mut sink.cache, sink.body, &spec, location)
                    .map_err(|e| format!("the fused AscGraph {e}"))?;
                locations.insert(index, location);
            }
            outcome.names.push(name);
        }
        Ok(locations)
    }

    /// The items of the function once the `fused` kernels (plan indices) replace their
    /// members.
    fn program_items(&self, fused: &[usize]) -> Items {
        let units = self.model.units.len();
        let mut items = Items {
            item_of_unit: (0..units).collect(),
            units: (0..units).map(|u| vec![u]).collect(),
            kernel_of_item: HashMap::new(),
        };
        for &k in fused {
            let id = items.units.len();
            items.units.push(self.plan.kernels[k].members.clone());
            items.kernel_of_item.insert(id, k);
            for &u in &self.plan.kernels[k].members {
                items.item_of_unit[u] = id;
            }
        }
        items
    }

    /// Program order: a topological order of the live items, taking the item with the
    /// first unit whenever several are ready, so that fused kernels take the place the
    /// data flow allows and everything else keeps its order.
    fn item_order(&self, items: &Items) -> Result<Vec<usize>, String> {
        let mut producer: HashMap<ValueId, usize> = HashMap::new();
        for (u, unit) in self.model.units.iter().enumerate() {
            for &v in &unit.outputs {
                producer.insert(v, items.item_of_unit[u]);
            }
        }
        let live: BTreeSet<usize> = items.item_of_unit.iter().copied().collect();
        let mut indegree: HashMap<usize, usize> = live.iter().map(|&i| (i, 0)).collect();
        let mut successors: HashMap<usize, BTreeSet<usize>> = HashMap::new();
        for &item in &live {
            let mut preds = BTreeSet::new();
            for &u in &items.units[item] {
                for v in &self.model.units[u].inputs {
                    if let Some(&p) = producer.get(v) {
                        if p != item {
                            preds.insert(p);
                        }
                    }
                }
            }
            for p in preds {
                if successors.entry(p).or_default().insert(item) {
                    *indegree.entry(item).or_default() += 1;
                }
            }
        }
        let first = |item: usize| items.units[item].iter().copied().min().unwrap_or(0);
        let mut ready: BinaryHeap<Reverse<(usize, usize)>> = indegree
            .iter()
            .filter(|(_, &d)| d == 0)
            .map(|(&i, _)| Reverse((first(i), i)))
            .collect();
        let mut order = Vec::new();
        while let Some(Reverse((_, item))) = ready.pop() {
            order.push(item);
            for &s in successors.get(&item).into_iter().flatten() {
                let d = indegree.entry(s).or_default();
                *d -= 1;
                if *d == 0 {
                    ready.push(Reverse((first(s), s)));
                }
            }
        }
        if order.len() != live.len() {
            return Err("the fused kernels form a cycle".into());
        }
        Ok(order)
    }

    /// Moves every op into `order` before the return and builds the fused calls there;
    /// member calls stay behind until their uses are redirected. The fused calls, by
    /// plan index.
    fn place_in_order(
        &self,
        items: &Items,
        order: Vec<usize>,
        locations: &HashMap<usize, Location<'c>>,
        names: &[String],
    ) -> Result<HashMap<usize, OperationRef<'c, 'a>>, String> {
        let mut calls: HashMap<usize, OperationRef> = HashMap::new();
        for item in order {
            match items.kernel_of_item.get(&item) {
                None => {
                    let op = self.extracted.ops[items.units[item][0]];
                    // SAFETY: `op` is a live op of this block; moving it keeps it owned
                    // by the block.
                    let mut op = unsafe { OperationRefMut::from_raw(op.to_raw()) };
                    op.move_before(self.terminator);
                }
                Some(&k) => {
                    let call = self.fused_call(k, locations, &names[k])?;
                    calls.insert(k, self.block.insert_operation_before(self.terminator, call));
                }
            }
        }
        Ok(calls)
    }

    /// The call of fused kernel `k` (plan index), named `name`.
    fn fused_call(
        &self,
        k: usize,
        locations: &HashMap<usize, Location<'c>>,
        name: &str,
    ) -> Result<Operation<'c>, String> {
        let (extracted, block, context) = (self.extracted, self.block, self.context);
        let kernel = &self.plan.kernels[k].kernel;
        let operands: Vec<Value> = kernel
            .inputs
            .iter()
            .map(|&v| value_of(extracted, block, v))
            .collect::<Option<_>>()
            .ok_or("an input of a fused kernel is not a value")?;
        let results: Vec<_> = kernel
            .outputs
            .iter()
            .map(|&v| value_of(extracted, block, v).map(|x| x.r#type()))
            .collect::<Option<_>>()
            .ok_or("an output of a fused kernel is not a value")?;
        let location = locations
            .get(&k)
            .copied()
            .unwrap_or_else(|| Location::unknown(context));
        OperationBuilder::new("func.call", location)
            .add_operands(&operands)
            .add_results(&results)
            .add_attributes(&[(
                Identifier::new(context, "callee"),
                FlatSymbolRefAttribute::new(context, name).into(),
            )])
            .build()
            .map_err(|e| format!("cannot build the call: {e}"))
    }

    /// Redirects the uses of every kept result of the `fused` kernels to their calls,
    /// then erases the member calls, consumers before producers.
    fn replace_member_calls(
        &self,
        fused: &[usize],
        calls: &HashMap<usize, OperationRef<'c, 'a>>,
    ) -> Result<(), String> {
        let mut erased = Vec::new();
        for &k in fused {
            let kernel = &self.plan.kernels[k].kernel;
            let call = calls.get(&k).ok_or("a fused call was not built")?;
            for (index, &v) in kernel.outputs.iter().enumerate() {
                let old =
                    value_of(self.extracted, self.block, v).ok_or("a result is not a value")?;
                let new = call.result(index).map_err(|e| e.to_string())?;
                raw::replace_all_uses(old, new.into());
            }
            erased.extend(self.plan.kernels[k].members.iter().copied());
        }
        erased.sort_unstable_by(|a, b| b.cmp(a));
        for u in erased {
            raw::erase_op(self.extracted.ops[u]);
        }
        Ok(())
    }

    /// Lifting: kernels holding one op (fewer than 2 compute ops) become that op again.
    fn lift_kernels(&self, outcome: &mut Outcome) -> Result<(), String> {
        for (index, kernel) in self.plan.kernels.iter().enumerate() {
            if kernel.members.len() != 1
                || fusion::compute_op_count(&kernel.kernel.graph) >= fusion::MIN_COMPUTE_OPS
            {
                continue;
            }
            self.lift_kernel(index, kernel, outcome)?;
        }
        Ok(())
    }

    /// Replaces the call of one-op kernel `index` by its original op, or records in
    /// `outcome.kept` why it stays a kernel.
    fn lift_kernel(
        &self,
        index: usize,
        kernel: &fusion::FinalKernel,
        outcome: &mut Outcome,
    ) -> Result<(), String> {
        let unit = kernel.members[0];
        let lifted = match fusion::lift(&kernel.kernel.graph) {
            Ok(lifted) => lifted,
            Err(why) => {
                outcome.kept.insert(index, why);
                return Ok(());
            }
        };
        let op = self.extracted.ops[unit];
        // The call's own operands: producers may have been fused and replaced.
        let operands: Vec<Typed> = op
            .operands()
            .zip(&kernel.kernel.inputs)
            .map(|(value, &v)| {
                Some(Typed {
                    value,
                    ty: self.model.types.get(v)?.clone()?,
                })
            })
            .collect::<Option<_>>()
            .ok_or("an operand of a lifted op has no tensor type")?;
        let [result] = kernel.kernel.outputs.as_slice() else {
            outcome.kept.insert(index, "more than one result".into());
            return Ok(());
        };
        let result_ty: TensorType = self
            .model
            .types
            .get(*result)
            .cloned()
            .flatten()
            .ok_or("the result of a lifted op has no tensor type")?;
        let mut emitter = Emitter::before(op).ok_or("a kernel call outside a block")?;
        let refs: Vec<&Typed> = operands.iter().collect();
        let attrs: Vec<(&str, &str)> = lifted
            .attrs
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        let value = emitter
            .build(&lifted.op, &refs, &attrs, &result_ty)
            .map_err(|e| e.0)?;
        let old = op.result(0).map_err(|e| e.to_string())?;
        let detail = lift_detail(&kernel.kernel.graph, self.split_from.get(&unit));
        if self.remarks {
            let rule = fusion::Rule::Lifted;
            diagnostics::remark(
                op.location(),
                format!(
                    "{} {}: {} lifted back to {}: {detail}",
                    rule.code(),
                    rule.slug(),
                    self.model.units[unit].label,
                    lifted.op
                ),
            );
        }
        raw::replace_all_uses(old.into(), value);
        raw::erase_op(op);
        outcome.retired.push(self.model.units[unit].label.clone());
        outcome.lifted.insert(
            index,
            LiftedKernel {
                op: lifted.op,
                detail,
            },
        );
        Ok(())
    }
}

/// Appends new guards to the function's `ascend.guards`.
fn append_guards(func: &OperationRef, guards: &[Guard]) {
    let attrs = extract::read_attributes(func);
    let mut list: Vec<String> = attrs
        .get("ascend.guards")
        .and_then(AttrValue::as_strs)
        .unwrap_or_default()
        .into_iter()
        .map(str::to_string)
        .collect();
    for guard in guards {
        let text = guard.to_string();
        if !list.contains(&text) {
            list.push(text);
        }
    }
    let quoted: Vec<String> = list.iter().map(|g| quote(g)).collect();
    raw::set_attribute_text(func, "ascend.guards", &format!("[{}]", quoted.join(", ")));
}

/// Erases AscGraphs this pass stopped calling (and nothing else calls).
fn remove_retired(body: BlockRef, retired: &BTreeSet<String>) {
    if retired.is_empty() {
        return;
    }
    let mut called = BTreeSet::new();
    for func in extract::functions(body) {
        called.extend(extract::callees(&func));
    }
    for func in extract::functions(body) {
        let name = extract::function_name(&func);
        if retired.contains(&name) && !called.contains(&name) {
            raw::erase_op(func);
        }
    }
}

fn record_statistics(totals: &Totals) {
    let pass = PASS.argument;
    statistics::add(
        pass,
        "kernels-before",
        "Number of kernels before fusion",
        totals.kernels_before,
    );
    statistics::add(
        pass,
        "kernels-after",
        "Number of kernels after fusion and lifting",
        totals.kernels_after,
    );
    statistics::add(pass, "fusions", "Number of pairs fused", totals.fusions);
    statistics::add(
        pass,
        "refused",
        "Number of pairs refused (with a remark)",
        totals.refused,
    );
    statistics::add(
        pass,
        "lifted",
        "Number of one-op kernels lifted back to graph ops",
        totals.lifted,
    );
    statistics::add(pass, "guards", "Number of guards recorded", totals.guards);
    if totals.gm_known {
        if let (Some(b), Some(a), Some(m)) = (totals.gm_before, totals.gm_after, totals.gm_minimum)
        {
            statistics::add(
                pass,
                "gm-bytes-before",
                "GM bytes moved by all kernels before fusion (under hints)",
                b,
            );
            statistics::add(
                pass,
                "gm-bytes-after",
                "GM bytes moved by all kernels after fusion (under hints)",
                a,
            );
            statistics::add(
                pass,
                "gm-bytes-minimum",
                "GM bytes if inputs are read once and results written once",
                m,
            );
        }
    }
}

fn bytes_json(e: &Expr, env: &ShapeEnv) -> Json {
    json!({ "symbolic": e.to_string(), "hint": env.hint_eval(e) })
}

fn function_report(
    name: &str,
    model: &FuncModel,
    plan: &Plan,
    traffic: &fusion::Traffic,
    env: &ShapeEnv,
    outcome: &Outcome,
    guards: &[Guard],
) -> Json {
    let label = |members: &[usize]| -> Vec<String> {
        members
            .iter()
            .map(|&u| model.units[u].label.clone())
            .collect()
    };
    let decisions: Vec<Json> = plan
        .decisions
        .iter()
        .map(|d| {
            let mut entry = json!({
                "round": d.round,
                "order": d.order,
                "first": d.first_name,
                "second": d.second_name,
                "first_calls": label(&d.first),
                "second_calls": label(&d.second),
                "kind": if d.vertical { "vertical" } else { "horizontal" },
                "saved_bytes": { "symbolic": d.saved.to_string(), "hint": d.saved_hint },
                "proximity": d.proximity,
            });
            match &d.outcome {
                Ok(fused) => {
                    entry["outcome"] = json!("fused");
                    entry["result"] = json!(fused);
                }
                Err(refusal) => {
                    entry["outcome"] = json!("refused");
                    entry["code"] = json!(refusal.rule.code());
                    entry["reason"] = json!(refusal.rule.slug());
                    entry["detail"] = json!(refusal.detail);
                    entry["kept_apart"] = json!(!plan.together(d.first[0], d.second[0]));
                }
            }
            entry
        })
        .collect();
    let kernels: Vec<Json> = plan
        .kernels
        .iter()
        .enumerate()
        .map(|(i, k)| {
            let mut entry = json!({
                "name": outcome.names.get(i).cloned().unwrap_or_default(),
                "ops": k.kernel.graph.source_ops,
                "calls_replaced": label(&k.members),
                "inputs": k.kernel.inputs.len(),
                "outputs": k.kernel.outputs.len(),
                "gm_bytes": k.kernel.gm_bytes().map(|b| bytes_json(&b, env)),
            });
            if let Some(lifted) = outcome.lifted.get(&i) {
                entry["lifted_to"] = json!(lifted.op);
                entry["lift_code"] = json!(fusion::Rule::Lifted.code());
                entry["lift_detail"] = json!(lifted.detail);
            }
            if let Some(why) = outcome.kept.get(&i) {
                entry["not_lifted"] = json!(why);
            }
            entry
        })
        .collect();
    let hints: BTreeMap<String, i64> = env
        .symbols()
        .filter_map(|s| s.hint.map(|h| (s.name.clone(), h)))
        .collect();
    let kernel_units = model.units.iter().filter(|u| u.kernel.is_some()).count();
    json!({
        "function": name,
        "hints": hints,
        "kernels_before": kernel_units,
        "kernels_after": plan.kernels.len() - outcome.lifted.len(),
        "lifted": outcome.lifted.len(),
        "rounds": plan.rounds,
        "gm_bytes": {
            "before": bytes_json(&traffic.before, env),
            "after": bytes_json(&traffic.after, env),
            "minimum": bytes_json(&traffic.minimum, env),
            "at_minimum": traffic.after == traffic.minimum
                || env.static_check(&traffic.after, Relation::Eq, &traffic.minimum)
                    == autofuse_symbolic::Tri::True,
        },
        "guards": guards.iter().map(|g| g.to_string()).collect::<Vec<_>>(),
        "unfused_for_lifting": outcome.unfused,
        "decisions": decisions,
        "kernels": kernels,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// docs/fusion.md lists every reason code with its slug, so remarks stay explained.
    #[test]
    fn every_reason_code_is_documented() {
        crate::registry::assert_reason_codes_documented(
            fusion::Rule::ALL
                .iter()
                .map(|rule| (rule.code(), rule.slug())),
        );
        let codes: BTreeSet<&str> = fusion::Rule::ALL.iter().map(|r| r.code()).collect();
        assert_eq!(codes.len(), fusion::Rule::ALL.len(), "codes are unique");
    }

    #[test]
    fn hints_are_read_from_the_printed_dictionary() {
        let value = AttrValue::Other("{s0 = 4096 : i64, s12 = 8 : i64}".into());
        assert_eq!(
            parse_hints(&value),
            vec![("s0".to_string(), 4096), ("s12".to_string(), 8)]
        );
    }

    #[test]
    fn options_have_the_documented_defaults() {
        let options = PassOptions::parse(&PASS, "").unwrap();
        let s = settings(&options).unwrap();
        assert_eq!(s.limits, Limits::default());
        assert!(s.lifting && s.remarks && s.report.is_empty());
        let options = PassOptions::parse(&PASS, "max-inputs=3 lifting=false").unwrap();
        let s = settings(&options).unwrap();
        assert_eq!(s.limits.max_inputs, 3);
        assert!(!s.lifting);
        assert!(PassOptions::parse(&PASS, "max-input=3").is_err());
        // Values are checked where the options are read, not when the pass runs.
        let err = PassOptions::parse(&PASS, "max-inputs=abc").unwrap_err();
        assert!(err.contains("option 'max-inputs' expects a non-negative integer, got 'abc'"));
        assert!(PassOptions::parse(&PASS, "lifting=maybe").is_err());
        assert!(PassOptions::parse(&PASS, "target=ascend310").is_err());
        assert!(crate::pipeline::check("builtin.module(fuse{max-rounds=x})").is_err());
        assert!(crate::pipeline::check("builtin.module(fuse{max-rounds=2},cse)").is_ok());
    }
}
