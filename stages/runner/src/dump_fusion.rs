//! `--dump-fusion=DIR`: what `--fuse` did, as pictures.
//!
//! What `--fuse` did is read from one compile ([`FuseSnapshot`]): the lowering's
//! remarks, the kernel calls before `fuse`, its JSON report and the module right after
//! it. `autofuse-run` takes it from its own compile ([`crate::prepare_module_with`]);
//! `autofuse-opt` compiles for it ([`dump_fusion`]) with the user's pipeline up to its
//! `fuse` and that pass's options ([`DumpPipeline`]). [`draw`] writes to DIR:
//! - `<function>.dot` / `.svg`: every graph function after `--fuse`, one colour per
//!   kernel (the node's title is the kernel's name), boundary ops (ops left outside every
//!   kernel, drawn as grey boxes) and kernels the schedule cannot express (left to the
//!   interpreter: red border) marked; every edge between two different kernels or
//!   between a kernel and a boundary op is "unfused" (dashed, `class="unfused"`) and
//!   labelled with its reason code: the `AF-NF###` refusal of `--fuse` between the two
//!   kernels, or the boundary op's own code (`AF-LW###` / `AF-DC###`: why lowering left
//!   it a graph op), or for a one-op kernel `--fuse` turned back into its op, `lifted,`
//!   and the refusal with the other end, else the code of the lifting (`AF-NF012`);
//! - `kernel-<n>.dot` / `.svg`: each kernel's AscGraph (its AscIR ops and their edges);
//! - `summary.txt`: kernels with their ops, boundary ops, and the unfused edges.
//!
//! SVG comes from Graphviz's `dot` (Debian package graphviz, installed by
//! scripts/setup.sh); without it only the DOT files are written and the result says so.

use crate::run_pipeline_diags;
use autofuse_ir::attr::AttrValue;
use autofuse_ir::graph::{Graph, Node};
use autofuse_mlir::diagnostics::{self, Diag};
use autofuse_mlir::extract;
use melior::ir::operation::OperationLike;
use melior::ir::Module;
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Pastel fills, one per kernel (cycled).
const PALETTE: &[&str] = &[
    "#8dd3c7", "#ffffb3", "#bebada", "#fb8072", "#80b1d3", "#fdb462", "#b3de69", "#fccde5",
    "#bc80bd", "#ccebc5", "#ffed6f", "#a6cee3", "#b2df8a", "#fdbf6f", "#cab2d6",
];

/// Ops that are not computations: inputs, weights, constants.
fn is_source(op: &str) -> bool {
    matches!(
        op,
        "ascend.constant" | "ascend.parameter" | "ascend.symbolic_constant" | "arith.constant"
    )
}

/// Ops that only reinterpret a buffer.
fn is_view(op: &str) -> bool {
    matches!(op, "ascend.reshape" | "ascend.squeeze" | "ascend.unsqueeze")
}

/// What was dumped.
#[derive(Debug, Default)]
pub struct FusionDump {
    /// Kernel names, over every graph function.
    pub kernels: Vec<String>,
    /// Boundary ops (op names, one per op).
    pub boundary: Vec<String>,
    /// Unfused edges: (from, to, reason code).
    pub unfused: Vec<(String, String, String)>,
    /// Kernels the schedule cannot express (left to the interpreter), with why.
    pub interpreted: Vec<(String, String)>,
    /// Files written.
    pub files: Vec<PathBuf>,
    /// False when `dot` was not found (DOT files only).
    pub svg: bool,
}

/// The key that ties a diagnostic to an op: its source position, else its location text.
fn diag_key(d: &Diag) -> String {
    match &d.pos {
        Some(p) => format!("{}:{}:{}", p.file, p.line, p.column),
        None => d.location_text.clone(),
    }
}

fn op_key(op: &melior::ir::OperationRef) -> String {
    match diagnostics::source_pos(op.location()) {
        Some(p) => format!("{}:{}:{}", p.file, p.line, p.column),
        None => extract::location_text(op.location()),
    }
}

/// A reason code at the start of a remark (`AF-LW001 ...`).
fn code_of(message: &str) -> Option<String> {
    let word = message.split_whitespace().next()?;
    let ok = word.len() == 8
        && word.starts_with("AF-")
        && word[3..5].chars().all(|c| c.is_ascii_uppercase())
        && word[5..].chars().all(|c| c.is_ascii_digit());
    ok.then(|| word.to_string())
}

