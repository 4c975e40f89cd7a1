//! `--group-launches`: runs kernels that follow each other as one launch holding several
//! loop groups (GE's FusedAscBackend with ScheduleGroups).
//!
//! Why: kernels that cannot share one loop nest (a reduction whose result feeds work of
//! another shape, unrelated small kernels of a recommendation model) still pay one
//! launch each. One launch running their loop groups in turn, with a cross-core barrier
//! (`SyncAll`) before a group that reads what an earlier group wrote, pays one.
//!
//! What it does, per graph function (a `func.func` without `ascir.axes` or
//! `ascir.launch`):
//! 1. Walks the ops in program order and collects runs of calls of scheduled kernels
//!    (`ascir.form = "impl"`, a feasible tiling), all for one target. A run ends at a
//!    graph op (a boundary op, an op left to the interpreter) that reads a result of the
//!    run: a later kernel may need it, and it needs GM between the groups. A graph op
//!    that reads nothing of the run stays where it is, before the launch.
//! 2. A kernel joins the run when the chip model says so: a launch saved
//!    (`launch_cycles`) outweighs the barrier it needs (`sync_all_cycles` when it reads
//!    a result of the run, nothing otherwise), and the run holds fewer than `max-groups`
//!    kernels.
//! 3. Each run of two or more kernels becomes `func.func @autofuse_launch_<n>` with
//!    `ascir.launch = [@k0, @k1, ...]` (its groups, in order) and `ascir.launch_waits`
//!    (per group: whether a barrier precedes it); its body calls the kernels in order. Its
//!    arguments are what the run reads from outside, its results what is read after it;
//!    a value only the run itself reads lives in the launch's workspace. The kernel calls
//!    are replaced by one call of the launch, where the last of them was.
//! 4. Remarks: `AF-ML001 one-launch` at every launch (its groups, barriers and the
//!    cycles the chip model weighed), `AF-ML002 barrier-cost` where the model refused a
//!    kernel, `AF-ML003 gm-boundary` where a graph op between two kernels ended a run.
//!
//! Preconditions: kernels are scheduled and tiled (`--schedule --auto-tiling`).
//! Postconditions: the module verifies; the graph computes the same (the launch's body
//! is the calls it replaces); kernel functions are unchanged.

use crate::options::PassOptions;
use crate::registry::{OptionInfo, PassInfo};
use crate::statistics;
use autofuse_ascir::chip::ChipProfile;
use autofuse_ir::attr::AttrValue;
use autofuse_ir::graph::{ValueDef, ValueId};
use autofuse_mlir::{diagnostics, extract, raw};
use melior::ir::{
    attribute::FlatSymbolRefAttribute,
    block::BlockLike,
    operation::{OperationBuilder, OperationLike},
    BlockRef, Identifier, OperationRef, RegionLike, Value, ValueLike,
};
use std::collections::{BTreeSet, HashMap, HashSet};

pub const PASS: PassInfo = PassInfo {
    argument: "group-launches",
    summary: "Run kernels that follow each other as one launch of several loop groups (GE's FusedAscBackend)",
    description: "Runs of scheduled kernel calls with no graph op between them that reads their results \
                  become one launch (`ascir.launch`): the groups run in turn on the same cores, with a \
                  cross-core barrier (SyncAll) before a group that reads what an earlier one wrote; values \
                  only the launch reads live in its workspace. A kernel joins when the chip model's launch \
                  cost outweighs the barrier it needs. Every launch and every refusal gets a remark \
                  (AF-ML001..003).",
    options: &[
        OptionInfo {
            name: "max-groups",
            kind: "unsigned",
            default: "8",
            help: "Most loop groups (kernels) one launch may hold",
        },
        OptionInfo {
            name: "remarks",
            kind: "bool",
            default: "true",
            help: "Emit an AF-ML remark for every launch formed and every kernel refused",
        },
    ],
    run,
};

