//! The JSON report of graph runs (`autofuse-run --report-json`), built here so that the
//! benchmarks and other in-process callers produce the same report as the tool.
//!
//! Per shape run: its symbols and inputs, every kernel the run launched in program order
//! ([`run_kernels`]: the emulated ones with their measured traffic, boundary ops and
//! interpreted kernels with their operand and result bytes), the GM totals, the largest
//! error, the vendor path's figures and PASS or FAIL ([`RunReport`]). The whole report
//! ([`ModelReport`]) holds the runs with the input, entry, target and pipeline. Keys
//! keep their order and layout: scripts compare reports as text.

use crate::{Launch, PreparedLaunch, PreparedModule, Traffic};
use autofuse_ascend::interp::bind_symbols;
use autofuse_ascir::graph::{AscGraph, AscNode, View};
use autofuse_ir::attr::AttrValue;
use autofuse_ir::graph::{Dim, Graph, Node, TensorType};
use autofuse_ir::tensor::Tensor;
use autofuse_target_ascendc::launch::Buffer;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::iter::Peekable;
use std::slice;

/// One kernel a graph run executes.
pub struct KernelRecord {
    pub name: String,
    /// "emulated" (GM traffic measured by the emulation), "interpreted" (a kernel the
    /// interpreter ran: no feasible tiling or not scheduled) or "boundary" (an `ascend`
    /// op left outside every kernel, including one-op kernels lifted back, which runs as
    /// a library kernel on the device).
    pub kind: &'static str,
    pub ops: Vec<String>,
    pub blocks: Option<u64>,
    pub gm_read: u64,
    pub gm_written: u64,
    pub ub_peak: Option<u64>,
    /// The kernel's own minimum: its distinct operands and its results, each once.
    pub minimum: u64,
    /// Loop kernels the record runs: the groups of a multi-group launch, else 1.
    pub groups: usize,
    /// The same with every core's copy of what it reads: the distinct bytes each block
    /// read (summed over the blocks of the launch) and the results once. Operands that
    /// every block needs (broadcast tables, biases) count once per block, as the chip
    /// must fetch them; re-reads within a block do not count.
    pub per_core_minimum: u64,
}

/// Bytes of a value of type `ty` under `symbols` (0 when a dim is unknown; saturates
/// rather than overflows).
pub(crate) fn bytes_of(ty: &TensorType, symbols: &HashMap<String, i64>) -> u64 {
    let mut n: u64 = 1;
    for d in &ty.dims {
        match d {
            Dim::Known(e) => n = n.saturating_mul(e.eval_map(symbols).unwrap_or(0).max(0) as u64),
            Dim::Unknown => return 0,
        }
    }
    n.saturating_mul(ty.dtype.bytes() as u64)
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
pub fn run_kernels(
    module: &PreparedModule,
    entry: &str,
    inputs: &[Tensor],
    launches: &[Launch],
) -> Result<Vec<KernelRecord>, String> {
    let graph = module
        .program
        .graphs
        .get(entry)
        .ok_or_else(|| format!("no graph function @{entry}"))?;
    let symbols = bind_symbols(graph, inputs).map_err(|e| e.to_string())?;
    let walk = EntryWalk {
        module,
        graph,
        symbols: &symbols,
    };
    let mut pending = launches.iter().peekable();
    Ok(graph
        .nodes
        .iter()
        .filter(|node| !is_free(&node.op))
        .map(|node| walk.record(node, &mut pending))
        .collect())
}

/// The entry graph of a run under its symbol values, for the records of its nodes.
struct EntryWalk<'a> {
    module: &'a PreparedModule,
    graph: &'a Graph,
    symbols: &'a HashMap<String, i64>,
}