fn dot_escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

fn short_op(op: &str) -> &str {
    op.split_once('.').map_or(op, |(_, o)| o)
}

/// The passes a dump of its own runs (`autofuse-opt --dump-fusion`): those before
/// `fuse`, and `fuse` with its options.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DumpPipeline {
    /// The pipeline elements before `fuse`, as pipeline text (may be empty).
    pub before_fuse: String,
    /// `fuse`'s options as written (without braces); the dump sets `report` itself.
    pub fuse_options: String,
    /// The chip whose schedule decides which kernels the interpreter runs (`fuse`'s
    /// `target`).
    pub target: String,
}

impl DumpPipeline {
    /// The runner's: [`crate::FRONT_PIPELINE`], then `fuse{target=<target>}`.
    pub fn standard(target: &str) -> DumpPipeline {
        DumpPipeline {
            before_fuse: crate::FRONT_PIPELINE.to_string(),
            fuse_options: format!("target={target}"),
            target: target.to_string(),
        }
    }

    /// The user's pipeline `text` up to its first `fuse` (at module level), with that
    /// pass's options; `default_target` when they name none. `None` when the pipeline
    /// has no `fuse`.
    pub fn of_pipeline(text: &str, default_target: &str) -> Result<Option<DumpPipeline>, String> {
        use autofuse_passes::pipeline::{module_elements, parse, Element};
        let elements = module_elements(parse(text)?);
        let Some(at) = elements
            .iter()
            .position(|e| matches!(e, Element::Pass { name, .. } if name == "fuse"))
        else {
            return Ok(None);
        };
        let Element::Pass { options, .. } = &elements[at] else {
            return Ok(None);
        };
        let info = autofuse_passes::registry::lookup("fuse").ok_or("no fuse pass")?;
        let parsed = autofuse_passes::options::PassOptions::parse(info, options)?;
        let target = parsed.get("target").unwrap_or(default_target).to_string();
        let mut fuse_options = options.clone();
        if parsed.get("target").is_none() {
            fuse_options = format!("{fuse_options} target={target}");
        }
        let before: Vec<String> = elements[..at].iter().map(ToString::to_string).collect();
        Ok(Some(DumpPipeline {
            before_fuse: before.join(","),
            fuse_options: fuse_options.trim().to_string(),
            target,
        }))
    }
}

/// Compiles `text` through `pipeline` (the passes before `fuse`, then `fuse` with its
/// report) and writes the pictures to `dir`.
pub fn dump_fusion(
    context: &melior::Context,
    text: &[u8],
    source_name: &str,
    pipeline: &DumpPipeline,
    dir: &Path,
) -> Result<FusionDump, String> {
    let mut module = autofuse_mlir::parse::load_module(context, text, source_name)?;
    let lowering = if pipeline.before_fuse.is_empty() {
        Vec::new()
    } else {
        run_pipeline_diags(&mut module, &pipeline.before_fuse)?
    };
    let call_at = calls_before_fusion(&module);
    let report = ReportFile::new();
    let fused = run_pipeline_diags(
        &mut module,
        &format!(
            "fuse{{{} report={}}}",
            pipeline.fuse_options,
            report.path.display()
        ),
    );
    let report_text = report.take();
    fused?;
    let mut snapshot = FuseSnapshot::new(&lowering, call_at, &report_text, &module)?;
    if let Ok(diags) = run_pipeline_diags(
        &mut module,
        &format!("schedule{{target={}}}", pipeline.target),
    ) {
        snapshot.note_schedule(&diags);
    }
    draw(&snapshot, source_name, dir)
}

/// A temporary file for `fuse`'s JSON report, removed when read.
pub(crate) struct ReportFile {
    pub(crate) path: PathBuf,
}

impl ReportFile {
    pub(crate) fn new() -> ReportFile {
        ReportFile {
            path: std::env::temp_dir().join(format!(
                "autofuse-fusion-report-{}-{}.json",
                std::process::id(),
                COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
            )),
        }
    }

    /// The report's text (empty when `fuse` wrote none); the file is removed.
    pub(crate) fn take(self) -> String {
        let text = std::fs::read_to_string(&self.path).unwrap_or_default();
        let _ = std::fs::remove_file(&self.path);
        text
    }
}

