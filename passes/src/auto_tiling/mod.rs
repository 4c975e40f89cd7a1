//! `--auto-tiling`: the tiling-data fields and the tiling function of every scheduled
//! kernel.
//!
//! What it does, per impl-form AscGraph without a `tiling.function` record:
//! 1. Rebuilds the schedule for the chip recorded by `--schedule` and checks it matches
//!    the recorded cases.
//! 2. Builds the tiling model (`autofuse_tiling::tiling`): per case the split-axis
//!    extent, the looped count, every buffer's bytes and the per-tile cost terms, all as
//!    expressions of the symbols and the tile size.
//! 3. Records one `tiling.field` per field of the tiling-data struct (header, symbols,
//!    tile and block sizes per case, buffer sizes) with how the host computes it, and a
//!    `tiling.function` (symbols, UB capacity, cores; `static` says whether the shapes
//!    are known).
//! 4. Static shapes are solved now: the solution is recorded on `tiling.function`
//!    (`key`, `tile`, `block_dim`, `ub_used`) and reported in remark `AF-AT001`; when the
//!    chosen case splits a reduction (rows longer than UB), remark `AF-AT003` says so
//!    (always, it is a notable decision). When no case fits UB at all (the buffers alone
//!    exceed it), remark `AF-AT002` says so and the record carries `feasible = false`:
//!    the kernel is not translated.
//!
//! Kernels are read on the pass's thread, tiled on the context's threads
//! (`crate::parallel`), then recorded in module order.
//!
//! Options: as `--schedule` (used for kernels that carry no recorded chip) and `remarks`.
//! Preconditions: `--schedule` ran. Postconditions: every scheduled kernel has exactly
//! one `tiling.function`; recorded solutions fit UB and the core count.

pub mod solver;

use crate::options::PassOptions;
use crate::parallel;
use crate::registry::{OptionInfo, PassInfo};
use crate::schedule::build::BuildSchedule;
use crate::schedule::{chip_from_options, chip_of, form_of, read_hint_graph, RecordIndex};
use crate::statistics;
use autofuse_ascir::chip::ChipProfile;
use autofuse_ascir::graph::AscGraph;
use autofuse_ascir::kernel::Schedule;
use autofuse_ir::attr::quote;
use autofuse_mlir::{diagnostics, extract, raw};
use autofuse_tiling::tiling::{tiling_field_names, TilingModel};
use melior::ir::operation::OperationLike;
use melior::ir::OperationRef;
use solver::solve;
use std::collections::HashMap;

pub const PASS: PassInfo = PassInfo {
    argument: "auto-tiling",
    summary: "Tiling-data fields and tiling function of each scheduled kernel; static shapes solved now",
    description: "For every impl-form AscGraph: builds the tiling model (per case: split extent, looped \
                  count, buffer bytes and cost terms as expressions of the symbols and the tile size), \
                  records the tiling-data fields (tiling.field) and the tiling function (tiling.function). \
                  Static shapes are solved at compile time (remark AF-AT001 with case, tile, block dim and \
                  UB use; AF-AT003 when rows longer than UB make it split a reduction into chunks); when no \
                  case fits UB the kernel is marked infeasible (remark AF-AT002). Kernels are tiled in parallel \
                  on the context's threads (one with --mlir-disable-threading); records and diagnostics follow \
                  module order.",
    options: &OPTIONS,
    run,
};

const OPTIONS: [OptionInfo; 4] = [
    crate::schedule::CHIP_OPTIONS[0],
    crate::schedule::CHIP_OPTIONS[1],
    crate::schedule::CHIP_OPTIONS[2],
    OptionInfo {
        name: "remarks",
        kind: "bool",
        default: "true",
        help: "report the static tiling decision of every kernel (AF-AT001)",
    },
];

/// What one kernel needs from the IR to be tiled.
struct KernelInput {
    name: String,
    chip: ChipProfile,
    graph: AscGraph,
    recorded_cases: usize,
}

/// The records and report of one tiled kernel.
struct Tiled {
    lines: Vec<String>,
    remark: Option<String>,
    solved: bool,
    infeasible: bool,
}

