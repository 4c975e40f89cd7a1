//! `--schedule`: turns every hint-form AscGraph into impl form.
//!
//! What it does, per AscGraph (`func.func` with `ascir.axes` and `ascir.form = "hint"`):
//! 1. Builds the schedule (`autofuse_ascir::kernel`): normalized axes (size-1 axes
//!    dropped, contiguous axes merged), the TilingGroup, one tiling case per UB-split
//!    candidate, the UB layout, queues (VECIN/VECOUT, double-buffered) and VECCALC slots
//!    reused by lifetime.
//! 2. Records it: `ascir.form = "impl"`, the chip (`ascir.target`, `ascir.ub_bytes`,
//!    `ascir.cores`), the merged, tile and block axes appended to `ascir.axes`, impl
//!    attributes on nodes (`mem`, `que`, `que_member`, `buf_num`, `buf`), and after the
//!    function the records `tiling.group`, `tiling.split`, `tiling.case` and
//!    `tiling.buffer` (one per buffer and case).
//! 3. Kernels the schedule cannot express stay in hint form with a remark `AF-SC001`
//!    naming the reason; the pass does not fail on them.
//!
//! Kernels are read on the pass's thread, scheduled on the context's threads
//! (`crate::parallel`), then recorded in module order.
//!
//! Options: `target` (chip profile), `ub-bytes` and `cores` (override the profile).
//! Preconditions: the module verifies; AscGraphs are in hint form (`--lower-to-ascir`,
//! `--fuse`). Postconditions: the module verifies; node views and `sched_axis` are
//! unchanged, so the hint-form interpreter still runs impl-form kernels.

pub mod build;

use crate::options::PassOptions;
use crate::parallel;
use crate::registry::{OptionInfo, PassInfo};
use crate::schedule::build::BuildSchedule;
use crate::statistics;
use autofuse_ascir::chip::ChipProfile;
use autofuse_ascir::graph::AscGraph;
use autofuse_ascir::kernel::{Schedule, ScheduleRecords};
use autofuse_ir::attr::{quote, AttrValue};
use autofuse_mlir::{diagnostics, extract, raw};
use melior::ir::operation::OperationLike;
use melior::ir::OperationRef;

pub const PASS: PassInfo = PassInfo {
    argument: "schedule",
    summary: "Schedule AscGraphs: normalize axes, tiling cases, tile/block splits, queues and buffers (impl form)",
    description: "For every hint-form AscGraph: drops size-1 axes and merges contiguous ones, computes the \
                  TilingGroup (y/r axes), one tiling case per UB-split axis (tile split zT/zt, block split of \
                  the looped axes over cores), the UB layout (32-byte aligned rows) and the buffers: VECIN/VECOUT \
                  queues with double buffering, VECCALC slots reused by lifetime, work/mask/scratch buffers. \
                  Records the result as impl-form attributes and tiling.group/split/case/buffer records. \
                  Kernels it cannot express stay in hint form with remark AF-SC001. Kernels are scheduled \
                  in parallel on the context's threads (one with --mlir-disable-threading); records and \
                  diagnostics follow module order.",
    options: &CHIP_OPTIONS,
    run,
};

/// Chip options shared with `--auto-tiling`.
pub const CHIP_OPTIONS: [OptionInfo; 3] = [
    OptionInfo {
        name: "target",
        kind: "string",
        default: "ascend910b",
        help: "chip profile: ascend910b, ascend910_93 or ascend950",
    },
    OptionInfo {
        name: "ub-bytes",
        kind: "uint",
        default: "0",
        help: "usable UB bytes (0 = the profile's; may only shrink it)",
    },
    OptionInfo {
        name: "cores",
        kind: "uint",
        default: "0",
        help: "vector cores (0 = the profile's)",
    },
];

/// The chip the options name.
pub fn chip_from_options(options: &PassOptions) -> Result<ChipProfile, String> {
    let target = options
        .get("target")
        .unwrap_or(autofuse_ascir::chip::DEFAULT_TARGET);
    let ub = options.get_usize("ub-bytes", 0)? as u64;
    let cores = options.get_usize("cores", 0)? as u64;
    ChipProfile::lookup(target)?.with_overrides(ub, cores)
}

/// Reads an AscGraph with node locations from an extracted function.
pub fn read_ascgraph(func: &OperationRef) -> Result<AscGraph, String> {
    let attrs = extract::read_attributes(func);
    let extracted = extract::extract_function(*func).ok_or("function without a body")?;
    let mut graph = AscGraph::from_graph(&extracted.graph, &attrs)?;
    for (node, op) in graph.nodes.iter_mut().zip(&extracted.ops) {
        node.loc = Some(op.location().to_string());
        // Impl attributes written by this pass are not semantic attributes.
        node.attrs.retain(|(k, _)| {
            !matches!(
                k.as_str(),
                "mem" | "que" | "que_member" | "buf_num" | "buf" | "tiling_group"
            )
        });
    }
    Ok(graph)
}