/// What `--fuse` did, read from one compile: the lowering's remarks, the kernel calls
/// before `fuse`, its JSON report and the module right after it; and which kernels the
/// schedule left to the interpreter.
pub struct FuseSnapshot {
    boundary_code: HashMap<String, String>,
    call_at: CallsAt,
    decisions: FusionDecisions,
    graphs: Vec<KeyedGraph>,
    kernels: BTreeMap<String, Graph>,
    interpreted: Vec<(String, String)>,
}

impl FuseSnapshot {
    /// `lowering`: the diagnostics of the passes before `fuse`; `call_at`: the kernel
    /// calls before it ([`calls_before_fusion`]); `report`: its JSON report's text;
    /// `after_fuse`: the module right after it.
    pub fn new(
        lowering: &[Diag],
        call_at: CallsAt,
        report: &str,
        after_fuse: &Module,
    ) -> Result<FuseSnapshot, String> {
        let report: serde_json::Value = if report.is_empty() {
            serde_json::Value::Null
        } else {
            serde_json::from_str(report).map_err(|e| format!("the fusion report: {e}"))?
        };
        let (graphs, kernels) = functions_after_fusion(after_fuse);
        Ok(FuseSnapshot {
            boundary_code: boundary_codes(lowering),
            call_at,
            decisions: FusionDecisions::from_report(&report),
            graphs,
            kernels,
            interpreted: Vec::new(),
        })
    }

    /// Reads the kernels the schedule cannot express (remark `AF-SC001 @<kernel>`) from
    /// the diagnostics of the passes after `fuse`.
    pub fn note_schedule(&mut self, diags: &[Diag]) {
        for d in diags {
            if let Some(rest) = d.message.strip_prefix("AF-SC001 @") {
                let name = rest.split_whitespace().next().unwrap_or_default();
                let known = self.kernels.contains_key(name);
                if known && !self.interpreted.iter().any(|(n, _)| n == name) {
                    self.interpreted.push((name.to_string(), d.message.clone()));
                }
            }
        }
    }
}

/// Writes the pictures of `snapshot` to `dir`.
pub fn draw(snapshot: &FuseSnapshot, source_name: &str, dir: &Path) -> Result<FusionDump, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let facts = FusionFacts {
        source_name,
        snapshot,
        kernel_index: number_kernels(&snapshot.graphs, &snapshot.kernels),
        interpreted: snapshot.interpreted.iter().cloned().collect(),
    };
    let mut dump = FusionDump::default();
    let mut summary = String::new();
    let mut dots: Vec<(String, String)> = Vec::new();
    for (graph, keys) in &snapshot.graphs {
        let drawn = facts.draw_graph(graph, keys);
        summary.push_str(&drawn.summary);
        dump.kernels.extend(drawn.kernels);
        dump.boundary.extend(drawn.boundary);
        dump.unfused.extend(drawn.unfused);
        dots.push((sanitize(&graph.name), drawn.dot));
    }
    for (name, k) in &snapshot.kernels {
        let i = facts.kernel_index[name];
        dots.push((format!("kernel-{i}"), kernel_dot(i, name, k)));
    }
    dump.interpreted = snapshot.interpreted.clone();
    dump.svg = which_dot().is_some();
    write_drawings(dir, &dots, &mut dump)?;
    for (name, why) in &dump.interpreted {
        let _ = writeln!(summary, "interpreted {name}: {why}");
    }
    let path = dir.join("summary.txt");
    std::fs::write(&path, &summary).map_err(|e| format!("{}: {e}", path.display()))?;
    dump.files.push(path);
    Ok(dump)
}

/// Why lowering left an op in the graph: the reason code of its remark, by the op's
/// location (the first remark with a code wins).
fn boundary_codes(lowering: &[Diag]) -> HashMap<String, String> {
    let mut boundary_code: HashMap<String, String> = HashMap::new();
    for d in lowering {
        if let Some(code) = code_of(&d.message) {
            boundary_code.entry(diag_key(d)).or_insert(code);
        }
    }
    boundary_code
}

/// The kernel calls before fusion by location key: the labels (callees) of the calls
/// at each (ops decomposed from one op share its location).
pub type CallsAt = HashMap<String, Vec<String>>;

