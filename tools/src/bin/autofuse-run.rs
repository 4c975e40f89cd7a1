//! `autofuse-run`: compiles an `ascend` graph end to end and runs it on the CPU
//! emulation of Ascend C, checking the result against the reference interpreter.
//!
//! Steps: the pipeline `infer-symbolic-shapes,decompose,lower-to-ascir[,fuse],schedule,
//! auto-tiling`; translation of every scheduled kernel to Ascend C (written to `--out`
//! when given); one g++ build of all kernels and their host tiling functions against
//! `sim/include` (cached by content hash in `$AUTOFUSE_CACHE_DIR` or
//! `target/autofuse-cache`); execution of the entry graph for every `--symbols` set
//! (kernels on the emulation, boundary ops and unscheduled kernels by the interpreters);
//! comparison of every output with the Ascend IR interpreter (dtype-aware tolerance).
//!
//! The summary lists kernels, GM bytes measured by the emulation against the unfused
//! graph and the minimum, the largest error, and PASS or FAIL. `--report-json FILE`
//! writes the same figures as JSON (per shape run: every kernel in program order, the
//! emulated ones with their measured traffic, boundary ops and interpreted kernels with
//! their operand + result bytes, and the totals), so benchmarks need not scrape the text.
//! `--vendor-headers ROOT` (or `$AUTOFUSE_VENDOR_HEADERS`) also builds every kernel
//! against the vendor's Ascend C headers over autofuse's ISA model (`sim/vendor`), runs
//! each shape there too and compares it with the interpreter and with the emulation
//! (`vendor path: ...` lines, and per run `"vendor": {kernels_run, max_error, vs_sim,
//! error, pass}` in `--report-json`, `null` without it; a compile error names kernel,
//! line and API).
//! Exit codes: 0 PASS, 1 FAIL or errors, 2 command-line misuse.

use autofuse::ascendc::{self, KernelInput};
use autofuse::comparison;
use autofuse::runner::symbols;
use autofuse::runner::vendor::{self, VendorHeaders};
use autofuse::runner::{self as run, RunOptions};
use autofuse_ir::attr::AttrValue;
use autofuse_ir::graph::{Dim, TensorType};
use autofuse_ir::tensor::Tensor;
use autofuse_mlir::context::create_context;
use autofuse_tools::input;
use autofuse_tools::output::{self, Failure};
use autofuse_tools::progress::Progress;
use clap::{Arg, ArgAction, Command};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

fn command() -> Command {
    Command::new("autofuse-run")
        .about("Compile an ascend graph, run its kernels on the Ascend C CPU emulation, compare with the interpreter")
        .arg(Arg::new("input").required(true).help("An ascend graph (.mlir), or an ONNX model (.onnx), imported first"))
        .arg(
            Arg::new("symbols")
                .long("symbols")
                .action(ArgAction::Append)
                .help("Symbol values, e.g. s0=4,s1=128: every symbol of the entry graph once (see --list-symbols); repeat to run several shapes with one compile (without --symbols and input files: every symbol 4)"),
        )
        .arg(
            Arg::new("list-symbols")
                .long("list-symbols")
                .action(ArgAction::SetTrue)
                .help("Print the symbols of the entry graph (after infer-symbolic-shapes), one per line, and exit"),
        )
        .arg(
            Arg::new("input-npy")
                .long("input")
                .action(ArgAction::Append)
                .help("An input as .npy (repeat per argument); default: seeded random"),
        )
        .arg(
            Arg::new("inputs")
                .long("inputs")
                .action(ArgAction::Append)
                .value_name("A.npy,B.npy")
                .help("One run's inputs as comma-separated .npy files; repeat to run several shapes with one compile"),
        )
        .arg(
            Arg::new("expect")
                .long("expect")
                .action(ArgAction::Append)
                .value_name("O.npy,...")
                .help("Expected outputs of the matching run (e.g. onnxruntime's), compared with f32 tolerance besides the interpreter"),
        )
        .arg(Arg::new("seed").long("seed").default_value("0").value_parser(clap::value_parser!(u64)))
        .arg(Arg::new("entry").long("entry").help("Graph function to run (default: the first)"))
        .arg(Arg::new("target").long("target").default_value("ascend910b").help("Chip profile"))
        .arg(
            Arg::new("ub-bytes")
                .long("ub-bytes")
                .default_value("0")
                .value_parser(clap::value_parser!(u64))
                .help("Usable UB bytes (0 = the profile's)"),
        )
        .arg(
            Arg::new("cores")
                .long("cores")
                .default_value("0")
                .value_parser(clap::value_parser!(u64))
                .help("Vector cores (0 = the profile's)"),
        )
        .arg(Arg::new("no-fuse").long("no-fuse").action(ArgAction::SetTrue).help("Skip --fuse"))
        .arg(
            Arg::new("no-group-launches")
                .long("no-group-launches")
                .action(ArgAction::SetTrue)
                .help("Skip --group-launches: every kernel is its own launch"),
        )
        .arg(Arg::new("out").long("out").help("Write the generated Ascend C sources into this directory"))
        .arg(Arg::new("cache-dir").long("cache-dir").help("Build cache (default $AUTOFUSE_CACHE_DIR or target/autofuse-cache)"))
        .arg(Arg::new("output-dir").long("output-dir").help("Write the outputs as out<N>.npy"))
        .arg(
            Arg::new("vendor-headers")
                .long("vendor-headers")
                .value_name("ROOT")
                .help("Also check, build and run every kernel against the vendor's Ascend C headers (a CANN installation or a folder holding ascendc/include; default $AUTOFUSE_VENDOR_HEADERS)"),
        )
        .arg(
            Arg::new("no-sync-check")
                .long("no-sync-check")
                .action(ArgAction::SetTrue)
                .help("Do not stop a launch whose pipes race (an access no flag, queue or barrier orders); also AUTOFUSE_SYNC_CHECK=0"),
        )
        .arg(
            Arg::new("trace")
                .long("trace")
                .value_name("FILE")
                .help("Write the emulated launches' pipe timelines as one Chrome trace-event JSON (open in Perfetto)"),
        )
        .arg(
            Arg::new("trace-svg")
                .long("trace-svg")
                .value_name("FILE")
                .help("Draw the pipe timeline of the first cores as SVG"),
        )
        .arg(
            Arg::new("verbose")
                .short('v')
                .long("verbose")
                .action(ArgAction::SetTrue)
                .help("Print the full log: pipeline, build, every kernel and launch, per launch its blocks, GM bytes and pipe line, notes, the vendor path (without it: one table row per shape)"),
        )
        .arg(
            Arg::new("quiet")
                .short('q')
                .long("quiet")
                .action(ArgAction::SetTrue)
                .conflicts_with("verbose")
                .help("Print only the verdict line (== PASS or == FAIL) and errors, no progress: for scripts"),
        )
        .arg(
            Arg::new("dump-fusion")
                .long("dump-fusion")
                .value_name("DIR")
                .help("Draw the graph after --fuse in DIR as DOT and SVG (one colour per kernel, boundary ops and interpreted kernels marked, every unfused edge labelled with its reason code), each kernel's AscGraph, and summary.txt"),
        )
        .arg(
            Arg::new("report-json")
                .long("report-json")
                .value_name("FILE")
                .help("Write kernels, GM bytes (measured, unfused, minimum) and PASS/FAIL per shape run as JSON"),
        )
}