impl EntryWalk<'_> {
    /// The bytes of `values` at the run's shape.
    fn size(&self, values: &[usize]) -> u64 {
        values
            .iter()
            .filter_map(|&v| self.graph.ty(v))
            .map(|t| bytes_of(t, self.symbols))
            .sum()
    }

    /// The record of one computing node: an emulated launch when the next launch of
    /// `pending` is its call, else a kernel the interpreter ran or a boundary op.
    fn record(&self, node: &Node, pending: &mut Peekable<slice::Iter<Launch>>) -> KernelRecord {
        let callee = (node.op == "func.call")
            .then(|| node.attr("callee").and_then(AttrValue::as_symbol))
            .flatten();
        let mut operands: Vec<usize> = node.operands.clone();
        operands.sort_unstable();
        operands.dedup();
        let minimum = self.node_minimum(node, callee, &operands);
        if let Some(launch) = callee.and_then(|c| self.module.launches.get(c)) {
            if let Some(l) = pending.next_if(|l| l.kernel == launch.name) {
                return self.launch_record(launch, l);
            }
        }
        if let Some(k) = callee.and_then(|c| self.module.kernels.get(c)) {
            if let Some(l) = pending.next_if(|l| l.kernel == k.name) {
                return KernelRecord {
                    name: k.name.clone(),
                    kind: "emulated",
                    ops: k.graph.source_ops.clone(),
                    blocks: Some(l.blocks),
                    gm_read: l.gm_read,
                    gm_written: l.gm_written,
                    ub_peak: Some(l.ub_peak),
                    minimum,
                    groups: 1,
                    per_core_minimum: l.gm_read_per_core + self.size(&node.results),
                };
            }
        }
        self.unmeasured_record(node, callee, &operands, minimum)
    }

    /// The distinct operands and the results of `node`, less what a called kernel does
    /// not read of an operand (the rows of a table its gathers skip, the elements its
    /// views skip).
    fn node_minimum(&self, node: &Node, callee: Option<&str>, operands: &[usize]) -> u64 {
        let mut minimum = self.size(operands) + self.size(&node.results);
        if let Some(k) = callee.and_then(|c| self.module.kernels.get(c)) {
            for (j, &value) in node.operands.iter().enumerate() {
                if let Some(rows) = read_bytes(&k.graph, j, self.symbols) {
                    let whole = self
                        .graph
                        .ty(value)
                        .map(|t| bytes_of(t, self.symbols))
                        .unwrap_or(0);
                    if operands.contains(&value) && rows < whole {
                        minimum -= whole - rows;
                    }
                }
            }
        }
        minimum
    }

    /// The record of a multi-group launch the emulation ran as `l`.
    fn launch_record(&self, launch: &PreparedLaunch, l: &Launch) -> KernelRecord {
        let (minimum, written) = self.launch_minimum(launch);
        KernelRecord {
            name: launch.name.clone(),
            kind: "emulated",
            ops: self.launch_ops(launch),
            blocks: Some(l.blocks),
            gm_read: l.gm_read,
            gm_written: l.gm_written,
            ub_peak: Some(l.ub_peak),
            minimum,
            groups: launch.groups.len(),
            per_core_minimum: l.gm_read_per_core + written,
        }
    }

    /// A launch's own minimum and the bytes its groups write. Each group moves its own
    /// distinct operands and results once; a value one group writes and a later one
    /// reads makes its GM round trip.
    fn launch_minimum(&self, launch: &PreparedLaunch) -> (u64, u64) {
        let w = &launch.wiring;
        let bytes = |b: &Buffer| -> u64 {
            let ty = match *b {
                Buffer::Input(i) => w.inputs.get(i),
                Buffer::Output(i) => w.outputs.get(i),
                Buffer::Workspace(i) => w.workspace.get(i),
            };
            ty.map(|t| bytes_of(t, self.symbols)).unwrap_or(0)
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
                let needed = self
                    .module
                    .kernels
                    .get(kernel)
                    .and_then(|k| read_bytes(&k.graph, j, self.symbols))
                    .map_or(whole, |rows| rows.min(whole));
                group_minimum += needed;
            }
            let out: u64 = writes.iter().map(bytes).sum();
            group_minimum += out;
            written += out;
        }
        (group_minimum, written)
    }

    /// The source ops of every group kernel of `launch`.
    fn launch_ops(&self, launch: &PreparedLaunch) -> Vec<String> {
        launch
            .groups
            .iter()
            .filter_map(|k| self.module.kernels.get(k))
            .flat_map(|k| k.graph.source_ops.clone())
            .collect()
    }

    /// The record of a node the emulation did not measure: a kernel or launch the
    /// interpreter ran (a launch the emulation declined runs its groups there), or a
    /// boundary op, with its distinct operands and results as its traffic.
    fn unmeasured_record(
        &self,
        node: &Node,
        callee: Option<&str>,
        operands: &[usize],
        minimum: u64,
    ) -> KernelRecord {
        let module = self.module;
        let groups = callee
            .and_then(|c| module.launches.get(c))
            .map_or(1, |l| l.groups.len());
        let (name, kind, ops) = match callee {
            Some(c) if module.launches.contains_key(c) => (
                c.to_string(),
                "interpreted",
                self.launch_ops(&module.launches[c]),
            ),
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
        KernelRecord {
            name,
            kind,
            ops,
            blocks: None,
            gm_read: self.size(operands),
            gm_written: self.size(&node.results),
            ub_peak: None,
            minimum,
            groups,
            per_core_minimum: minimum,
        }
    }
}