/// The kernel calls of `module` before fusion, to find the one-op kernels `--fuse`
/// lifted back to their op.
pub fn calls_before_fusion(module: &Module) -> CallsAt {
    let mut call_at = CallsAt::new();
    for func in extract::functions(module.body()) {
        if func.has_attribute("ascir.axes") {
            continue;
        }
        if let Some(ex) = extract::extract_function(func) {
            for (node, op) in ex.graph.nodes.iter().zip(&ex.ops) {
                if let Some(c) = callee(node) {
                    call_at.entry(op_key(op)).or_default().push(c.to_string());
                }
            }
        }
    }
    call_at
}

/// What `--fuse` decided, per function of its report.
#[derive(Default)]
struct FusionDecisions {
    /// Pre-fusion call label -> final kernel name.
    final_of: HashMap<String, String>,
    /// The refusal code of each pair of final kernels kept apart (the last refused
    /// attempt, as the remarks).
    pair_code: HashMap<(String, String), String>,
    /// Pre-fusion call label -> the op its one-op kernel was lifted back to, and the
    /// reason code of the lifting (`AF-NF012`).
    lifted: HashMap<String, (String, String)>,
}

impl FusionDecisions {
    fn from_report(report: &serde_json::Value) -> FusionDecisions {
        let mut decisions = FusionDecisions::default();
        for f in report["functions"].as_array().into_iter().flatten() {
            decisions.read_kernels(f);
            decisions.read_refusals(f);
        }
        decisions
    }

    /// The final kernels of function `f`: which calls each replaced, and the op a
    /// lifted one became.
    fn read_kernels(&mut self, f: &serde_json::Value) {
        for k in f["kernels"].as_array().into_iter().flatten() {
            let name = k["name"].as_str().unwrap_or_default().to_string();
            for c in k["calls_replaced"].as_array().into_iter().flatten() {
                if let Some(c) = c.as_str() {
                    self.final_of.insert(c.to_string(), name.clone());
                    if let Some(op) = k["lifted_to"].as_str() {
                        // A report without a lift code (older than AF-NF012) leaves the
                        // lifted op's edges uncoded.
                        let code = k["lift_code"].as_str().unwrap_or("lifted");
                        self.lifted
                            .insert(c.to_string(), (op.to_string(), code.to_string()));
                    }
                }
            }
        }
    }

    /// The refused decisions of function `f`, as codes between final kernels.
    fn read_refusals(&mut self, f: &serde_json::Value) {
        for d in f["decisions"].as_array().into_iter().flatten() {
            if d["outcome"] != "refused" {
                continue;
            }
            // Every final kernel that holds a call of either side (lifting may have
            // split a side again).
            let side = |key: &str| -> Vec<String> {
                let mut finals: Vec<String> = d[key]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|c| c.as_str())
                    .filter_map(|c| self.final_of.get(c).cloned())
                    .collect();
                finals.sort();
                finals.dedup();
                finals
            };
            let Some(code) = d["code"].as_str() else {
                continue;
            };
            for a in side("first_calls") {
                for b in side("second_calls") {
                    if a != b {
                        self.pair_code
                            .insert(ordered(a.clone(), b), code.to_string());
                    }
                }
            }
        }
    }
}

/// A graph function with each node's location key (`op_key`).
type KeyedGraph = (Graph, Vec<String>);

/// The graph functions after `--fuse` (with each node's location key) and its kernels
/// by name; launch functions are neither.
fn functions_after_fusion(module: &Module) -> (Vec<KeyedGraph>, BTreeMap<String, Graph>) {
    let mut graphs: Vec<KeyedGraph> = Vec::new();
    let mut kernels: BTreeMap<String, Graph> = BTreeMap::new();
    for func in extract::functions(module.body()) {
        let Some(ex) = extract::extract_function(func) else {
            continue;
        };
        if func.has_attribute("ascir.axes") {
            kernels.insert(ex.graph.name.clone(), ex.graph);
        } else if !extract::read_attributes(&func).contains_key("ascir.launch") {
            let keys = ex.ops.iter().map(op_key).collect();
            graphs.push((ex.graph, keys));
        }
    }
    (graphs, kernels)
}

/// Kernels are numbered in program order (then the ones no graph calls).
fn number_kernels(
    graphs: &[KeyedGraph],
    kernels: &BTreeMap<String, Graph>,
) -> HashMap<String, usize> {
    let mut order: Vec<&String> = Vec::new();
    for (graph, _) in graphs {
        for node in &graph.nodes {
            if let Some((name, _)) = callee(node).and_then(|c| kernels.get_key_value(c)) {
                if !order.contains(&name) {
                    order.push(name);
                }
            }
        }
    }
    for name in kernels.keys() {
        if !order.contains(&name) {
            order.push(name);
        }
    }
    order
        .iter()
        .enumerate()
        .map(|(i, k)| ((*k).clone(), i))
        .collect()
}