/// The reason codes of this pass, documented in `docs/fusion.md`.
pub const REASON_CODES: &[(&str, &str)] = &[
    ("AF-ML001", "one-launch"),
    ("AF-ML002", "barrier-cost"),
    ("AF-ML003", "gm-boundary"),
];

/// A kernel a launch may hold: its target's chip profile.
struct Launchable {
    chip: ChipProfile,
}

/// A run of kernel calls being collected (node indices of the graph function).
#[derive(Default)]
struct Run {
    members: Vec<usize>,
    waits: Vec<bool>,
    results: HashSet<ValueId>,
    target: String,
}

impl Run {
    fn barriers(&self) -> usize {
        self.waits.iter().filter(|&&w| w).count()
    }
}

#[derive(Default)]
struct Totals {
    launches: u64,
    grouped: u64,
    barriers: u64,
}

fn run(module: OperationRef, options: &PassOptions) -> Result<(), ()> {
    let location = module.location();
    let max_groups = diagnostics::or_error(location, options.get_usize("max-groups", 8))?;
    let remarks = diagnostics::or_error(location, options.get_bool("remarks", true))?;
    if max_groups < 2 {
        diagnostics::error(
            location,
            format!(
                "group-launches: max-groups={max_groups} leaves no launch to form (at least 2)"
            ),
        );
        return Err(());
    }
    let body = extract::module_body(module).ok_or(())?;
    let launchable = launchable_kernels(body);
    let mut names: BTreeSet<String> = extract::functions(body)
        .iter()
        .map(extract::function_name)
        .collect();
    let mut totals = Totals::default();
    let mut ok = true;
    for func in extract::functions(body) {
        if func.has_attribute("ascir.axes") || func.has_attribute("ascir.launch") {
            continue;
        }
        let Some(extracted) = extract::extract_function(func) else {
            continue;
        };
        let runs = collect_runs(&extracted, &launchable, max_groups, remarks);
        let mut site = Site {
            module_body: body,
            func,
            block: func.region(0).ok().and_then(|r| r.first_block()),
            extracted: &extracted,
            replaced: HashMap::new(),
            launchable: &launchable,
            remarks,
        };
        for run in runs.into_iter().filter(|r| r.members.len() > 1) {
            let mut fresh = 0;
            let name = loop {
                let candidate = format!("autofuse_launch_{fresh}");
                if !names.contains(&candidate) {
                    break candidate;
                }
                fresh += 1;
            };
            names.insert(name.clone());
            match site.build_launch(&run, &name) {
                Ok(()) => {
                    totals.launches += 1;
                    totals.grouped += run.members.len() as u64;
                    totals.barriers += run.barriers() as u64;
                }
                Err(message) => {
                    diagnostics::error(func.location(), format!("internal error: {message}"));
                    ok = false;
                }
            }
        }
    }
    statistics::add(
        PASS.argument,
        "launches",
        "Launches of several loop groups formed",
        totals.launches,
    );
    statistics::add(
        PASS.argument,
        "grouped-kernels",
        "Kernels that run as a loop group of a launch",
        totals.grouped,
    );
    statistics::add(
        PASS.argument,
        "barriers",
        "Cross-core barriers (SyncAll) between loop groups",
        totals.barriers,
    );
    if ok {
        Ok(())
    } else {
        Err(())
    }
}