/// The bytes of kernel input `input` a kernel must read at least: a table only gathers
/// read needs no more than the rows they pick; an input read only through views (a
/// slice: offsets and strides) needs only the elements its loads take (the repeats of
/// the axes a load does not broadcast; several loads are summed). `None` when the kernel
/// reads the input otherwise; callers cap the result at the whole tensor.
fn read_bytes(graph: &AscGraph, input: usize, symbols: &HashMap<String, i64>) -> Option<u64> {
    let tables: Vec<usize> = (0..graph.nodes.len())
        .filter(|&n| graph.nodes[n].op == "data" && graph.nodes[n].index == Some(input))
        .collect();
    let readers: Vec<&AscNode> = graph
        .nodes
        .iter()
        .filter(|x| x.operands.iter().any(|o| tables.contains(o)))
        .collect();
    if tables.is_empty() || readers.is_empty() {
        return None;
    }
    let elements = |view: &View, broadcast_too: bool| -> Option<u64> {
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

/// The emulated kernels' own minimum and the same with per-core copies (the figures
/// their measured GM bytes compare with).
pub fn emulated_minimums(kernels: &[KernelRecord]) -> (u64, u64) {
    kernels
        .iter()
        .filter(|k| k.kind == "emulated")
        .fold((0, 0), |(own, per_core), k| {
            (own + k.minimum, per_core + k.per_core_minimum)
        })
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

/// A finite number in JSON, `null` otherwise.
fn json_num(x: f64) -> String {
    if x.is_finite() {
        format!("{x:e}")
    } else {
        "null".to_string()
    }
}

/// The vendor path's figures of a run that failed on it with `error`.
pub fn vendor_failure_json(error: &str) -> String {
    format!(
        "{{\"kernels_run\": 0, \"max_error\": null, \"vs_sim\": null, \"error\": {}, \"pass\": false}}",
        json_str(error)
    )
}

/// The vendor path's figures of a run: the kernels it ran, its largest error against
/// the interpreter and against the emulation, and whether both pass.
pub fn vendor_json(kernels_run: usize, max_error: f64, vs_sim: f64, pass: bool) -> String {
    format!(
        "{{\"kernels_run\": {kernels_run}, \"max_error\": {}, \"vs_sim\": {}, \"error\": null, \"pass\": {pass}}}",
        json_num(max_error),
        json_num(vs_sim)
    )
}

/// One shape run of the report.
pub struct RunReport<'a> {
    pub symbols: &'a HashMap<String, i64>,
    pub inputs: &'a [Tensor],
    /// What the run launched ([`run_kernels`]); none when it failed.
    pub kernels: &'a [KernelRecord],
    pub traffic: Option<&'a Traffic>,
    pub max_error: Option<f64>,
    pub notes: &'a [String],
    /// Why the run failed.
    pub error: Option<&'a str>,
    /// The vendor path's JSON object ([`vendor_json`], [`vendor_failure_json`]), or
    /// `null` without it.
    pub vendor: &'a str,
    pub pass: bool,
}

impl RunReport<'_> {
    /// The run's JSON object, indented as an element of the report's `runs`.
    pub fn json(&self) -> String {
        let mut syms: Vec<(&String, &i64)> = self.symbols.iter().collect();
        syms.sort();
        let syms: Vec<String> = syms
            .iter()
            .map(|(k, v)| format!("{}: {v}", json_str(k)))
            .collect();
        let shapes: Vec<String> = self
            .inputs
            .iter()
            .map(|t| {
                let dims: Vec<String> = t.shape.iter().map(usize::to_string).collect();
                format!("[{}]", dims.join(", "))
            })
            .collect();
        let dtypes: Vec<String> = self
            .inputs
            .iter()
            .map(|t| json_str(t.dtype.mlir_name()))
            .collect();
        let list: Vec<String> = self.kernels.iter().map(kernel_json).collect();
        let notes: Vec<String> = self.notes.iter().map(|n| json_str(n)).collect();
        format!(
            "    {{\n      \"symbols\": {{{}}},\n      \"inputs\": [{}],\n      \"input_dtypes\": [{}],\n      \"kernels\": [\n{}\n      ],\n      \"kernel_count\": {},\n      \"gm_bytes\": {},\n      \"max_error\": {},\n      \"vendor\": {},\n      \"notes\": [{}],\n      \"error\": {},\n      \"pass\": {}\n    }}",
            syms.join(", "),
            shapes.join(", "),
            dtypes.join(", "),
            list.join(",\n"),
            self.kernels.len(),
            self.gm_json(),
            self.max_error
                .filter(|e| e.is_finite())
                .map(|e| format!("{e:e}"))
                .unwrap_or_else(|| "null".into()),
            self.vendor,
            notes.join(", "),
            self.error.map(json_str).unwrap_or_else(|| "null".into()),
            self.pass,
        )
    }

    /// The run's GM totals: measured by the emulation, not measured (the other
    /// records' operand and result bytes), the unfused graph's, the minimum and the
    /// emulated kernels' own minimums; `null` for a failed run.
    fn gm_json(&self) -> String {
        let Some(t) = self.traffic else {
            return "null".into();
        };
        let not_measured: u64 = self
            .kernels
            .iter()
            .filter(|k| k.kind != "emulated")
            .map(|k| k.gm_read + k.gm_written)
            .sum();
        let (kernels_minimum, per_core_minimum) = emulated_minimums(self.kernels);
        format!(
            "{{\"measured\": {}, \"not_measured\": {not_measured}, \"total\": {}, \"unfused\": {}, \"minimum\": {}, \"kernels_minimum\": {kernels_minimum}, \"kernels_per_core_minimum\": {per_core_minimum}}}",
            t.measured,
            t.measured + not_measured,
            t.unfused,
            t.minimum
        )
    }
}

/// One record of a run's `kernels` list, on one line.
fn kernel_json(k: &KernelRecord) -> String {
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
}

/// The whole report of one model.
pub struct ModelReport<'a> {
    /// The input file as given.
    pub input: &'a str,
    /// The ONNX model's node count, when the input was one.
    pub onnx_nodes: Option<usize>,
    pub entry: &'a str,
    pub target: &'a str,
    pub pipeline: &'a str,
    /// The runs' objects ([`RunReport::json`]), in run order.
    pub runs: &'a [String],
    pub pass: bool,
}