/// What the drawings of the graph functions read.
struct FusionFacts<'a> {
    source_name: &'a str,
    snapshot: &'a FuseSnapshot,
    kernel_index: HashMap<String, usize>,
    /// Kernels left to the interpreter -> why.
    interpreted: HashMap<String, String>,
}

impl FusionFacts<'_> {
    /// The DOT picture and summary lines of graph function `graph` after `--fuse`.
    fn draw_graph<'g>(&'g self, graph: &'g Graph, keys: &'g [String]) -> GraphDrawing<'g> {
        let mut d = GraphDrawing {
            facts: self,
            graph,
            keys,
            dot: String::new(),
            summary: String::new(),
            producer: HashMap::new(),
            kinds: HashMap::new(),
            via: HashMap::new(),
            kernels: Vec::new(),
            boundary: Vec::new(),
            unfused: Vec::new(),
        };
        d.draw_header_and_inputs();
        d.draw_nodes();
        let _ = writeln!(
            d.dot,
            "  \"return\" [shape=ellipse, style=filled, fillcolor=\"#eeeeee\", label=\"outputs\"];"
        );
        d.draw_edges();
        let _ = writeln!(d.dot, "}}");
        d
    }
}

/// What a drawn node of a graph function is.
#[derive(PartialEq)]
enum Kind {
    Kernel,
    /// A boundary op, with its reason (a code, `lifted:<label>` or `boundary`).
    Boundary(String),
}

/// One graph function's picture under construction, and what it found.
struct GraphDrawing<'a> {
    facts: &'a FusionFacts<'a>,
    graph: &'a Graph,
    /// Each node's location key.
    keys: &'a [String],
    dot: String,
    summary: String,
    /// Node id of each value's producer; arguments are input nodes, views are looked
    /// through.
    producer: HashMap<usize, String>,
    kinds: HashMap<String, Kind>,
    /// Values behind a view `--fuse` lifted back from a kernel of its own: that
    /// kernel's call label.
    via: HashMap<usize, String>,
    kernels: Vec<String>,
    boundary: Vec<String>,
    unfused: Vec<(String, String, String)>,
}