/// Reads a scheduled (or hint-form) AscGraph back in hint form: the axes appended by
/// `--schedule` (merged, tile, block) are dropped, node views name only hint axes.
pub fn read_hint_graph(func: &OperationRef) -> Result<AscGraph, String> {
    let mut graph = read_ascgraph(func)?;
    let used: std::collections::BTreeSet<i64> = graph
        .nodes
        .iter()
        .flat_map(|n| n.view.axis.iter().copied())
        .collect();
    if !graph.nodes.is_empty() {
        graph.axes.retain(|a| used.contains(&a.id));
    }
    Ok(graph)
}

/// The chip a scheduled function was scheduled for (`ascir.target`, `ascir.ub_bytes`,
/// `ascir.cores`), or `None` for a function the schedule did not record.
pub fn chip_of(func: &OperationRef) -> Option<Result<ChipProfile, String>> {
    let attrs = extract::read_attributes(func);
    let target = attrs
        .get("ascir.target")
        .and_then(AttrValue::as_str)?
        .to_string();
    let ub = attrs
        .get("ascir.ub_bytes")
        .and_then(AttrValue::as_int)
        .unwrap_or(0);
    let cores = attrs
        .get("ascir.cores")
        .and_then(AttrValue::as_int)
        .unwrap_or(0);
    Some(
        ChipProfile::lookup(&target)
            .and_then(|c| c.with_overrides(ub.max(0) as u64, cores.max(0) as u64)),
    )
}

/// One `tiling.*` record: its op name and attributes.
pub type Record = (String, std::collections::BTreeMap<String, AttrValue>);

/// The `tiling.*` records of every kernel of a module, read in one walk (callers that
/// handle many kernels must not walk the module once per kernel).
pub struct RecordIndex<'c, 'a> {
    by_kernel: std::collections::HashMap<String, Vec<(Record, OperationRef<'c, 'a>)>>,
}

impl<'c, 'a> RecordIndex<'c, 'a> {
    pub fn build(body: melior::ir::BlockRef<'c, 'a>) -> RecordIndex<'c, 'a> {
        use melior::ir::block::BlockLike;
        let mut by_kernel: std::collections::HashMap<String, Vec<_>> = Default::default();
        let mut next = body.first_operation();
        while let Some(op) = next {
            next = op.next_in_block();
            let name = op.name().as_string_ref().as_str().unwrap_or("").to_string();
            if !name.starts_with("tiling.") {
                continue;
            }
            let attrs = extract::read_attributes(&op);
            if let Some(kernel) = attrs.get("kernel").and_then(AttrValue::as_symbol) {
                by_kernel
                    .entry(kernel.to_string())
                    .or_default()
                    .push(((name, attrs.clone()), op));
            }
        }
        RecordIndex { by_kernel }
    }

    /// The records of kernel `kernel`, in module order.
    pub fn records(&self, kernel: &str) -> Vec<Record> {
        self.by_kernel
            .get(kernel)
            .map(|list| list.iter().map(|(record, _)| record.clone()).collect())
            .unwrap_or_default()
    }

    /// The last op of kernel `kernel`'s records (or `func`, the kernel function, when it
    /// has none), where new records of that kernel go.
    pub fn anchor(&self, func: OperationRef<'c, 'a>, kernel: &str) -> OperationRef<'c, 'a> {
        self.by_kernel
            .get(kernel)
            .and_then(|list| list.last())
            .map(|(_, op)| *op)
            .unwrap_or(func)
    }
}

/// Where diagnostics about a kernel point: its first node, which carries the location of
/// the (first) source op, or the function when it has no body.
pub fn kernel_location<'c, 'a>(func: &OperationRef<'c, 'a>) -> melior::ir::Location<'c> {
    use melior::ir::{block::BlockLike, RegionLike};
    func.region(0)
        .ok()
        .and_then(|r| r.first_block())
        .and_then(|b| b.first_operation())
        .map(|op| op.location())
        .unwrap_or_else(|| func.location())
}

/// The form attribute of a function ("hint", "impl", or "" when absent).
pub fn form_of(func: &OperationRef) -> String {
    extract::read_attributes(func)
        .get("ascir.form")
        .and_then(AttrValue::as_str)
        .unwrap_or("")
        .to_string()
}