fn main() -> ExitCode {
    let matches = match autofuse_tools::input::parse_command_line(command()) {
        Ok(m) => m,
        Err(code) => return code,
    };
    match run_main(&matches) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(failure) => failure.report("autofuse-run"),
    }
}

/// Bytes of a value of type `ty` under `symbols` (0 when a dim is unknown).
fn bytes_of(ty: &TensorType, symbols: &HashMap<String, i64>) -> u64 {
    let mut n: u64 = 1;
    for d in &ty.dims {
        match d {
            Dim::Known(e) => n = n.saturating_mul(e.eval_map(symbols).unwrap_or(0).max(0) as u64),
            Dim::Unknown => return 0,
        }
    }
    n.saturating_mul(ty.dtype.bytes() as u64)
}

/// The largest difference of `actual` from `expected` over every output (finite pairs),
/// whether all of them match (see `autofuse::comparison`), and why not.
fn max_error(expected: &[Tensor], actual: &[Tensor]) -> (f64, bool, Vec<String>) {
    let c = comparison::compare_outputs(expected, actual, &|_| String::new());
    (c.max_error, c.passed(), c.failures)
}

/// The verdict of a comparison: `max error X: PASS`, or a failure that says it counts
/// finite values only and how many outputs differ (listed on their own lines).
fn verdict(worst: f64, ok: bool, failures: usize) -> String {
    comparison::OutputsComparison {
        max_error: worst,
        failures: vec![String::new(); if ok { 0 } else { failures.max(1) }],
    }
    .verdict()
}

/// A JSON string literal.
fn json_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn json_opt(v: Option<u64>) -> String {
    v.map(|v| v.to_string()).unwrap_or_else(|| "null".into())
}

/// One kernel a graph run executes, for `--report-json`.
struct KernelRecord {
    name: String,
    /// "emulated" (GM traffic measured by the emulation), "interpreted" (a kernel the
    /// interpreter ran: no feasible tiling or not scheduled) or "boundary" (an `ascend`
    /// op left outside every kernel, including one-op kernels lifted back, which runs as
    /// a library kernel on the device).
    kind: &'static str,
    ops: Vec<String>,
    blocks: Option<u64>,
    gm_read: u64,
    gm_written: u64,
    ub_peak: Option<u64>,
    /// The kernel's own minimum: its distinct operands and its results, each once.
    minimum: u64,
    /// Loop kernels the record runs: the groups of a multi-group launch, else 1.
    groups: usize,
    /// The same with every core's copy of what it reads: the distinct bytes each block
    /// read (summed over the blocks of the launch) and the results once. Operands that
    /// every block needs (broadcast tables, biases) count once per block, as the chip
    /// must fetch them; re-reads within a block do not count.
    per_core_minimum: u64,
}

/// Ops that only reinterpret a buffer (no data moves on the device), and constants,
/// which are not launched.
fn is_free(op: &str) -> bool {
    matches!(
        op,
        "ascend.constant"
            | "ascend.parameter"
            | "ascend.symbolic_constant"
            | "ascend.reshape"
            | "ascend.squeeze"
            | "ascend.unsqueeze"
            | "func.return"
    )
}