impl GraphDrawing<'_> {
    /// The graph's attributes, its summary heading and one input node per argument.
    fn draw_header_and_inputs(&mut self) {
        let graph = self.graph;
        let dot = &mut self.dot;
        let _ = writeln!(dot, "digraph \"{}\" {{", dot_escape(&graph.name));
        let _ = writeln!(
            dot,
            "  graph [rankdir=TB, fontname=\"Helvetica\", label=\"@{} after --fuse (source {})\", labelloc=t];",
            dot_escape(&graph.name),
            dot_escape(self.facts.source_name)
        );
        let _ = writeln!(dot, "  node [fontname=\"Helvetica\", fontsize=10];");
        let _ = writeln!(dot, "  edge [fontname=\"Helvetica\", fontsize=9];");
        let _ = writeln!(self.summary, "@{} after --fuse:", graph.name);
        for (i, &arg) in graph.arguments.iter().enumerate() {
            let id = format!("arg{i}");
            let ty = graph.ty(arg).map(|t| format!("{t:?}")).unwrap_or_default();
            let _ = ty;
            let _ = writeln!(
                dot,
                "  \"{id}\" [shape=ellipse, style=filled, fillcolor=\"#eeeeee\", label=\"input {i}\"];"
            );
            self.producer.insert(arg, id);
        }
    }

    /// A node per kernel call and per boundary op (views are looked through, sources
    /// are not drawn), then the summary's count of each boundary op.
    fn draw_nodes(&mut self) {
        let graph = self.graph;
        let mut boundary_count: BTreeMap<String, usize> = BTreeMap::new();
        for (n, node) in graph.nodes.iter().enumerate() {
            if node.op == "func.return" || is_source(&node.op) {
                continue;
            }
            let id = if let Some(c) =
                callee(node).filter(|c| self.facts.snapshot.kernels.contains_key(*c))
            {
                self.draw_kernel(c)
            } else if is_view(&node.op) {
                self.look_through_view(n, node);
                continue;
            } else {
                *boundary_count.entry(node.op.clone()).or_default() += 1;
                self.draw_boundary_op(n, node)
            };
            for &r in &node.results {
                self.producer.insert(r, id.clone());
            }
        }
        for (op, n) in &boundary_count {
            let _ = writeln!(self.summary, "  boundary op {op} x{n}");
        }
    }

    /// The node of a call of kernel `c`: its number, colour and first ops (a red border
    /// when the interpreter runs it); returns its id.
    fn draw_kernel(&mut self, c: &str) -> String {
        let facts = self.facts;
        let id = c.to_string();
        let k = &facts.snapshot.kernels[c];
        let ops: Vec<&str> = k
            .nodes
            .iter()
            .map(|x| short_op(&x.op))
            .filter(|o| !matches!(*o, "data" | "output" | "load" | "store" | "return"))
            .collect();
        let colour = PALETTE[facts.kernel_index[&id] % PALETTE.len()];
        let (border, note) = match facts.interpreted.get(c) {
            Some(_) => ("color=red, penwidth=3, ", "\\n(interpreted: no schedule)"),
            None => ("", ""),
        };
        let mut shown = ops.iter().take(8).cloned().collect::<Vec<_>>().join(" ");
        if ops.len() > 8 {
            let _ = write!(shown, " +{}", ops.len() - 8);
        }
        let _ = writeln!(
            self.dot,
            "  \"{}\" [shape=box, style=\"rounded,filled\", {border}fillcolor=\"{colour}\", label=\"kernel {}\\n{}{note}\", tooltip=\"{}\"];",
            dot_escape(&id),
            facts.kernel_index[&id],
            dot_escape(&shown),
            dot_escape(&id)
        );
        self.kinds.insert(id.clone(), Kind::Kernel);
        self.kernels.push(id.clone());
        let _ = writeln!(
            self.summary,
            "  kernel {} {}{}: {}",
            facts.kernel_index[&id],
            id,
            if facts.interpreted.contains_key(c) {
                " (interpreted)"
            } else {
                ""
            },
            ops.join(" ")
        );
        id
    }

    /// A view's result is its input's buffer: it takes the input's producer (and the
    /// lifted kernel an edge through it comes from).
    fn look_through_view(&mut self, n: usize, node: &Node) {
        let Some(p) = node
            .operands
            .first()
            .and_then(|v| self.producer.get(v))
            .cloned()
        else {
            return;
        };
        // A view `--fuse` lifted back from a kernel of its own: the refusal with that
        // kernel explains the edge through it.
        let lifted_from = self.lifted_label(n, node);
        let inherited = node.operands.first().and_then(|v| self.via.get(v)).cloned();
        for &r in &node.results {
            self.producer.insert(r, p.clone());
            if let Some(l) = lifted_from.clone().or(inherited.clone()) {
                self.via.insert(r, l);
            }
        }
    }

    /// The label of the kernel call `--fuse` lifted back to node `n`: a call at the
    /// node's location lifted to the node's op.
    fn lifted_label(&self, n: usize, node: &Node) -> Option<String> {
        let snapshot = self.facts.snapshot;
        snapshot
            .call_at
            .get(&self.keys[n])?
            .iter()
            .find(|l| {
                snapshot
                    .decisions
                    .lifted
                    .get(*l)
                    .is_some_and(|(op, _)| *op == node.op)
            })
            .cloned()
    }

    /// The node of a boundary op, labelled with why it stayed a graph op; returns its
    /// id.
    fn draw_boundary_op(&mut self, n: usize, node: &Node) -> String {
        let facts = self.facts;
        let id = format!("n{n}");
        let key = &self.keys[n];
        let reason = if let Some(label) = self.lifted_label(n, node) {
            format!("lifted:{label}")
        } else if let Some(code) = facts.snapshot.boundary_code.get(key) {
            code.clone()
        } else {
            "boundary".into()
        };
        let shown = reason.split(':').next().unwrap_or_default().to_string();
        let _ = writeln!(
            self.dot,
            "  \"{id}\" [shape=box, style=\"filled,bold\", fillcolor=\"#d9d9d9\", label=\"{}\\n[{}]\", tooltip=\"boundary op {}\"];",
            dot_escape(&node.op),
            dot_escape(&shown),
            dot_escape(&node.op)
        );
        self.boundary.push(node.op.clone());
        self.kinds.insert(id.clone(), Kind::Boundary(reason));
        id
    }

    /// One edge per pair of drawn nodes a value connects, each unfused one with its
    /// reason.
    fn draw_edges(&mut self) {
        let graph = self.graph;
        let mut seen: std::collections::HashSet<(String, String)> = Default::default();
        for (n, node) in graph.nodes.iter().enumerate() {
            let to = if node.op == "func.return" {
                "return".to_string()
            } else if is_source(&node.op) || is_view(&node.op) {
                continue;
            } else {
                match self
                    .producer
                    .get(node.results.first().unwrap_or(&usize::MAX))
                {
                    Some(id) => id.clone(),
                    None => format!("n{n}"),
                }
            };
            for &v in &node.operands {
                let Some(from) = self.producer.get(&v).cloned() else {
                    continue;
                };
                if from == to || !seen.insert((from.clone(), to.clone())) {
                    continue;
                }
                let reason = self.edge_reason(&from, &to, v);
                self.draw_edge(&from, &to, reason);
            }
        }
    }

    /// Why value `v` goes through GM from `from` to `to`: between two kernels, the
    /// refusal that kept them apart (or one with the kernel a lifted view on the way
    /// came from); at a boundary op, the end with a reason code. None when neither end
    /// is drawn (an input or the outputs).
    fn edge_reason(&self, from: &String, to: &String, v: usize) -> Option<String> {
        let decisions = &self.facts.snapshot.decisions;
        let pair_code = &decisions.pair_code;
        match (self.kinds.get(from), self.kinds.get(to)) {
            (Some(Kind::Kernel), Some(Kind::Kernel)) => Some(
                pair_code
                    .get(&ordered(from.clone(), to.clone()))
                    .cloned()
                    .or_else(|| {
                        let label = self.via.get(&v)?;
                        let l = decisions.final_of.get(label)?;
                        pair_code
                            .get(&ordered(l.clone(), from.clone()))
                            .or_else(|| pair_code.get(&ordered(l.clone(), to.clone())))
                            .or_else(|| decisions.lifted.get(label).map(|(_, code)| code))
                            .map(|c| format!("{c} (via a lifted view)"))
                    })
                    .unwrap_or_else(|| "no-decision".into()),
            ),
            (Some(_), Some(_)) => {
                let a = self.end_reason(from, to);
                let b = self.end_reason(to, from);
                let coded = |r: &Option<String>| r.as_ref().is_some_and(|r| r.contains("AF-"));
                if coded(&a) {
                    a
                } else if coded(&b) {
                    b
                } else {
                    a.or(b)
                }
            }
            _ => None,
        }
    }

    /// The reason of one end of an edge: none for a kernel, a boundary op's own code, a
    /// lifted op's refusal with the other end, else the code of its lifting.
    fn end_reason(&self, me: &str, other: &str) -> Option<String> {
        let decisions = &self.facts.snapshot.decisions;
        match self.kinds.get(me)? {
            Kind::Kernel => None,
            Kind::Boundary(r) => match r.split_once(':') {
                Some(("lifted", label)) => decisions
                    .final_of
                    .get(label)
                    .and_then(|l| {
                        decisions
                            .pair_code
                            .get(&ordered(l.clone(), other.to_string()))
                    })
                    .or_else(|| decisions.lifted.get(label).map(|(_, code)| code))
                    .map(|c| format!("lifted, {c}")),
                _ => Some(r.clone()),
            },
        }
    }

    /// An edge: dashed, labelled and listed as unfused when it has a reason.
    fn draw_edge(&mut self, from: &str, to: &str, reason: Option<String>) {
        match reason {
            Some(code) => {
                let _ = writeln!(
                    self.dot,
                    "  \"{}\" -> \"{}\" [style=dashed, color=\"#c0392b\", fontcolor=\"#c0392b\", class=\"unfused\", label=\"{}\"];",
                    dot_escape(from),
                    dot_escape(to),
                    dot_escape(&code)
                );
                let _ = writeln!(self.summary, "  unfused edge {from} -> {to}: {code}");
                self.unfused.push((from.to_string(), to.to_string(), code));
            }
            None => {
                let _ = writeln!(
                    self.dot,
                    "  \"{}\" -> \"{}\";",
                    dot_escape(from),
                    dot_escape(to)
                );
            }
        }
    }
}