impl ModelReport<'_> {
    /// The report as a JSON document (with a final newline).
    pub fn json(&self) -> String {
        format!(
            "{{\n  \"input\": {},\n  \"onnx_nodes\": {},\n  \"entry\": {},\n  \"target\": {},\n  \"pipeline\": {},\n  \"runs\": [\n{}\n  ],\n  \"pass\": {}\n}}\n",
            json_str(self.input),
            json_opt(self.onnx_nodes.map(|n| n as u64)),
            json_str(self.entry),
            json_str(self.target),
            json_str(self.pipeline),
            self.runs.join(",\n"),
            self.pass
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use autofuse_ir::graph::DType;

    fn record(kind: &'static str, blocks: Option<u64>) -> KernelRecord {
        KernelRecord {
            name: "k\"0".into(),
            kind,
            ops: vec!["ascend.add".into(), "ascend.exp".into()],
            blocks,
            gm_read: 100,
            gm_written: 50,
            ub_peak: blocks.map(|_| 4096),
            minimum: 120,
            groups: 1,
            per_core_minimum: 140,
        }
    }

    #[test]
    fn runs_and_the_model_report_keep_their_layout() {
        let symbols = HashMap::from([("s1".to_string(), 5), ("s0".to_string(), 3)]);
        let inputs = [Tensor::new(DType::F32, vec![3, 5], vec![0.0; 15]).unwrap()];
        let kernels = [record("emulated", Some(8)), record("boundary", None)];
        let traffic = Traffic {
            measured: 150,
            unfused: 400,
            minimum: 90,
            interpreted_calls: 0,
        };
        let notes = ["a\tnote".to_string()];
        let run = RunReport {
            symbols: &symbols,
            inputs: &inputs,
            kernels: &kernels,
            traffic: Some(&traffic),
            max_error: Some(0.5),
            notes: &notes,
            error: None,
            vendor: &vendor_json(1, f64::NAN, 0.0, true),
            pass: true,
        }
        .json();
        let kernel = |kind: &str, blocks: &str, ub: &str| {
            format!("        {{\"name\": \"k\\\"0\", \"kind\": \"{kind}\", \"ops\": [\"ascend.add\", \"ascend.exp\"], \"blocks\": {blocks}, \"gm_read\": 100, \"gm_written\": 50, \"minimum\": 120, \"per_core_minimum\": 140, \"ub_peak\": {ub}}}")
        };
        let expected = format!(
            "    {{\n      \"symbols\": {{\"s0\": 3, \"s1\": 5}},\n      \"inputs\": [[3, 5]],\n      \"input_dtypes\": [\"f32\"],\n      \"kernels\": [\n{},\n{}\n      ],\n      \"kernel_count\": 2,\n      \"gm_bytes\": {{\"measured\": 150, \"not_measured\": 150, \"total\": 300, \"unfused\": 400, \"minimum\": 90, \"kernels_minimum\": 120, \"kernels_per_core_minimum\": 140}},\n      \"max_error\": 5e-1,\n      \"vendor\": {{\"kernels_run\": 1, \"max_error\": null, \"vs_sim\": 0e0, \"error\": null, \"pass\": true}},\n      \"notes\": [\"a\\u0009note\"],\n      \"error\": null,\n      \"pass\": true\n    }}",
            kernel("emulated", "8", "4096"),
            kernel("boundary", "null", "null")
        );
        assert_eq!(run, expected);

        let failed = RunReport {
            symbols: &HashMap::new(),
            inputs: &[],
            kernels: &[],
            traffic: None,
            max_error: None,
            notes: &[],
            error: Some("no\nkernel"),
            vendor: &vendor_failure_json("x"),
            pass: false,
        }
        .json();
        assert_eq!(
            failed,
            "    {\n      \"symbols\": {},\n      \"inputs\": [],\n      \"input_dtypes\": [],\n      \"kernels\": [\n\n      ],\n      \"kernel_count\": 0,\n      \"gm_bytes\": null,\n      \"max_error\": null,\n      \"vendor\": {\"kernels_run\": 0, \"max_error\": null, \"vs_sim\": null, \"error\": \"x\", \"pass\": false},\n      \"notes\": [],\n      \"error\": \"no\\nkernel\",\n      \"pass\": false\n    }"
        );

        let model = ModelReport {
            input: "a.onnx",
            onnx_nodes: Some(7),
            entry: "main",
            target: "ascend910b",
            pipeline: "p",
            runs: &["    {}".to_string(), "    {}".to_string()],
            pass: false,
        }
        .json();
        assert_eq!(
            model,
            "{\n  \"input\": \"a.onnx\",\n  \"onnx_nodes\": 7,\n  \"entry\": \"main\",\n  \"target\": \"ascend910b\",\n  \"pipeline\": \"p\",\n  \"runs\": [\n    {},\n    {}\n  ],\n  \"pass\": false\n}\n"
        );
    }
}