/// Every kernel a run of `entry` launched, in program order. Emulated kernel calls are
/// matched with the launches in order; anything else that computes (boundary ops, lifted
/// ops, kernels the interpreter ran, calls of other graph functions) is counted with the
/// bytes of its distinct operands and its results, which is what such a kernel moves at
/// least, since the emulation cannot measure it.
fn run_kernels(
    module: &run::PreparedModule,
    entry: &str,
    inputs: &[Tensor],
    launches: &[run::Launch],
) -> Result<Vec<KernelRecord>, String> {
    let graph = module
        .program
        .graphs
        .get(entry)
        .ok_or_else(|| format!("no graph function @{entry}"))?;
    let symbols =
        autofuse_ascend::interp::bind_symbols(graph, inputs).map_err(|e| e.to_string())?;
    let mut pending = launches.iter().peekable();
    let mut records = Vec::new();
    for node in &graph.nodes {
        if is_free(&node.op) {
            continue;
        }
        let callee = (node.op == "func.call")
            .then(|| node.attr("callee").and_then(AttrValue::as_symbol))
            .flatten();
        let mut operands: Vec<usize> = node.operands.clone();
        operands.sort_unstable();
        operands.dedup();
        let size = |values: &[usize]| -> u64 {
            values
                .iter()
                .filter_map(|&v| graph.ty(v))
                .map(|t| bytes_of(t, &symbols))
                .sum()
        };
        let mut minimum = size(&operands) + size(&node.results);
        if let Some(k) = callee.and_then(|c| module.kernels.get(c)) {
            for (j, &value) in node.operands.iter().enumerate() {
                if let Some(rows) = read_bytes(&k.graph, j, &symbols) {
                    let whole = graph.ty(value).map(|t| bytes_of(t, &symbols)).unwrap_or(0);
                    if operands.contains(&value) && rows < whole {
                        minimum -= whole - rows;
                    }
                }
            }
        }
        if let Some(launch) = callee.and_then(|c| module.launches.get(c)) {
            if let Some(l) = pending.next_if(|l| l.kernel == launch.name) {
                // Each group moves its own distinct operands and results once; a value
                // one group writes and a later one reads makes its GM round trip.
                use autofuse::ascendc::launch::Buffer;
                let w = &launch.wiring;
                let bytes = |b: &Buffer| -> u64 {
                    let ty = match *b {
                        Buffer::Input(i) => w.inputs.get(i),
                        Buffer::Output(i) => w.outputs.get(i),
                        Buffer::Workspace(i) => w.workspace.get(i),
                    };
                    ty.map(|t| bytes_of(t, &symbols)).unwrap_or(0)
                };
                let mut group_minimum = 0;
                let mut written = 0;
                for (kernel, reads, writes) in &w.groups {
                    let mut distinct: Vec<&Buffer> = Vec::new();
                    for (j, b) in reads.iter().enumerate() {
                        if distinct.contains(&b) {
                            continue;
                        }
                        distinct.push(b);
                        let whole = bytes(b);
                        let needed = module
                            .kernels
                            .get(kernel)
                            .and_then(|k| read_bytes(&k.graph, j, &symbols))
                            .map_or(whole, |rows| rows.min(whole));
                        group_minimum += needed;
                    }
                    let out: u64 = writes.iter().map(bytes).sum();
                    group_minimum += out;
                    written += out;
                }
                records.push(KernelRecord {
                    name: launch.name.clone(),
                    kind: "emulated",
                    ops: launch
                        .groups
                        .iter()
                        .filter_map(|k| module.kernels.get(k))
                        .flat_map(|k| k.graph.source_ops.clone())
                        .collect(),
                    blocks: Some(l.blocks),
                    gm_read: l.gm_read,
                    gm_written: l.gm_written,
                    ub_peak: Some(l.ub_peak),
                    minimum: group_minimum,
                    groups: launch.groups.len(),
                    per_core_minimum: l.gm_read_per_core + written,
                });
                continue;
            }
        }
        if let Some(k) = callee.and_then(|c| module.kernels.get(c)) {
            if let Some(l) = pending.next_if(|l| l.kernel == k.name) {
                records.push(KernelRecord {
                    name: k.name.clone(),
                    kind: "emulated",
                    ops: k.graph.source_ops.clone(),
                    blocks: Some(l.blocks),
                    gm_read: l.gm_read,
                    gm_written: l.gm_written,
                    ub_peak: Some(l.ub_peak),
                    minimum,
                    groups: 1,
                    per_core_minimum: l.gm_read_per_core + size(&node.results),
                });
                continue;
            }
        }
        // A launch the emulation declined runs its groups on the interpreter.
        let groups = callee
            .and_then(|c| module.launches.get(c))
            .map_or(1, |l| l.groups.len());
        let (name, kind, ops) = match callee {
            Some(c) if module.launches.contains_key(c) => {
                let ops = module.launches[c]
                    .groups
                    .iter()
                    .filter_map(|k| module.kernels.get(k))
                    .flat_map(|k| k.graph.source_ops.clone())
                    .collect();
                (c.to_string(), "interpreted", ops)
            }
            Some(c) if module.program.kernels.contains_key(c) => {
                let ops = module
                    .kernels
                    .get(c)
                    .map(|k| k.graph.source_ops.clone())
                    .unwrap_or_default();
                (c.to_string(), "interpreted", ops)
            }
            Some(c) => (c.to_string(), "boundary", vec![format!("call @{c}")]),
            None => (node.op.clone(), "boundary", vec![node.op.clone()]),
        };
        records.push(KernelRecord {
            name,
            kind,
            ops,
            blocks: None,
            gm_read: size(&operands),
            gm_written: size(&node.results),
            ub_peak: None,
            minimum,
            groups,
            per_core_minimum: minimum,
        });
    }
    Ok(records)
}

/// The bytes of kernel input `input` a kernel must read at least: a table only gathers
/// read needs no more than the rows they pick; an input read only through views (a
/// slice: offsets and strides) needs only the elements its loads take (the repeats of
/// the axes a load does not broadcast; several loads are summed). `None` when the kernel reads the input otherwise; callers cap the result at
/// the whole tensor.
fn read_bytes(
    graph: &autofuse_ascir::graph::AscGraph,
    input: usize,
    symbols: &HashMap<String, i64>,
) -> Option<u64> {
    let tables: Vec<usize> = (0..graph.nodes.len())
        .filter(|&n| graph.nodes[n].op == "data" && graph.nodes[n].index == Some(input))
        .collect();
    let readers: Vec<&autofuse_ascir::graph::AscNode> = graph
        .nodes
        .iter()
        .filter(|x| x.operands.iter().any(|o| tables.contains(o)))
        .collect();
    if tables.is_empty() || readers.is_empty() {
        return None;
    }
    let elements = |view: &autofuse_ascir::graph::View, broadcast_too: bool| -> Option<u64> {
        let mut n = 1u64;
        for (r, stride) in view.repeats.iter().zip(&view.strides) {
            if broadcast_too || stride.as_const() != Some(0) {
                n = n.saturating_mul(r.eval_map(symbols).ok()?.max(0) as u64);
            }
        }
        Some(n)
    };
    let mut total = 0u64;
    if readers.iter().all(|x| x.op == "gather") {
        for gather in readers {
            total += elements(&gather.view, true)? * gather.dtype.bytes() as u64;
        }
    } else if readers.iter().all(|x| x.op == "load") {
        for load in readers {
            total += elements(&load.view, false)? * load.dtype.bytes() as u64;
        }
    } else {
        return None;
    }
    Some(total)
}

/// The JSON object of one shape run.
#[allow(clippy::too_many_arguments)]
fn run_json(
    symbols: &HashMap<String, i64>,
    inputs: &[Tensor],
    kernels: &[KernelRecord],
    traffic: Option<&run::Traffic>,
    max_error: Option<f64>,
    notes: &[String],
    error: Option<&str>,
    vendor: &str,
    pass: bool,
) -> String {
    let mut syms: Vec<(&String, &i64)> = symbols.iter().collect();
    syms.sort();
    let syms: Vec<String> = syms
        .iter()
        .map(|(k, v)| format!("{}: {v}", json_str(k)))
        .collect();
    let shapes: Vec<String> = inputs
        .iter()
        .map(|t| {
            let dims: Vec<String> = t.shape.iter().map(usize::to_string).collect();
            format!("[{}]", dims.join(", "))
        })
        .collect();
    let dtypes: Vec<String> = inputs
        .iter()
        .map(|t| json_str(t.dtype.mlir_name()))
        .collect();
    let list: Vec<String> = kernels
        .iter()
        .map(|k| {
            let ops: Vec<String> = k.ops.iter().map(|o| json_str(o)).collect();
            format!(
                "        {{\"name\": {}, \"kind\": \"{}\", \"ops\": [{}], \"blocks\": {}, \"gm_read\": {}, \"gm_written\": {}, \"minimum\": {}, \"per_core_minimum\": {}, \"ub_peak\": {}}}",
                json_str(&k.name),
                k.kind,
                ops.join(", "),
                json_opt(k.blocks),
                k.gm_read,
                k.gm_written,
                k.minimum,
                k.per_core_minimum,
                json_opt(k.ub_peak)
            )
        })
        .collect();
    let not_measured: u64 = kernels
        .iter()
        .filter(|k| k.kind != "emulated")
        .map(|k| k.gm_read + k.gm_written)
        .sum();
    let (kernels_minimum, per_core_minimum) = emulated_minimums(kernels);
    let gm = match traffic {
        Some(t) => format!(
            "{{\"measured\": {}, \"not_measured\": {not_measured}, \"total\": {}, \"unfused\": {}, \"minimum\": {}, \"kernels_minimum\": {kernels_minimum}, \"kernels_per_core_minimum\": {per_core_minimum}}}",
            t.measured,
            t.measured + not_measured,
            t.unfused,
            t.minimum
        ),
        None => "null".into(),
    };
    let notes: Vec<String> = notes.iter().map(|n| json_str(n)).collect();
    format!(
        "    {{\n      \"symbols\": {{{}}},\n      \"inputs\": [{}],\n      \"input_dtypes\": [{}],\n      \"kernels\": [\n{}\n      ],\n      \"kernel_count\": {},\n      \"gm_bytes\": {gm},\n      \"max_error\": {},\n      \"vendor\": {vendor},\n      \"notes\": [{}],\n      \"error\": {},\n      \"pass\": {pass}\n    }}",
        syms.join(", "),
        shapes.join(", "),
        dtypes.join(", "),
        list.join(",\n"),
        kernels.len(),
        max_error
            .filter(|e| e.is_finite())
            .map(|e| format!("{e:e}"))
            .unwrap_or_else(|| "null".into()),
        notes.join(", "),
        error.map(json_str).unwrap_or_else(|| "null".into()),
    )
}