/// Scheduled kernels with a tiling that is not known to be infeasible, by name.
fn launchable_kernels(body: BlockRef) -> HashMap<String, Launchable> {
    let mut infeasible = HashSet::new();
    let mut next = body.first_operation();
    while let Some(op) = next {
        next = op.next_in_block();
        if op.name().as_string_ref().as_str() != Ok("tiling.function") {
            continue;
        }
        let attrs = extract::read_attributes(&op);
        if attrs.get("feasible").and_then(AttrValue::as_bool) == Some(false) {
            if let Some(kernel) = attrs.get("kernel").and_then(AttrValue::as_symbol) {
                infeasible.insert(kernel.to_string());
            }
        }
    }
    let mut out = HashMap::new();
    for func in extract::functions(body) {
        if !func.has_attribute("ascir.axes") {
            continue;
        }
        let name = extract::function_name(&func);
        let attrs = extract::read_attributes(&func);
        if attrs.get("ascir.form").and_then(AttrValue::as_str) != Some("impl")
            || infeasible.contains(&name)
        {
            continue;
        }
        let target = attrs
            .get("ascir.target")
            .and_then(AttrValue::as_str)
            .unwrap_or(autofuse_ascir::chip::DEFAULT_TARGET);
        let Ok(chip) = ChipProfile::lookup(target) else {
            continue;
        };
        out.insert(name, Launchable { chip });
    }
    out
}

fn callee_of(node: &autofuse_ir::graph::Node) -> Option<&str> {
    if node.op != "func.call" {
        return None;
    }
    node.attr("callee").and_then(AttrValue::as_symbol)
}

/// Step 1 and 2: the runs of kernel calls of one graph function.
fn collect_runs(
    extracted: &extract::ExtractedGraph,
    launchable: &HashMap<String, Launchable>,
    max_groups: usize,
    remarks: bool,
) -> Vec<Run> {
    let graph = &extracted.graph;
    let mut runs = Vec::new();
    let mut current = Run::default();
    let close = |current: &mut Run, runs: &mut Vec<Run>| {
        if !current.members.is_empty() {
            runs.push(std::mem::take(current));
        }
    };
    let label = |n: usize| callee_of(&graph.nodes[n]).unwrap_or("?").to_string();
    for (n, node) in graph.nodes.iter().enumerate() {
        let kernel = callee_of(node).and_then(|c| launchable.get(c).map(|k| (c, k)));
        let Some((callee, kernel)) = kernel else {
            if !current.members.is_empty()
                && node.operands.iter().any(|v| current.results.contains(v))
            {
                // A later kernel of the run would need GM written by this op: the run
                // ends here.
                if remarks {
                    if let Some(next) = graph.nodes[n + 1..]
                        .iter()
                        .position(|m| callee_of(m).is_some_and(|c| launchable.contains_key(c)))
                    {
                        diagnostics::remark(
                            extracted.ops[n].location(),
                            format!(
                                "AF-ML003 gm-boundary: @{} does not join the launch of @{}: '{}' between them reads the launch's results through GM",
                                label(n + 1 + next),
                                label(current.members[0]),
                                node.op
                            ),
                        );
                    }
                }
                close(&mut current, &mut runs);
            }
            continue;
        };
        let waits = node.operands.iter().any(|v| current.results.contains(v));
        let joins = !current.members.is_empty()
            && current.members.len() < max_groups
            && current.target == kernel.chip.name
            && kernel.chip.launch_cycles
                > if waits {
                    kernel.chip.sync_all_cycles
                } else {
                    0
                };
        if !current.members.is_empty() && !joins && remarks && current.target == kernel.chip.name {
            if current.members.len() >= max_groups {
                // max-groups is the user's limit: no remark needed beyond the statistic.
            } else {
                diagnostics::remark(
                    extracted.ops[n].location(),
                    format!(
                        "AF-ML002 barrier-cost: @{callee} does not join the launch of @{}: its barrier ({} cycles) costs more than the launch it saves ({} cycles)",
                        label(current.members[0]),
                        kernel.chip.sync_all_cycles,
                        kernel.chip.launch_cycles
                    ),
                );
            }
        }
        if !joins {
            close(&mut current, &mut runs);
            current.target = kernel.chip.name.to_string();
        }
        current.waits.push(joins && waits);
        current.members.push(n);
        current.results.extend(node.results.iter().copied());
    }
    close(&mut current, &mut runs);
    runs
}