/// Kernel `i`'s AscGraph: its AscIR ops and their edges.
fn kernel_dot(i: usize, name: &str, k: &Graph) -> String {
    let mut dot = String::new();
    let _ = writeln!(dot, "digraph \"kernel{i}\" {{");
    let _ = writeln!(
        dot,
        "  graph [rankdir=TB, fontname=\"Helvetica\", label=\"kernel {i}: {}\", labelloc=t];",
        dot_escape(name)
    );
    let _ = writeln!(dot, "  node [fontname=\"Helvetica\", fontsize=10, shape=box, style=\"rounded,filled\", fillcolor=\"{}\"];", PALETTE[i % PALETTE.len()]);
    let mut producer: HashMap<usize, usize> = HashMap::new();
    for (n, node) in k.nodes.iter().enumerate() {
        if node.op == "func.return" {
            continue;
        }
        let index = node
            .attr("index")
            .and_then(AttrValue::as_int)
            .map(|v| format!(" {v}"))
            .unwrap_or_default();
        let _ = writeln!(
            dot,
            "  n{n} [label=\"{}{index}\"];",
            dot_escape(short_op(&node.op))
        );
        for &r in &node.results {
            producer.insert(r, n);
        }
        for &v in &node.operands {
            if let Some(p) = producer.get(&v) {
                let _ = writeln!(dot, "  n{p} -> n{n};");
            }
        }
    }
    let _ = writeln!(dot, "}}");
    dot
}