/// The emulated kernels' own minimum and the same with per-core copies (the figures
/// their measured GM bytes compare with).
fn emulated_minimums(kernels: &[KernelRecord]) -> (u64, u64) {
    kernels
        .iter()
        .filter(|k| k.kind == "emulated")
        .fold((0, 0), |(own, per_core), k| {
            (own + k.minimum, per_core + k.per_core_minimum)
        })
}

/// One shape run: its symbols, its input files and its expected outputs.
type RunSpec = (HashMap<String, i64>, Vec<String>, Vec<String>);

/// Compares a run's outputs with expected ones read from .npy files (e.g. onnxruntime's)
/// by `autofuse::comparison` (the f32 tolerance and IEEE non-finite semantics).
fn compare_expected(
    files: &[String],
    outputs: &[Tensor],
) -> Result<(String, comparison::OutputsComparison), String> {
    if files.len() != outputs.len() {
        return Err(format!(
            "{} expected outputs for a graph with {} outputs",
            files.len(),
            outputs.len()
        ));
    }
    let mut expected = Vec::new();
    for (file, actual) in files.iter().zip(outputs) {
        expected.push(Tensor::read_npy_as(file, actual.dtype).map_err(|e| format!("{file}: {e}"))?);
    }
    let c = comparison::compare_outputs(&expected, outputs, &|i| format!(" from {}", files[i]));
    let mut line = format!("   vs expected outputs: {}", c.verdict());
    for f in &c.failures {
        line.push_str(&format!("\n   {f}"));
    }
    Ok((line, c))
}

/// What a model's runs launched, for the closing summary line: kernels by kind and GM
/// bytes of the emulated kernels against their own minimum, over every run.
#[derive(Default)]
struct ModelSummary {
    runs: usize,
    /// Device launches (a multi-group launch counts once) and the loop kernels in them.
    launches: usize,
    kernels: usize,
    interpreted: usize,
    boundary: usize,
    measured: u64,
    minimum: u64,
    per_core_minimum: u64,
}

impl ModelSummary {
    fn add(&mut self, records: &[KernelRecord]) {
        self.runs += 1;
        // Launch counts are per run; the first run's stand for the model.
        if self.runs == 1 {
            let launched = || records.iter().filter(|k| k.kind != "boundary");
            self.launches = launched().count();
            self.kernels = launched().map(|k| k.groups).sum();
            self.interpreted = records
                .iter()
                .filter(|k| k.kind == "interpreted")
                .map(|k| k.groups)
                .sum();
            self.boundary = records.iter().filter(|k| k.kind == "boundary").count();
        }
        for k in records.iter().filter(|k| k.kind == "emulated") {
            self.measured += k.gm_read + k.gm_written;
            self.minimum += k.minimum;
            self.per_core_minimum += k.per_core_minimum;
        }
    }

    fn render(&self, onnx_nodes: Option<usize>) -> Option<String> {
        if self.runs == 0 {
            return None;
        }
        let nodes = onnx_nodes
            .map(|n| format!("{n} ONNX nodes | "))
            .unwrap_or_default();
        let ratio = |minimum: u64| {
            if minimum > 0 {
                format!(" ({:.3}x)", self.measured as f64 / minimum as f64)
            } else {
                String::new()
            }
        };
        Some(format!(
            "model: {nodes}{} kernels{} ({} left to the interpreter) | {} boundary ops | GM bytes of the emulated kernels {} vs their own minimum {}{} over {} run(s) | with per-core copies {}{}",
            self.kernels,
            if self.launches == self.kernels {
                String::new()
            } else {
                format!(" in {} launch(es)", self.launches)
            },
            self.interpreted,
            self.boundary,
            run::human_bytes(self.measured),
            run::human_bytes(self.minimum),
            ratio(self.minimum),
            self.runs,
            run::human_bytes(self.per_core_minimum),
            ratio(self.per_core_minimum)
        ))
    }
}

/// `--list-symbols`: the entry graph's symbols after `infer-symbolic-shapes`.
fn list_symbols(
    matches: &clap::ArgMatches,
    text: &[u8],
    path: &str,
) -> Result<Vec<String>, Failure> {
    let context = create_context();
    let mut module = input::load_module(&context, text, path)?;
    run::run_pipeline_keep(&mut module, "infer-symbolic-shapes")?;
    let program = autofuse::runner::execute::Program::from_module(module.body())?;
    let entry = match matches.get_one::<String>("entry") {
        Some(e) => e.clone(),
        None => program
            .default_entry()
            .ok_or("the module has no graph function")?
            .to_string(),
    };
    Ok(symbols::graph_symbols(program.graph(&entry)?))
}