fn run(module: OperationRef, options: &PassOptions) -> Result<(), ()> {
    let chip = diagnostics::or_error(module.location(), chip_from_options(options))?;
    let body = extract::module_body(module).ok_or(())?;
    let (mut scheduled, mut kept) = (0u64, 0u64);
    let mut ok = true;
    // 1. Read every hint-form kernel (IR access stays on this thread).
    let mut kernels = Vec::new();
    for func in extract::functions(body) {
        if !func.has_attribute("ascir.axes") || form_of(&func) == "impl" {
            continue;
        }
        let name = extract::function_name(&func);
        kernels.push((func, name, read_ascgraph(&func)));
    }
    // 2. Schedule them on the context's threads.
    let graphs: Vec<Option<&AscGraph>> = kernels.iter().map(|(_, _, g)| g.as_ref().ok()).collect();
    let planned = parallel::map(raw::thread_count(&module), &graphs, |graph| {
        graph.map(|graph| {
            Schedule::build(graph, &chip).map(|schedule| {
                let records = schedule.records(&Schedule::operands_of(graph));
                (schedule, records)
            })
        })
    });
    // 3. Record them and report, in module order.
    for ((func, name, graph), planned) in kernels.iter().zip(planned) {
        // A kernel is planned exactly when it was read.
        let (Ok(graph), Some(planned)) = (graph, planned) else {
            let e = graph.as_ref().err().map_or("not read", String::as_str);
            diagnostics::error(func.location(), format!("AscGraph @{name}: {e}"));
            ok = false;
            continue;
        };
        let (schedule, records) = match planned {
            Ok(planned) => planned,
            Err(reason) => {
                kept += 1;
                diagnostics::remark(
                    kernel_location(func),
                    format!("AF-SC001 @{name} stays in hint form: {reason}"),
                );
                continue;
            }
        };
        if write_records(func, graph, &schedule, &records, &chip).is_err() {
            diagnostics::error(
                func.location(),
                format!("internal error: cannot record the schedule of @{name}"),
            );
            ok = false;
            continue;
        }
        scheduled += 1;
    }
    statistics::add(
        PASS.argument,
        "scheduled",
        "Number of kernels scheduled",
        scheduled,
    );
    statistics::add(
        PASS.argument,
        "kept",
        "Number of kernels left in hint form",
        kept,
    );
    if ok {
        Ok(())
    } else {
        Err(())
    }
}

fn write_records<'c, 'a>(
    func: &OperationRef<'c, 'a>,
    graph: &AscGraph,
    schedule: &Schedule,
    records: &ScheduleRecords,
    chip: &ChipProfile,
) -> Result<(), ()> {
    // ascir.axes: the hint axes, then merged, tile and block axes.
    let mut axes: Vec<String> = graph
        .axes
        .iter()
        .map(|a| {
            let from: Vec<String> = a.from.iter().map(i64::to_string).collect();
            format!(
                "#ascir.axis<{}, {}, {}, {}, [{}]>",
                a.id,
                quote(&a.name),
                quote(&a.size.to_string()),
                quote(a.kind.name()),
                from.join(", ")
            )
        })
        .collect();
    axes.extend(records.axes.iter().cloned());
    let set = |name: &str, text: String| -> Result<(), ()> {
        if raw::set_attribute_text(func, name, &text) {
            Ok(())
        } else {
            Err(())
        }
    };
    set("ascir.axes", format!("[{}]", axes.join(", ")))?;
    set("ascir.form", quote("impl"))?;
    set("ascir.target", quote(chip.name))?;
    set("ascir.ub_bytes", format!("{} : i64", chip.ub_usable))?;
    set("ascir.cores", format!("{} : i64", chip.vector_cores))?;
    let extracted = extract::extract_function(*func).ok_or(())?;
    for (n, op) in extracted.ops.iter().enumerate() {
        for (k, v) in schedule.node_attrs(n) {
            if !raw::set_attribute_text(op, &k, &v) {
                return Err(());
            }
        }
    }
    let text = records.lines.join("\n");
    if !insert_records_after(*func, &text, "<schedule>") {
        return Err(());
    }
    Ok(())
}

/// Parses `text` (records) and places the ops right after `anchor` in the module body,
/// in order, so that each kernel's records follow it (readable, and FileCheck labels
/// work). False if the text does not parse.
pub fn insert_records_after<'c, 'a>(
    anchor: OperationRef<'c, 'a>,
    text: &str,
    source_name: &str,
) -> bool {
    raw::insert_parsed_after(&anchor, text, source_name)
}