/// Writes each DOT file, and its SVG when `dump.svg` (Graphviz's `dot` found).
fn write_drawings(
    dir: &Path,
    dots: &[(String, String)],
    dump: &mut FusionDump,
) -> Result<(), String> {
    for (file, dot) in dots {
        let path = dir.join(format!("{file}.dot"));
        std::fs::write(&path, dot).map_err(|e| format!("{}: {e}", path.display()))?;
        dump.files.push(path.clone());
        if dump.svg {
            let svg = dir.join(format!("{file}.svg"));
            let out = std::process::Command::new("dot")
                .arg("-Tsvg")
                .arg(&path)
                .arg("-o")
                .arg(&svg)
                .output()
                .map_err(|e| format!("dot: {e}"))?;
            if !out.status.success() {
                return Err(format!(
                    "dot -Tsvg {}: {}",
                    path.display(),
                    String::from_utf8_lossy(&out.stderr).trim()
                ));
            }
            dump.files.push(svg);
        }
    }
    Ok(())
}

static COUNTER: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

fn ordered(a: String, b: String) -> (String, String) {
    if a <= b {
        (a, b)
    } else {
        (b, a)
    }
}

fn callee(node: &Node) -> Option<&str> {
    (node.op == "func.call")
        .then(|| node.attr("callee").and_then(AttrValue::as_symbol))
        .flatten()
}

fn sanitize(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// `dot` on PATH.
fn which_dot() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join("dot"))
        .find(|p| p.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_read_from_remarks() {
        assert_eq!(
            code_of("AF-LW001 stays a graph op"),
            Some("AF-LW001".into())
        );
        assert_eq!(code_of("AF-NF0 x"), None);
        assert_eq!(code_of("note"), None);
    }

    #[test]
    fn the_dump_takes_the_users_passes_and_fuse_options() {
        let text = "builtin.module(infer-symbolic-shapes,lower-to-ascir{remarks=false},fuse{max-inputs=2},schedule)";
        let p = DumpPipeline::of_pipeline(text, "ascend910b")
            .unwrap()
            .unwrap();
        assert_eq!(
            p.before_fuse,
            "infer-symbolic-shapes,lower-to-ascir{remarks=false}"
        );
        assert_eq!(p.fuse_options, "max-inputs=2 target=ascend910b");
        assert_eq!(p.target, "ascend910b");
        // fuse's own target wins over the default.
        let p = DumpPipeline::of_pipeline("fuse{target=ascend950}", "ascend910b")
            .unwrap()
            .unwrap();
        assert_eq!(
            (p.before_fuse.as_str(), p.target.as_str()),
            ("", "ascend950")
        );
        assert_eq!(p.fuse_options, "target=ascend950");
        // No fuse: the caller takes the standard pipeline.
        assert_eq!(
            DumpPipeline::of_pipeline("infer-symbolic-shapes", "x"),
            Ok(None)
        );
        assert_eq!(
            DumpPipeline::standard("ascend910b").before_fuse,
            crate::FRONT_PIPELINE
        );
    }
}