fn run_main(matches: &clap::ArgMatches) -> Result<bool, Failure> {
    let path = matches
        .get_one::<String>("input")
        .cloned()
        .unwrap_or_default();
    let verbose = matches.get_flag("verbose");
    let quiet = matches.get_flag("quiet");
    let progress = Progress::new("autofuse-run", quiet || matches.get_flag("list-symbols"));
    let onnx_nodes;
    let text = if path.ends_with(".onnx") {
        let imported = progress
            .step(&format!("importing {path}"), || {
                autofuse::onnx::import_file(Path::new(&path))
            })
            .map_err(|e| format!("{path}: {e}"))?;
        onnx_nodes = Some(imported.summary.nodes);
        imported.mlir.into_bytes()
    } else {
        onnx_nodes = None;
        // Bytes as they are: MLIR's parser decides (as in autofuse-opt).
        input::read_input(&path)?
    };
    if matches.get_flag("list-symbols") {
        let mut listing = String::new();
        for name in list_symbols(matches, &text, &path)? {
            let _ = writeln!(listing, "{name}");
        }
        output::write_stdout(listing.as_bytes())?;
        return Ok(true);
    }
    let repo = run::repo_root();
    let mut options = RunOptions::new(&repo);
    options.target = matches
        .get_one::<String>("target")
        .cloned()
        .unwrap_or_default();
    options.ub_bytes = *matches.get_one::<u64>("ub-bytes").unwrap_or(&0);
    options.cores = *matches.get_one::<u64>("cores").unwrap_or(&0);
    options.fuse = !matches.get_flag("no-fuse");
    options.group_launches = !matches.get_flag("no-group-launches");
    if let Some(dir) = matches.get_one::<String>("cache-dir") {
        options.cache_dir = PathBuf::from(dir);
    }
    // Weight paths in the IR are relative to the IR file's (or the model's) directory.
    options.weights_dir = (path != "-")
        .then(|| Path::new(&path).parent().map(Path::to_path_buf))
        .flatten()
        .filter(|p| !p.as_os_str().is_empty());
    let context = create_context();
    let module = progress.step(
        "compiling (symbolic shapes, decompose, lower-to-ascir, fuse, schedule, tiling)",
        || run::prepare_module(&context, &text, &path, &options),
    )?;
    if let Some(dir) = matches.get_one::<String>("dump-fusion") {
        let dump = progress.step(&format!("drawing the fusion in {dir}"), || {
            autofuse::runner::dump_fusion::dump_fusion(
                &context,
                &text,
                &path,
                &options,
                Path::new(dir),
            )
        })?;
        if !dump.svg {
            eprintln!("autofuse-run: warning: --dump-fusion wrote DOT only: Graphviz's dot is not on PATH (scripts/setup.sh installs graphviz)");
        }
    }
    let entry = match matches.get_one::<String>("entry") {
        Some(e) => e.clone(),
        None => module
            .reference
            .default_entry()
            .ok_or("the module has no graph function")?
            .to_string(),
    };
    let mut out = String::new();
    let _ = writeln!(
        out,
        "== autofuse-run {path} (@{entry}, target {}, pipeline {})",
        module.chip.name,
        options.pipeline()
    );

    // Shapes to run, checked before anything is built (command-line misuse: exit 2).
    let graph = module.reference.graph(&entry)?;
    let single: Vec<String> = matches
        .get_many::<String>("input-npy")
        .map(|v| v.cloned().collect())
        .unwrap_or_default();
    let split = |list: &String| -> Vec<String> {
        list.split(',')
            .filter(|f| !f.is_empty())
            .map(str::to_string)
            .collect()
    };
    let mut input_sets: Vec<Vec<String>> = matches
        .get_many::<String>("inputs")
        .map(|v| v.map(split).collect())
        .unwrap_or_default();
    if !single.is_empty() {
        if !input_sets.is_empty() {
            return Err(Failure::Usage(
                "give inputs either by --input or by --inputs, not both".into(),
            ));
        }
        input_sets.push(single);
    }
    let expect_sets: Vec<Vec<String>> = matches
        .get_many::<String>("expect")
        .map(|v| v.map(split).collect())
        .unwrap_or_default();
    if !expect_sets.is_empty() && expect_sets.len() != input_sets.len() {
        return Err(Failure::Usage(format!(
            "{} --expect sets for {} input sets: give one per run",
            expect_sets.len(),
            input_sets.len()
        )));
    }
    // Each run: its symbols (none when inputs are files: their shapes bind the
    // symbols), its input files and its expected outputs.
    // `--symbols` goes through the shared layer: every symbol of the entry graph once
    // (or derived by its guards from given ones), nothing else.
    let known = symbols::graph_symbols(graph);
    let complete = |values: &mut HashMap<String, i64>| module.complete_symbols(&entry, values);
    let runs: Vec<RunSpec> = if input_sets.is_empty() {
        match matches.get_many::<String>("symbols") {
            Some(list) => list
                .map(|s| symbols::bind(s, &known, &complete).map(|v| (v, Vec::new(), Vec::new())))
                .collect::<Result<_, _>>()
                .map_err(Failure::Usage)?,
            None => vec![(HashMap::new(), Vec::new(), Vec::new())],
        }
    } else {
        if matches.contains_id("symbols") {
            return Err(Failure::Usage(
                "--symbols and input files do not mix: the inputs' shapes bind the symbols".into(),
            ));
        }
        input_sets
            .into_iter()
            .enumerate()
            .map(|(i, files)| {
                let expect = expect_sets.get(i).cloned().unwrap_or_default();
                (HashMap::new(), files, expect)
            })
            .collect()
    };
    // Sources for the user.
    let mut staged_out: Option<output::StagedDir> = None;
    if let Some(dir) = matches.get_one::<String>("out") {
        let mut files = ascendc::shared_files();
        let grouped: std::collections::HashSet<&String> =
            module.launches.values().flat_map(|l| &l.groups).collect();
        let mut names: Vec<String> = module
            .kernels
            .keys()
            .filter(|k| !grouped.contains(k))
            .cloned()
            .collect();
        names.sort();
        let mut launch_names: Vec<&String> = module.launches.keys().collect();
        launch_names.sort();
        for name in launch_names {
            let l = &module.launches[name];
            let groups: Vec<ascendc::launch::LaunchGroup> = l
                .groups
                .iter()
                .map(|g| {
                    let k = &module.kernels[g];
                    ascendc::launch::LaunchGroup {
                        kernel: g.clone(),
                        input: KernelInput {
                            graph: &k.graph,
                            schedule: &k.schedule,
                            model: &k.model,
                            chip: &k.chip,
                            static_tiling: k.static_tiling.as_ref(),
                            source: &path,
                        },
                    }
                })
                .collect();
            let sources = ascendc::launch::translate_launch(&groups, &l.wiring, name, &path)?;
            for (f, c) in sources.files {
                files.push((format!("{name}/{f}"), c));
            }
        }
        let launch_dirs: Vec<String> = {
            let mut v: Vec<String> = module.launches.keys().cloned().collect();
            v.sort();
            v
        };
        for name in &names {
            let k = &module.kernels[name];
            let sources = ascendc::translate_kernel(
                &KernelInput {
                    graph: &k.graph,
                    schedule: &k.schedule,
                    model: &k.model,
                    chip: &k.chip,
                    static_tiling: k.static_tiling.as_ref(),
                    source: &path,
                },
                name,
            )?;
            for (f, c) in sources.files {
                files.push((format!("{name}/{f}"), c));
            }
        }
        let all: Vec<String> = launch_dirs.iter().chain(&names).cloned().collect();
        files.push(("CMakeLists.txt".into(), ascendc::top_cmake(&all)));
        // Staged in a temporary directory, renamed into place once the run completes:
        // an error on the way leaves no partial source tree.
        staged_out = Some(output::StagedDir::write(Path::new(dir), &files)?);
        let _ = writeln!(
            out,
            "sources: {dir}/ ({} kernels, {} launches of several loop groups, CMake for CANN in {dir}/CMakeLists.txt)",
            names.len(),
            launch_dirs.len()
        );
    }

    // Build once.
    let kernels: Vec<&run::PreparedKernel> = module.kernels.values().collect();
    let started = std::time::Instant::now();
    let build = progress.step(
        &format!("building {} kernel(s) with {}", kernels.len(), options.cxx),
        || run::build_module(&module, &options, &run::Toolchain::sim(&options)),
    )?;
    let _ = writeln!(
        out,
        "build: {} kernel(s) {} ({:.1} s)",
        kernels.len(),
        if build.compiled {
            "compiled with g++ against sim/include"
        } else {
            "from the cache"
        },
        started.elapsed().as_secs_f64()
    );
    let builds = run::builds_for(&module, &build);
    let vendor_root = matches
        .get_one::<String>("vendor-headers")
        .cloned()
        .or_else(|| std::env::var(vendor::ENV).ok().filter(|s| !s.is_empty()));
    let vendor_builds = match vendor_root {
        None => None,
        Some(root) => {
            let headers = VendorHeaders::locate(Path::new(&root), &repo)?;
            let started = std::time::Instant::now();
            // One build compiles every kernel; only when it fails is each kernel compiled
            // on its own, to name the kernel, line and API of the first error.
            let vbuild = match run::build_module(&module, &options, &vendor::toolchain(&headers)) {
                Ok(b) => b,
                Err(e) => {
                    vendor::check_kernels(&kernels, &options, &headers).map_err(|c| {
                        format!("vendor headers ({}): {c}", headers.include.display())
                    })?;
                    return Err(format!("vendor path: {e}").into());
                }
            };
            let _ = writeln!(
                out,
                "vendor build: {} kernel(s) {} against {} ({:.1} s)",
                kernels.len(),
                if vbuild.compiled {
                    "compiled with g++ (CPU-debug, dav_c220)"
                } else {
                    "from the cache"
                },
                headers.include.display(),
                started.elapsed().as_secs_f64()
            );
            Some((run::builds_for(&module, &vbuild), vbuild))
        }
    };
    let mut names: Vec<&String> = module.kernels.keys().collect();
    names.sort();
    for name in names {
        let k = &module.kernels[name];
        let _ = writeln!(
            out,
            "  kernel {name}: ops {} | {} case(s) | {}",
            k.graph.source_ops.join(","),
            k.schedule.cases.len(),
            if k.static_tiling.is_some() {
                "static tiling"
            } else {
                "dynamic tiling"
            }
        );
    }
    let mut launch_names: Vec<&String> = module.launches.keys().collect();
    launch_names.sort();
    for name in launch_names {
        let l = &module.launches[name];
        let _ = writeln!(
            out,
            "  launch {name}: {} loop groups ({}) | {} cross-core barrier(s) | {} workspace value(s)",
            l.groups.len(),
            l.groups.join(", "),
            l.wiring.waits.iter().filter(|&&w| w).count(),
            l.wiring.workspace.len()
        );
    }
    for (name, why) in &module.interpreted {
        let _ = writeln!(out, "  kernel {name}: interpreted ({why})");
    }

    let seed = *matches.get_one::<u64>("seed").unwrap_or(&0);
    let trace_dir = (matches.contains_id("trace") || matches.contains_id("trace-svg"))
        .then(|| std::env::temp_dir().join(format!("autofuse-trace-{}", std::process::id())));
    if let Some(dir) = &trace_dir {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let mut traces: Vec<run::trace::LaunchTrace> = Vec::new();
    if matches.get_flag("no-sync-check") {
        run::set_sync_check(false);
    }
    let mut pass = true;
    let mut reports: Vec<String> = Vec::new();
    let mut summary = ModelSummary::default();
    let mut rows: Vec<Row> = Vec::new();
    let run_count = runs.len();
    for (run_index, (given, files, expect)) in runs.iter().enumerate() {
        let mut row = Row::default();
        let mut completed = given.clone();
        module.complete_symbols(&entry, &mut completed);
        let symbols = &completed;
        let inputs: Vec<Tensor> = if !files.is_empty() {
            let files: Vec<&String> = files.iter().collect();
            autofuse::runner::execute::read_inputs(graph, &files)?
        } else {
            autofuse::runner::execute::random_inputs(graph, symbols, seed)?
        };
        let shapes: Vec<String> = inputs.iter().map(|t| format!("{:?}", t.shape)).collect();
        row.shape = shape_label(symbols, &shapes);
        let step = format!("run {} of {run_count} ({})", run_index + 1, row.shape);
        // The reference interpreter and the kernels on the emulation, one step.
        let (expected, result) = progress.step(&step, || {
            let expected = module.reference.run(&entry, &inputs);
            if expected.is_err() {
                return (expected, Err(String::new()));
            }
            if let Some(dir) = &trace_dir {
                run::set_trace_dir(Some(dir.clone()));
            }
            let result = run::execute(&module, &builds, &entry, &inputs);
            run::set_trace_dir(None);
            (expected, result)
        });
        let expected = expected?;

        if let Ok(r) = &result {
            for l in &r.launches {
                if let (Some(file), Some(p)) = (&l.trace, &l.pipes) {
                    traces.push(run::trace::LaunchTrace {
                        kernel: l.kernel.clone(),
                        file: file.clone(),
                        micros: p.cycles / (run::trace::CLOCK_GHZ * 1000.0),
                    });
                }
            }
        }
        let _ = writeln!(out, "-- inputs {}", shapes.join(" "));
        match result {
            Err(e) => {
                pass = false;
                let _ = writeln!(out, "   FAIL: {e}");
                row.result = "FAIL".into();
                row.details.push(format!("FAIL: {e}"));
                rows.push(row);
                reports.push(run_json(
                    symbols,
                    &inputs,
                    &[],
                    None,
                    None,
                    &[],
                    Some(&e),
                    "null",
                    false,
                ));
            }
            Ok(run) => {
                for l in &run.launches {
                    let tile = l
                        .fields
                        .iter()
                        // Tile sizes are named after their axis (`z0t_size`), which
                        // buffer sizes such as `part_size` are not.
                        .filter(|(n, _)| {
                            n.strip_suffix("t_size")
                                .is_some_and(|axis| axis.ends_with(|c: char| c.is_ascii_digit()))
                        })
                        .find(|(_, v)| *v != 0)
                        .map(|(n, v)| format!(" {n}={v}"))
                        .unwrap_or_default();
                    // A cross-core reduction: the blocks sharing each row group.
                    let tile = l
                        .fields
                        .iter()
                        .filter(|(n, _)| n.ends_with("rcore_parts"))
                        .find(|(_, v)| *v != 0)
                        .map(|(n, v)| format!("{tile} {n}={v}"))
                        .unwrap_or(tile);
                    // The tiling key the host function chose (the kernel source's `Case N`).
                    let key = l
                        .fields
                        .iter()
                        .find(|(n, _)| n == "tiling_key")
                        .map(|(_, v)| format!(", case {v}"))
                        .unwrap_or_default();
                    let _ = writeln!(
                        out,
                        "   {}: blocks {}{tile}, GM read {} written {}, UB peak {} B, distinct reads per core {}{key}",
                        l.kernel,
                        l.blocks,
                        run::human_bytes(l.gm_read),
                        run::human_bytes(l.gm_written),
                        l.ub_peak,
                        run::human_bytes(l.gm_read_per_core)
                    );
                    if let Some(p) = &l.pipes {
                        let _ = writeln!(out, "   {}", run::trace::pipes_line(p));
                        row.micros += p.cycles / (run::trace::CLOCK_GHZ * 1000.0);
                        row.timed = true;
                    }
                }
                for n in &run.notes {
                    let _ = writeln!(out, "   note: {n}");
                }
                let (worst, ok, why) = max_error(&expected, &run.outputs);
                for w in &why {
                    let _ = writeln!(out, "   {w}");
                    row.details.push(w.clone());
                }
                let mut vendor_out = String::new();
                let mut vendor_ok = true;
                // The vendor path's figures for --report-json (null without it).
                let mut vendor_json = String::from("null");
                if let Some((vbuilds, _)) = &vendor_builds {
                    match run::execute(&module, vbuilds, &entry, &inputs) {
                        Err(e) => {
                            vendor_ok = false;
                            let _ = writeln!(vendor_out, "   vendor path: FAIL: {e}");
                            vendor_json = format!(
                                "{{\"kernels_run\": 0, \"max_error\": null, \"vs_sim\": null, \"error\": {}, \"pass\": false}}",
                                json_str(&e)
                            );
                        }
                        Ok(vrun) => {
                            let (verr, vok, vwhy) = max_error(&expected, &vrun.outputs);
                            let (vsim, sok, swhy) = max_error(&run.outputs, &vrun.outputs);
                            let mut launched: Vec<&str> =
                                vrun.launches.iter().map(|l| l.kernel.as_str()).collect();
                            launched.sort_unstable();
                            launched.dedup();
                            for w in &vwhy {
                                let _ = writeln!(vendor_out, "   vendor path: {w}");
                            }
                            for w in &swhy {
                                let _ = writeln!(vendor_out, "   vendor path vs sim: {w}");
                            }
                            let _ = writeln!(
                                vendor_out,
                                "   vendor path: {} kernel(s) run, max error {verr:.3e} (vs sim {vsim:.3e}): {}",
                                launched.len(),
                                if vok && sok { "PASS" } else { "FAIL" }
                            );
                            vendor_ok = vok && sok;
                            let num = |x: f64| {
                                if x.is_finite() {
                                    format!("{x:e}")
                                } else {
                                    "null".to_string()
                                }
                            };
                            vendor_json = format!(
                                "{{\"kernels_run\": {}, \"max_error\": {}, \"vs_sim\": {}, \"error\": null, \"pass\": {vendor_ok}}}",
                                launched.len(),
                                num(verr),
                                num(vsim)
                            );
                        }
                    }
                }
                let t = &run.traffic;
                let kernels = run_kernels(&module, &entry, &inputs, &run.launches)?;
                let (own, per_core) = emulated_minimums(&kernels);
                let _ = writeln!(
                    out,
                    "   GM bytes: measured {} | unfused {} | minimum {} | kernels' minimum {}, with per-core copies {}{}",
                    run::human_bytes(t.measured),
                    run::human_bytes(t.unfused),
                    run::human_bytes(t.minimum),
                    run::human_bytes(own),
                    run::human_bytes(per_core),
                    if t.interpreted_calls > 0 {
                        format!(
                            " ({} interpreted kernel call(s) not measured)",
                            t.interpreted_calls
                        )
                    } else {
                        String::new()
                    }
                );
                let _ = writeln!(out, "   {}", verdict(worst, ok, why.len()));
                out.push_str(&vendor_out);
                pass &= ok && vendor_ok;
                let mut matched = true;
                if !expect.is_empty() {
                    let (line, c) = compare_expected(expect, &run.outputs)?;
                    let _ = writeln!(out, "{line}");
                    let m = c.passed();
                    pass &= m;
                    matched = m;
                    row.expected = Some(c.error_figure());
                    if !m {
                        row.details
                            .extend(line.lines().map(|l| l.trim().to_string()));
                    }
                }
                if !vendor_ok || (vendor_builds.is_some() && verbose) {
                    row.details
                        .extend(vendor_out.lines().map(|l| l.trim().to_string()));
                } else if vendor_builds.is_some() {
                    row.vendor = Some("PASS".into());
                }
                row.kernels = kernels
                    .iter()
                    .filter(|k| k.kind != "boundary")
                    .map(|k| k.groups)
                    .sum();
                row.launches = kernels.iter().filter(|k| k.kind != "boundary").count();
                row.boundary = kernels.iter().filter(|k| k.kind == "boundary").count();
                row.gm = format!(
                    "{} / {}{}",
                    run::human_bytes(t.measured),
                    run::human_bytes(t.minimum),
                    if t.minimum > 0 {
                        format!(" ({:.2}x)", t.measured as f64 / t.minimum as f64)
                    } else {
                        String::new()
                    }
                );
                row.error = if worst.is_finite() {
                    format!("{worst:.1e}")
                } else {
                    "-".into()
                };
                row.result = if ok && vendor_ok && matched {
                    "PASS"
                } else {
                    "FAIL"
                }
                .into();
                rows.push(row);
                summary.add(&kernels);
                if matches.get_one::<String>("report-json").is_some() {
                    reports.push(run_json(
                        symbols,
                        &inputs,
                        &kernels,
                        Some(t),
                        Some(worst),
                        &run.notes,
                        None,
                        &vendor_json,
                        ok && vendor_ok,
                    ));
                }
                if let Some(dir) = matches.get_one::<String>("output-dir") {
                    std::fs::create_dir_all(dir).map_err(|e| format!("{dir}: {e}"))?;
                    for (i, t) in run.outputs.iter().enumerate() {
                        let p = Path::new(dir).join(format!("out{i}.npy"));
                        let temp =
                            Path::new(dir).join(format!(".out{i}.npy.tmp-{}", std::process::id()));
                        let written = t
                            .write_npy(&temp)
                            .map_err(|e| e.to_string())
                            .and_then(|()| std::fs::rename(&temp, &p).map_err(|e| e.to_string()));
                        if let Err(e) = written {
                            let _ = std::fs::remove_file(&temp);
                            return Err(format!("{}: {e}", p.display()).into());
                        }
                    }
                }
            }
        }
    }
    if let Some(dir) = &trace_dir {
        if traces.is_empty() {
            let _ = std::fs::remove_dir_all(dir);
            return Err(Failure::Error(
                "--trace: no kernel ran on the emulation, so there is no pipe timeline".into(),
            ));
        }
        let merged = run::trace::merge(&traces)?;
        let _ = std::fs::remove_dir_all(dir);
        if let Some(file) = matches.get_one::<String>("trace") {
            output::write_file_atomic(Path::new(file), merged.as_bytes())?;
        }
        if let Some(file) = matches.get_one::<String>("trace-svg") {
            let title = format!(
                "{} pipe timeline",
                Path::new(&path)
                    .file_name()
                    .map_or(path.clone(), |f| f.to_string_lossy().into_owned())
            );
            let picture = run::trace::svg(&merged, &title, 4)?;
            output::write_file_atomic(Path::new(file), picture.as_bytes())?;
        }
    }
    if let Some(line) = summary.render(onnx_nodes) {
        let _ = writeln!(out, "{line}");
    }
    // Without -v: the header, one row per shape, failures and the model line.
    let mut short = String::new();
    let _ = writeln!(
        short,
        "== autofuse-run {path} (@{entry}, target {})",
        module.chip.name
    );
    if !module.interpreted.is_empty() {
        let names: Vec<&str> = module.interpreted.iter().map(|(n, _)| n.as_str()).collect();
        let _ = writeln!(
            short,
            "   left to the interpreter: {} (-v for why)",
            names.join(", ")
        );
    }
    short.push_str(&table(&rows));
    if let Some(line) = summary.render(onnx_nodes) {
        let _ = writeln!(short, "{line}");
    }
    let mut out = if quiet {
        String::new()
    } else if verbose {
        out
    } else {
        short
    };
    // Every output is complete before the verdict: the JSON report (a failure to write
    // it is an error, exit 1, with no verdict printed) and the sources of --out.
    if let Some(file) = matches.get_one::<String>("report-json") {
        let json = format!(
            "{{\n  \"input\": {},\n  \"onnx_nodes\": {},\n  \"entry\": {},\n  \"target\": {},\n  \"pipeline\": {},\n  \"runs\": [\n{}\n  ],\n  \"pass\": {pass}\n}}\n",
            json_str(&path),
            json_opt(onnx_nodes.map(|n| n as u64)),
            json_str(&entry),
            json_str(module.chip.name),
            json_str(&options.pipeline()),
            reports.join(",\n")
        );
        if let Err(e) = output::write_file_atomic(Path::new(file), json.as_bytes()) {
            output::write_stdout(out.as_bytes())?;
            return Err(Failure::Error(e));
        }
    }
    if let Some(staged) = staged_out {
        if let Err(e) = staged.commit() {
            output::write_stdout(out.as_bytes())?;
            return Err(Failure::Error(e));
        }
    }
    let _ = writeln!(out, "== {}", if pass { "PASS" } else { "FAIL" });
    output::write_stdout(out.as_bytes())?;
    Ok(pass)
}

/// One shape run's row of the summary table.
#[derive(Default)]
struct Row {
    shape: String,
    kernels: usize,
    launches: usize,
    boundary: usize,
    gm: String,
    micros: f64,
    /// Whether any launch had a chip-model time.
    timed: bool,
    error: String,
    /// The comparison with `--expect` files (its verdict), when given.
    expected: Option<String>,
    vendor: Option<String>,
    result: String,
    /// Failure lines, printed under the table.
    details: Vec<String>,
}

/// `s0=3,s1=5`, or the input shapes when the graph has no symbols.
fn shape_label(symbols: &HashMap<String, i64>, shapes: &[String]) -> String {
    if symbols.is_empty() {
        return shapes.join(" ");
    }
    let mut s: Vec<(&String, &i64)> = symbols.iter().collect();
    s.sort();
    s.iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(",")
}

/// The summary table: one row per shape run, columns aligned.
fn table(rows: &[Row]) -> String {
    let with_expected = rows.iter().any(|r| r.expected.is_some());
    let with_vendor = rows.iter().any(|r| r.vendor.is_some());
    let mut header = vec![
        "shape",
        "kernels",
        "launches",
        "boundary ops",
        "GM measured / minimum",
        "chip time",
        "max error",
    ];
    if with_expected {
        header.push("error vs --expect");
    }
    if with_vendor {
        header.push("vendor");
    }
    header.push("result");
    let mut cells: Vec<Vec<String>> = vec![header.iter().map(|h| h.to_string()).collect()];
    for r in rows {
        let mut line = vec![
            r.shape.clone(),
            r.kernels.to_string(),
            r.launches.to_string(),
            r.boundary.to_string(),
            if r.gm.is_empty() {
                "-".into()
            } else {
                r.gm.clone()
            },
            if r.timed {
                format!("{:.1} us", r.micros)
            } else {
                "-".into()
            },
            if r.error.is_empty() {
                "-".into()
            } else {
                r.error.clone()
            },
        ];
        if with_expected {
            line.push(r.expected.clone().unwrap_or_else(|| "-".into()));
        }
        if with_vendor {
            line.push(r.vendor.clone().unwrap_or_else(|| "-".into()));
        }
        line.push(r.result.clone());
        cells.push(line);
    }
    let columns = cells[0].len();
    let widths: Vec<usize> = (0..columns)
        .map(|c| {
            cells
                .iter()
                .map(|l| l[c].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut text = String::new();
    for (i, line) in cells.iter().enumerate() {
        let mut l = String::from("   ");
        for (c, cell) in line.iter().enumerate() {
            if c + 1 == columns {
                l.push_str(cell);
            } else {
                let _ = write!(l, "{cell:<w$}  ", w = widths[c]);
            }
        }
        let _ = writeln!(text, "{}", l.trim_end());
        if i > 0 {
            for d in &rows[i - 1].details {
                let _ = writeln!(text, "     {d}");
            }
        }
    }
    text
}