fn inner_location(text: &str) -> String {
    text.trim()
        .strip_prefix("loc(")
        .and_then(|s| s.strip_suffix(')'))
        .unwrap_or("unknown")
        .to_string()
}

/// A graph function whose runs become launches.
struct Site<'x, 'c, 'a> {
    /// The module's body, where launch functions go.
    module_body: BlockRef<'c, 'a>,
    func: OperationRef<'c, 'a>,
    /// The function's body (`None` if it has none: then no launch is built).
    block: Option<BlockRef<'c, 'a>>,
    extracted: &'x extract::ExtractedGraph<'c, 'a>,
    /// The results of calls earlier launches replaced, mapped to the launch calls'
    /// results.
    replaced: HashMap<ValueId, Value<'c, 'a>>,
    launchable: &'x HashMap<String, Launchable>,
    remarks: bool,
}

/// The calls of a launch function's body, as written.
struct LaunchBody {
    /// What the members read from outside the run, in first-use order (`%argN`).
    arguments: Vec<ValueId>,
    /// The name of every member result in the body.
    produced: HashMap<ValueId, String>,
    lines: Vec<String>,
    callees: Vec<String>,
    /// The members' locations, as the text inside `loc(...)`.
    member_locations: Vec<String>,
}

impl<'c: 'a, 'a> Site<'_, 'c, 'a> {
    /// The IR value of graph value `v`, a launch call's result once a launch replaced
    /// the call defining it.
    fn value(&self, v: ValueId) -> Option<Value<'c, 'a>> {
        if let Some(&new) = self.replaced.get(&v) {
            return Some(new);
        }
        match self.extracted.graph.values.get(v)?.def {
            ValueDef::Argument(i) => self.block?.argument(i).ok().map(Into::into),
            ValueDef::Result { node, index } => self
                .extracted
                .ops
                .get(node)?
                .result(index)
                .ok()
                .map(Into::into),
        }
    }