fn run(module: OperationRef, options: &PassOptions) -> Result<(), ()> {
    let default_chip = diagnostics::or_error(module.location(), chip_from_options(options))?;
    let remarks = diagnostics::or_error(module.location(), options.get_bool("remarks", true))?;
    let body = extract::module_body(module).ok_or(())?;
    let (mut tiled, mut solved, mut infeasible) = (0u64, 0u64, 0u64);
    let mut ok = true;
    let index = RecordIndex::build(body);
    // 1. Read every scheduled kernel without a tiling function (IR access stays on this
    //    thread); what cannot be read is an error reported in step 3, in module order.
    let mut kernels = Vec::new();
    for func in extract::functions(body) {
        if form_of(&func) != "impl" {
            continue;
        }
        let name = extract::function_name(&func);
        let records = index.records(&name);
        if records.iter().any(|(op, _)| op == "tiling.function") {
            continue;
        }
        let input = chip_of(&func)
            .unwrap_or_else(|| Ok(default_chip.clone()))
            .map_err(|e| format!("@{name}: {e}"))
            .and_then(|chip| {
                let graph = read_hint_graph(&func).map_err(|e| format!("AscGraph @{name}: {e}"))?;
                Ok(KernelInput {
                    name: name.clone(),
                    chip,
                    graph,
                    recorded_cases: records.iter().filter(|(op, _)| op == "tiling.case").count(),
                })
            });
        kernels.push((func, name, input));
    }
    // 2. Tile them on the context's threads.
    let inputs: Vec<Option<&KernelInput>> = kernels
        .iter()
        .map(|(_, _, input)| input.as_ref().ok())
        .collect();
    let results = parallel::map(raw::thread_count(&module), &inputs, |input| {
        input.map(|input| tile_kernel(input, remarks))
    });
    // 3. Record and report, in module order.
    for ((func, name, input), result) in kernels.iter().zip(results) {
        let location = crate::schedule::kernel_location(func);
        let result = match (input, result) {
            (Ok(_), Some(result)) => result,
            _ => Err(input.as_ref().err().cloned().unwrap_or_default()),
        };
        let done = match result {
            Ok(done) => done,
            Err(message) => {
                diagnostics::error(location, message);
                ok = false;
                continue;
            }
        };
        solved += u64::from(done.solved);
        infeasible += u64::from(done.infeasible);
        if let Some(remark) = done.remark {
            diagnostics::remark(location, remark);
        }
        let anchor = index.anchor(*func, name);
        if !crate::schedule::insert_records_after(anchor, &done.lines.join("\n"), "<auto-tiling>") {
            diagnostics::error(
                location,
                format!("internal error: cannot record the tiling of @{name}"),
            );
            ok = false;
            continue;
        }
        tiled += 1;
    }
    statistics::add(
        PASS.argument,
        "kernels",
        "Number of kernels given a tiling function",
        tiled,
    );
    statistics::add(
        PASS.argument,
        "static",
        "Number of static kernels solved at compile time",
        solved,
    );
    statistics::add(
        PASS.argument,
        "infeasible",
        "Number of kernels no tiling case fits",
        infeasible,
    );
    if ok {
        Ok(())
    } else {
        Err(())
    }
}

