//! `--auto-tiling`: the tiling-data fields and the tiling function of every scheduled
//! kernel.
//!
//! What it does, per impl-form AscGraph without a `tiling.function` record:
//! 1. Rebuilds the schedule for the chip recorded by `--schedule` and checks it matches
//!    the recorded cases.
//! 2. Builds the tiling model (`autofuse_core::tiling_solver`): per case the split-axis
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
//! Options: as `--schedule` (used for kernels that carry no recorded chip) and `remarks`.
//! Preconditions: `--schedule` ran. Postconditions: every scheduled kernel has exactly
//! one `tiling.function`; recorded solutions fit UB and the core count.

use crate::options::PassOptions;
use crate::registry::{OptionInfo, PassInfo};
use crate::schedule::{chip_from_options, chip_of, form_of, read_hint_graph, RecordIndex};
use crate::statistics;
use autofuse_core::attr::quote;
use autofuse_core::schedule::Schedule;
use autofuse_core::tiling_solver::{solve, tiling_field_names, TilingModel};
use autofuse_mlir::{diagnostics, extract};
use melior::ir::operation::OperationLike;
use melior::ir::OperationRef;
use std::collections::HashMap;

pub const PASS: PassInfo = PassInfo {
    argument: "auto-tiling",
    summary: "Tiling-data fields and tiling function of each scheduled kernel; static shapes solved now",
    description: "For every impl-form AscGraph: builds the tiling model (per case: split extent, looped \
                  count, buffer bytes and cost terms as expressions of the symbols and the tile size), \
                  records the tiling-data fields (tiling.field) and the tiling function (tiling.function). \
                  Static shapes are solved at compile time (remark AF-AT001 with case, tile, block dim and \
                  UB use; AF-AT003 when rows longer than UB make it split a reduction into chunks); when no \
                  case fits UB the kernel is marked infeasible (remark AF-AT002).",
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

fn run(module: OperationRef, options: &PassOptions) -> Result<(), ()> {
    let default_chip = diagnostics::or_error(module.location(), chip_from_options(options))?;
    let remarks = diagnostics::or_error(module.location(), options.get_bool("remarks", true))?;
    let body = extract::module_body(module).ok_or(())?;
    let (mut tiled, mut solved, mut infeasible) = (0u64, 0u64, 0u64);
    let mut ok = true;
    let index = RecordIndex::build(body);
    for func in extract::functions(body) {
        if form_of(&func) != "impl" {
            continue;
        }
        let name = extract::function_name(&func);
        let records = index.records(&name);
        if records.iter().any(|(op, _)| op == "tiling.function") {
            continue;
        }
        let chip = match chip_of(&func).unwrap_or_else(|| Ok(default_chip.clone())) {
            Ok(c) => c,
            Err(e) => {
                diagnostics::error(
                    crate::schedule::kernel_location(&func),
                    format!("@{name}: {e}"),
                );
                ok = false;
                continue;
            }
        };
        let graph = match read_hint_graph(&func) {
            Ok(g) => g,
            Err(e) => {
                diagnostics::error(
                    crate::schedule::kernel_location(&func),
                    format!("AscGraph @{name}: {e}"),
                );
                ok = false;
                continue;
            }
        };
        let schedule = match Schedule::build(&graph, &chip) {
            Ok(s) => s,
            Err(e) => {
                diagnostics::error(
                    crate::schedule::kernel_location(&func),
                    format!("@{name} is in impl form but does not schedule: {e}"),
                );
                ok = false;
                continue;
            }
        };
        let recorded_cases = records.iter().filter(|(op, _)| op == "tiling.case").count();
        if recorded_cases != schedule.cases.len() {
            diagnostics::error(
                crate::schedule::kernel_location(&func),
                format!(
                    "@{name} records {recorded_cases} tiling cases, the schedule has {}",
                    schedule.cases.len()
                ),
            );
            ok = false;
            continue;
        }
        let operands = Schedule::operands_of(&graph);
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
        if schedule.symbols.is_empty() {
            match solve(&model, &HashMap::new(), &chip) {
                Ok(t) => {
                    solved += 1;
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
                    match case.and_then(|c| schedule.split_plan(c).map(|p| (c, p))) {
                        // A split reduction is always reported: rows did not fit UB.
                        Some((c, plan)) => diagnostics::remark(
                            crate::schedule::kernel_location(&func),
                            format!(
                                "AF-AT003 @{name}: reduction rows do not fit UB; case {} splits the reduced axis {} \
                                 into chunks ({split}) over {} pass(es), {} row group(s) on block_dim {}, UB {}/{} bytes",
                                t.key,
                                c.split.map_or("?", |u| schedule.axes[u].name.as_str()),
                                plan.passes,
                                t.tiles_total,
                                t.block_dim,
                                t.ub_bytes,
                                t.ub_capacity
                            ),
                        ),
                        None if remarks => diagnostics::remark(
                            crate::schedule::kernel_location(&func),
                            format!(
                                "AF-AT001 @{name}: case {} ({split}), {} tiles on block_dim {}, UB {}/{} bytes",
                                t.key, t.tiles_total, t.block_dim, t.ub_bytes, t.ub_capacity
                            ),
                        ),
                        None => {}
                    }
                }
                Err(reason) => {
                    infeasible += 1;
                    function.push_str(", feasible = false");
                    diagnostics::remark(
                        crate::schedule::kernel_location(&func),
                        format!("AF-AT002 @{name}: {reason}; the kernel is not translated"),
                    );
                }
            }
        }
        lines.push(format!("\"tiling.function\"() {{{function}}} : () -> ()"));
        let anchor = index.anchor(func, &name);
        if !crate::schedule::insert_records_after(anchor, &lines.join("\n"), "<auto-tiling>") {
            diagnostics::error(
                crate::schedule::kernel_location(&func),
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

/// How the host computes a field (the `expr` of its `tiling.field`).
fn field_expr(model: &TilingModel, field: &str) -> String {
    match field {
        "block_dim" => "min(cores, tiles_total) balanced: ceil(tiles_total / ceil(tiles_total / min(cores, tiles_total)))".into(),
        "tiling_key" => "the case of least estimated time whose smallest tile fits UB".into(),
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
                    if c.reduce_split {
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