    /// The type of graph value `v`, as MLIR text.
    fn type_text(&self, v: ValueId) -> Result<String, String> {
        self.value(v)
            .map(|x| raw::type_text(x.r#type()))
            .ok_or_else(|| format!("value {v} is not an IR value"))
    }

    /// Step 3: the launch function and the call that replaces the run.
    fn build_launch(&mut self, run: &Run, name: &str) -> Result<(), String> {
        let block = self.block.ok_or("function without a body")?;
        let launch = self.launch_body(run)?;
        let results = self.launch_results(run)?;
        let text = self.launch_text(run, name, &launch, &results)?;
        if !raw::append_last_parsed(&self.func, self.module_body, &text, name) {
            return Err(format!(
                "the launch function @{name} does not parse:\n{text}"
            ));
        }
        let call = self.insert_launch_call(block, run, name, &launch.arguments, &results)?;
        for (index, &r) in results.iter().enumerate() {
            let old = self.value(r).ok_or("a launch result is not a value")?;
            let new: Value = call.result(index).map_err(|e| e.to_string())?.into();
            raw::replace_all_uses(old, new);
            self.replaced.insert(r, new);
        }
        for &n in run.members.iter().rev() {
            raw::erase_op(self.extracted.ops[n]);
        }
        if self.remarks {
            let workspace = launch.produced.len() - results.len();
            self.remark_launch(run, name, call, &launch.callees, workspace)?;
        }
        Ok(())
    }

    /// The body's calls of the run's kernels, each reading the results of earlier ones
    /// directly and everything else through the launch's arguments.
    fn launch_body(&self, run: &Run) -> Result<LaunchBody, String> {
        let graph = &self.extracted.graph;
        let mut body = LaunchBody {
            arguments: Vec::new(),
            produced: HashMap::new(),
            lines: Vec::new(),
            callees: Vec::new(),
            member_locations: Vec::new(),
        };
        for (j, &n) in run.members.iter().enumerate() {
            let node = &graph.nodes[n];
            let callee = callee_of(node).ok_or("a launch member is not a call")?;
            body.callees.push(callee.to_string());
            let mut operands = Vec::new();
            let mut operand_types = Vec::new();
            for &v in &node.operands {
                let text = match body.produced.get(&v) {
                    Some(t) => t.clone(),
                    None => {
                        let index = match body.arguments.iter().position(|&a| a == v) {
                            Some(i) => i,
                            None => {
                                body.arguments.push(v);
                                body.arguments.len() - 1
                            }
                        };
                        format!("%arg{index}")
                    }
                };
                operands.push(text);
                operand_types.push(self.type_text(v)?);
            }
            let result_types: Vec<String> = node
                .results
                .iter()
                .map(|&r| self.type_text(r))
                .collect::<Result<_, _>>()?;
            for (i, &r) in node.results.iter().enumerate() {
                let text = if node.results.len() == 1 {
                    format!("%g{j}")
                } else {
                    format!("%g{j}#{i}")
                };
                body.produced.insert(r, text);
            }
            let results_decl = if node.results.len() == 1 {
                format!("%g{j}")
            } else {
                format!("%g{j}:{}", node.results.len())
            };
            let location = inner_location(&raw::location_text(self.extracted.ops[n].location()));
            body.member_locations.push(location.clone());
            body.lines.push(format!(
                "    {results_decl} = func.call @{callee}({}) : ({}) -> ({}) loc({location})",
                operands.join(", "),
                operand_types.join(", "),
                result_types.join(", ")
            ));
        }
        Ok(body)
    }

    /// The launch's results: member results read after the run (by ops outside it or
    /// the return).
    fn launch_results(&self, run: &Run) -> Result<Vec<ValueId>, String> {
        let graph = &self.extracted.graph;
        let members: HashSet<usize> = run.members.iter().copied().collect();
        let users = graph.users();
        let mut results: Vec<ValueId> = Vec::new();
        for &n in &run.members {
            for &r in &graph.nodes[n].results {
                let outside = users
                    .get(r)
                    .is_some_and(|u| u.iter().any(|(user, _)| !members.contains(user)))
                    || graph.outputs.contains(&r);
                if outside {
                    results.push(r);
                }
            }
        }
        if results.is_empty() {
            return Err("a launch whose results nothing reads".into());
        }
        Ok(results)
    }

    /// The launch function `@name` as MLIR text, after declarations of its callees.
    fn launch_text(
        &self,
        run: &Run,
        name: &str,
        launch: &LaunchBody,
        results: &[ValueId],
    ) -> Result<String, String> {
        let argument_decls: Vec<String> = launch
            .arguments
            .iter()
            .enumerate()
            .map(|(i, &v)| Ok(format!("%arg{i}: {}", self.type_text(v)?)))
            .collect::<Result<_, String>>()?;
        let result_types: Vec<String> = results
            .iter()
            .map(|&r| self.type_text(r))
            .collect::<Result<_, _>>()?;
        let returned: Vec<String> = results.iter().map(|r| launch.produced[r].clone()).collect();
        let groups: Vec<String> = launch.callees.iter().map(|c| format!("@{c}")).collect();
        let waits: Vec<&str> = run
            .waits
            .iter()
            .map(|&w| if w { "true" } else { "false" })
            .collect();
        let declarations = self.callee_declarations(run)?;
        Ok(format!(
            "{declarations}func.func @{name}({}) -> ({}) attributes {{ascir.launch = [{}], ascir.launch_waits = [{}]}} {{\n{}\n    func.return {} : {}\n}} loc(fused<\"{name}\">[{}])\n",
            argument_decls.join(", "),
            result_types.join(", "),
            groups.join(", "),
            waits.join(", "),
            launch.lines.join("\n"),
            returned.join(", "),
            result_types.join(", "),
            launch.member_locations.join(", ")
        ))
    }

    /// Private declarations of the run's callees, each once: the parser verifies symbol
    /// uses, so they precede the launch.
    fn callee_declarations(&self, run: &Run) -> Result<String, String> {
        let graph = &self.extracted.graph;
        let mut declarations = String::new();
        for &n in &run.members {
            let node = &graph.nodes[n];
            let callee = callee_of(node).ok_or("a launch member is not a call")?;
            let inputs: Vec<String> = node
                .operands
                .iter()
                .map(|&v| self.type_text(v))
                .collect::<Result<_, _>>()?;
            let outputs: Vec<String> = node
                .results
                .iter()
                .map(|&v| self.type_text(v))
                .collect::<Result<_, _>>()?;
            if !declarations.contains(&format!("@{callee}(")) {
                declarations.push_str(&format!(
                    "func.func private @{callee}({}) -> ({})\n",
                    inputs.join(", "),
                    outputs.join(", ")
                ));
            }
        }
        Ok(declarations)
    }

    /// The call of launch `@name`, where the last member was, located at the members.
    fn insert_launch_call(
        &self,
        block: BlockRef<'c, 'a>,
        run: &Run,
        name: &str,
        arguments: &[ValueId],
        results: &[ValueId],
    ) -> Result<OperationRef<'c, 'a>, String> {
        let last = *run.members.last().ok_or("an empty launch")?;
        let anchor = self.extracted.ops[last];
        let context_ref = self.func.context();
        // SAFETY: the context outlives every op and attribute built here.
        let context = unsafe { context_ref.to_ref() };
        let operands: Vec<Value> = arguments
            .iter()
            .map(|&v| self.value(v))
            .collect::<Option<_>>()
            .ok_or("a launch argument is not a value")?;
        let types: Vec<_> = results
            .iter()
            .map(|&v| self.value(v).map(|x| x.r#type()))
            .collect::<Option<_>>()
            .ok_or("a launch result is not a value")?;
        let locations: Vec<_> = run
            .members
            .iter()
            .map(|&n| self.extracted.ops[n].location())
            .collect();
        let metadata = melior::ir::Attribute::parse(context, &format!("\"{name}\""))
            .ok_or("cannot build the location metadata")?;
        let location = melior::ir::Location::fused(context, &locations, metadata);
        let call = OperationBuilder::new("func.call", location)
            .add_operands(&operands)
            .add_results(&types)
            .add_attributes(&[(
                Identifier::new(context, "callee"),
                FlatSymbolRefAttribute::new(context, name).into(),
            )])
            .build()
            .map_err(|e| format!("cannot build the launch call: {e}"))?;
        Ok(block.insert_operation_after(anchor, call))
    }

    /// `AF-ML001 one-launch` at the launch call: its groups, barriers, workspace and the
    /// cycles the chip model weighed.
    fn remark_launch(
        &self,
        run: &Run,
        name: &str,
        call: OperationRef,
        callees: &[String],
        workspace: usize,
    ) -> Result<(), String> {
        let chip = &self
            .launchable
            .get(&callees[0])
            .ok_or("a launch member is not launchable")?
            .chip;
        let groups: Vec<String> = callees.iter().map(|c| format!("@{c}")).collect();
        let barriers = run.barriers();
        diagnostics::remark(
            call.location(),
            format!(
                "AF-ML001 one-launch: {} run as one launch @{name} of {} loop groups with {barriers} cross-core barrier(s) and {workspace} value(s) in its workspace: saves {} launch(es) ({} cycles) for {} cycles of barriers",
                groups.join(", "),
                groups.len(),
                groups.len() - 1,
                (groups.len() as u64 - 1) * chip.launch_cycles,
                barriers as u64 * chip.sync_all_cycles
            ),
        );
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// docs/fusion.md lists every reason code of this pass with its slug.
    #[test]
    fn every_reason_code_is_documented() {
        crate::registry::assert_reason_codes_documented(REASON_CODES.iter().copied());
    }
}