/// The tiling records of one kernel (no IR access: runs on any thread); `Err` is an
/// error to report at the kernel.
fn tile_kernel(input: &KernelInput, remarks: bool) -> Result<Tiled, String> {
    let KernelInput {
        name,
        chip,
        graph,
        recorded_cases,
    } = input;
    let schedule = Schedule::build(graph, chip)
        .map_err(|e| format!("@{name} is in impl form but does not schedule: {e}"))?;
    if *recorded_cases != schedule.cases.len() {
        return Err(format!(
            "@{name} records {recorded_cases} tiling cases, the schedule has {}",
            schedule.cases.len()
        ));
    }
    let operands = Schedule::operands_of(graph);
    let model = TilingModel::new(&schedule, &operands);
    let mut lines = Vec::new();
    for (field, ty) in tiling_field_names(&model) {
        let expr = field_expr(&model, &field);
        lines.push(format!(
            "\"tiling.field\"() {{kernel = @{name}, name = {}, type = {}, expr = {}}} : () -> ()",
            quote(&field),
            quote(ty),
            quote(&expr)
        ));
    }
    let symbols: Vec<String> = schedule.symbols.iter().map(|s| quote(s)).collect();
    let mut function = format!(
        "kernel = @{name}, symbols = [{}], ub_bytes = {}, cores = {}, static = {}",
        symbols.join(", "),
        chip.ub_usable,
        chip.vector_cores,
        schedule.symbols.is_empty()
    );
    let mut tiled = Tiled {
        lines: Vec::new(),
        remark: None,
        solved: false,
        infeasible: false,
    };
    if schedule.symbols.is_empty() {
        match solve(&model, &HashMap::new(), chip) {
            Ok(t) => {
                tiled.solved = true;
                function.push_str(&format!(
                    ", feasible = true, key = {}, tile = {}, block_dim = {}, ub_used = {}",
                    t.key, t.tile, t.block_dim, t.ub_bytes
                ));
                let case = schedule.case(t.key);
                let split = case
                    .and_then(|c| c.tile_var.clone())
                    .map_or("one tile, no split".to_string(), |v| {
                        format!("{v} = {}", t.tile)
                    });
                tiled.remark = match case.and_then(|c| schedule.split_plan(c).map(|p| (c, p))) {
                    // A cross-core split reduction: its row groups shared by blocks.
                    Some((c, plan)) if c.cross_core => Some(format!(
                        "AF-AT003 @{name}: reduction rows do not fit UB; case {} splits the reduced axis {} \
                         into chunks ({split}) over {} pass(es) and across cores: {} row group(s) of {} blocks each \
                         (partials in a {}-byte workspace, SyncAll, combine) on block_dim {}, UB {}/{} bytes",
                        t.key,
                        c.split.map_or("?", |u| schedule.axes[u].name.as_str()),
                        plan.passes,
                        t.tiles_total / t.parts.max(1),
                        t.parts,
                        t.workspace_bytes,
                        t.block_dim,
                        t.ub_bytes,
                        t.ub_capacity
                    )),
                    // A split reduction is always reported: rows did not fit UB.
                    Some((c, plan)) => Some(format!(
                        "AF-AT003 @{name}: reduction rows do not fit UB; case {} splits the reduced axis {} \
                         into chunks ({split}) over {} pass(es), {} row group(s) on block_dim {}, UB {}/{} bytes",
                        t.key,
                        c.split.map_or("?", |u| schedule.axes[u].name.as_str()),
                        plan.passes,
                        t.tiles_total,
                        t.block_dim,
                        t.ub_bytes,
                        t.ub_capacity
                    )),
                    None if remarks => Some(format!(
                        "AF-AT001 @{name}: case {} ({split}), {} tiles on block_dim {}, UB {}/{} bytes",
                        t.key, t.tiles_total, t.block_dim, t.ub_bytes, t.ub_capacity
                    )),
                    None => None,
                };
            }
            Err(reason) => {
                tiled.infeasible = true;
                function.push_str(", feasible = false");
                tiled.remark = Some(format!(
                    "AF-AT002 @{name}: {reason}; the kernel is not translated"
                ));
            }
        }
    }
    lines.push(format!("\"tiling.function\"() {{{function}}} : () -> ()"));
    tiled.lines = lines;
    Ok(tiled)
}

/// How the host computes a field (the `expr` of its `tiling.field`).
fn field_expr(model: &TilingModel, field: &str) -> String {
    match field {
        "block_dim" => "min(cores, tiles_total) balanced: ceil(tiles_total / ceil(tiles_total / min(cores, tiles_total)))".into(),
        "tiling_key" => "the case of least estimated time whose smallest tile fits UB".into(),
        "rcore_parts" => "cross-core cases: blocks sharing a row group, cross_core_split(chunks, row groups, cores); 0 otherwise".into(),
        "workspace_bytes" => "cross-core cases: tiles_total x the partials of one unit; 0 otherwise".into(),
        "tiles_total" => {
            let parts: Vec<String> = model
                .cases
                .iter()
                .map(|c| {
                    let t = c
                        .tile_var
                        .as_deref()
                        .map(autofuse_symbolic::Expr::symbol)
                        .unwrap_or_else(|| autofuse_symbolic::Expr::constant(1));
                    if c.cross_core.is_some() {
                        format!("case {}: {} x rcore_parts (row group shares)", c.key, c.outer)
                    } else if c.reduce_split {
                        format!("case {}: {} (row groups)", c.key, c.outer)
                    } else {
                        format!("case {}: {}", c.key, c.outer.clone() * c.split_size.ceil_div(&t))
                    }
                })
                .collect();
            parts.join("; ")
        }
        _ => {
            if model.symbols.iter().any(|s| s == field) {
                return field.to_string();
            }
            for c in &model.cases {
                if c.tile_var.as_deref() == Some(field) {
                    return format!(
                        "case {}: largest multiple of {} up to {} that fits UB, balanced over cores",
                        c.key, c.tile_align, c.split_size
                    );
                }
                if c.block_var == field {
                    return "ceil(tiles_total / block_dim)".into();
                }
            }
            if let Some(buffer) = field.strip_suffix("_size") {
                let parts: Vec<String> = model
                    .cases
                    .iter()
                    .filter_map(|c| {
                        c.buffers
                            .iter()
                            .find(|b| b.0 == buffer)
                            .map(|b| format!("case {}: {}", c.key, b.3))
                    })
                    .collect();
                return parts.join("; ");
            }
            String::new()
        }
    }
}
