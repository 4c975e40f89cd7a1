//! `--dump-fusion=DIR`: what `--fuse` did, as pictures.
//!
//! Compiles the `ascend` graph through `lower-to-ascir` and `fuse` (with its JSON report)
//! and writes to DIR:
//! - `<function>.dot` / `.svg`: every graph function after `--fuse`, one colour per
//!   kernel (the node's title is the kernel's name), boundary ops (ops left outside every
//!   kernel, drawn as grey boxes) and kernels the schedule cannot express (left to the
//!   interpreter: red border) marked; every edge between two different kernels or
//!   between a kernel and a boundary op is "unfused" (dashed, `class="unfused"`) and
//!   labelled with its reason code: the `AF-NF###` refusal of `--fuse` between the two
//!   kernels, or the boundary op's own code (`AF-LW###` / `AF-DC###`: why lowering left
//!   it a graph op), `lifted` for a one-op kernel `--fuse` turned back into its op, and
//!   `view` for a reshape-like op that moves no data;
//! - `kernel-<n>.dot` / `.svg`: each kernel's AscGraph (its AscIR ops and their edges);
//! - `summary.txt`: kernels with their ops, boundary ops, and the unfused edges.
//!
//! SVG comes from Graphviz's `dot` (Debian package graphviz, installed by
//! scripts/setup.sh); without it only the DOT files are written and the result says so.

use crate::{run_pipeline_diags, RunOptions};
use autofuse_ir::attr::AttrValue;
use autofuse_ir::graph::Graph;
use autofuse_mlir::diagnostics::{self, Diag};
use autofuse_mlir::extract;
use melior::ir::operation::OperationLike;
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

/// Compiles `text` through `lower-to-ascir` and `fuse` and writes the pictures to `dir`.
pub fn dump_fusion(
    context: &melior::Context,
    text: &[u8],
    source_name: &str,
    options: &RunOptions,
    dir: &Path,
) -> Result<FusionDump, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut module = autofuse_mlir::parse::load_module(context, text, source_name)?;
    let lowering = run_pipeline_diags(&mut module, crate::FRONT_PIPELINE)?;
    // Why lowering left an op in the graph, by the op's location.
    let mut boundary_code: HashMap<String, String> = HashMap::new();
    for d in &lowering {
        if let Some(code) = code_of(&d.message) {
            boundary_code.entry(diag_key(d)).or_insert(code);
        }
    }
    // The kernel calls before fusion: label (callee) -> location, to find the one-op
    // kernels `--fuse` lifted back to their op.
    let mut call_at: HashMap<String, String> = HashMap::new();
    for func in extract::functions(module.body()) {
        if func.has_attribute("ascir.axes") {
            continue;
        }
        if let Some(ex) = extract::extract_function(func) {
            for (node, op) in ex.graph.nodes.iter().zip(&ex.ops) {
                if let Some(c) = callee(node) {
                    call_at.insert(op_key(op), c.to_string());
                }
            }
        }
    }
    let report_file = std::env::temp_dir().join(format!(
        "autofuse-fusion-report-{}-{}.json",
        std::process::id(),
        COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    let fused = run_pipeline_diags(
        &mut module,
        &format!(
            "fuse{{target={} report={}}}",
            options.target,
            report_file.display()
        ),
    );
    let report = std::fs::read_to_string(&report_file).unwrap_or_default();
    let _ = std::fs::remove_file(&report_file);
    fused?;
    let report: serde_json::Value = if report.is_empty() {
        serde_json::Value::Null
    } else {
        serde_json::from_str(&report).map_err(|e| format!("the fusion report: {e}"))?
    };
    // Per function: pre-fusion call label -> final kernel name, and the refusal code of
    // each pair of final kernels kept apart (the last refused attempt, as the remarks).
    let mut final_of: HashMap<String, String> = HashMap::new();
    let mut pair_code: HashMap<(String, String), String> = HashMap::new();
    let mut lifted: HashMap<String, String> = HashMap::new();
    for f in report["functions"].as_array().into_iter().flatten() {
        for k in f["kernels"].as_array().into_iter().flatten() {
            let name = k["name"].as_str().unwrap_or_default().to_string();
            for c in k["calls_replaced"].as_array().into_iter().flatten() {
                if let Some(c) = c.as_str() {
                    final_of.insert(c.to_string(), name.clone());
                    if let Some(op) = k["lifted_to"].as_str() {
                        lifted.insert(c.to_string(), op.to_string());
                    }
                }
            }
        }
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
                    .filter_map(|c| final_of.get(c).cloned())
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
                        pair_code.insert(ordered(a.clone(), b), code.to_string());
                    }
                }
            }
        }
    }

    // The graph functions and kernels after --fuse.
    let mut graphs: Vec<(Graph, Vec<String>)> = Vec::new();
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
    // Kernels the schedule cannot express run on the interpreter (AF-SC001 names them).
    let mut dump = FusionDump::default();
    if let Ok(diags) = run_pipeline_diags(
        &mut module,
        &format!("schedule{{target={}}}", options.target),
    ) {
        for d in diags {
            if let Some(rest) = d.message.strip_prefix("AF-SC001 @") {
                let name = rest
                    .split_whitespace()
                    .next()
                    .unwrap_or_default()
                    .to_string();
                if kernels.contains_key(&name) {
                    dump.interpreted.push((name, d.message.clone()));
                }
            }
        }
    }
    let interpreted: HashMap<&str, &str> = dump
        .interpreted
        .iter()
        .map(|(n, w)| (n.as_str(), w.as_str()))
        .collect();
    // Kernels are numbered in program order (then the ones no graph calls).
    let mut order: Vec<&String> = Vec::new();
    for (graph, _) in &graphs {
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
    let kernel_index: HashMap<&String, usize> =
        order.iter().enumerate().map(|(i, k)| (*k, i)).collect();

    let mut summary = String::new();
    let mut dots: Vec<(String, String)> = Vec::new();
    for (graph, keys) in &graphs {
        let mut dot = String::new();
        let _ = writeln!(dot, "digraph \"{}\" {{", dot_escape(&graph.name));
        let _ = writeln!(
            dot,
            "  graph [rankdir=TB, fontname=\"Helvetica\", label=\"@{} after --fuse (source {})\", labelloc=t];",
            dot_escape(&graph.name),
            dot_escape(source_name)
        );
        let _ = writeln!(dot, "  node [fontname=\"Helvetica\", fontsize=10];");
        let _ = writeln!(dot, "  edge [fontname=\"Helvetica\", fontsize=9];");
        let _ = writeln!(summary, "@{} after --fuse:", graph.name);
        // Node id of each value's producer; arguments are input nodes.
        let mut producer: HashMap<usize, String> = HashMap::new();
        for (i, &arg) in graph.arguments.iter().enumerate() {
            let id = format!("arg{i}");
            let ty = graph.ty(arg).map(|t| format!("{t:?}")).unwrap_or_default();
            let _ = ty;
            let _ = writeln!(
                dot,
                "  \"{id}\" [shape=ellipse, style=filled, fillcolor=\"#eeeeee\", label=\"input {i}\"];"
            );
            producer.insert(arg, id);
        }
        // What each drawn node is: a kernel (by name), a boundary op, a view.
        #[derive(PartialEq)]
        enum Kind {
            Kernel,
            Boundary(String),
        }
        let mut kinds: HashMap<String, Kind> = HashMap::new();
        let mut via: HashMap<usize, String> = HashMap::new();
        let mut boundary_count: BTreeMap<String, usize> = BTreeMap::new();
        for (n, node) in graph.nodes.iter().enumerate() {
            if node.op == "func.return" || is_source(&node.op) {
                continue;
            }
            let id;
            if let Some(c) = callee(node).filter(|c| kernels.contains_key(*c)) {
                id = c.to_string();
                let k = &kernels[c];
                let ops: Vec<&str> = k
                    .nodes
                    .iter()
                    .map(|x| short_op(&x.op))
                    .filter(|o| !matches!(*o, "data" | "output" | "load" | "store" | "return"))
                    .collect();
                let colour = PALETTE[kernel_index[&id] % PALETTE.len()];
                let (border, note) = match interpreted.get(c) {
                    Some(_) => ("color=red, penwidth=3, ", "\\n(interpreted: no schedule)"),
                    None => ("", ""),
                };
                let mut shown = ops.iter().take(8).cloned().collect::<Vec<_>>().join(" ");
                if ops.len() > 8 {
                    let _ = write!(shown, " +{}", ops.len() - 8);
                }
                let _ = writeln!(
                    dot,
                    "  \"{}\" [shape=box, style=\"rounded,filled\", {border}fillcolor=\"{colour}\", label=\"kernel {}\\n{}{note}\", tooltip=\"{}\"];",
                    dot_escape(&id),
                    kernel_index[&id],
                    dot_escape(&shown),
                    dot_escape(&id)
                );
                kinds.insert(id.clone(), Kind::Kernel);
                dump.kernels.push(id.clone());
                let _ = writeln!(
                    summary,
                    "  kernel {} {}{}: {}",
                    kernel_index[&id],
                    id,
                    if interpreted.contains_key(c) {
                        " (interpreted)"
                    } else {
                        ""
                    },
                    ops.join(" ")
                );
            } else if is_view(&node.op) {
                // Views are looked through: their result is their input's buffer.
                if let Some(p) = node.operands.first().and_then(|v| producer.get(v)).cloned() {
                    // A view `--fuse` lifted back from a kernel of its own: the refusal
                    // with that kernel explains the edge through it.
                    let lifted_from = call_at.get(&keys[n]).filter(|l| lifted.contains_key(*l));
                    let inherited = node.operands.first().and_then(|v| via.get(v)).cloned();
                    for &r in &node.results {
                        producer.insert(r, p.clone());
                        if let Some(l) = lifted_from.cloned().or(inherited.clone()) {
                            via.insert(r, l);
                        }
                    }
                }
                continue;
            } else {
                id = format!("n{n}");
                let key = &keys[n];
                let reason = if let Some(code) = boundary_code.get(key) {
                    code.clone()
                } else if let Some(label) = call_at.get(key).filter(|l| lifted.contains_key(*l)) {
                    format!("lifted:{label}")
                } else {
                    "boundary".into()
                };
                let shown = reason.split(':').next().unwrap_or_default().to_string();
                let _ = writeln!(
                    dot,
                    "  \"{id}\" [shape=box, style=\"filled,bold\", fillcolor=\"#d9d9d9\", label=\"{}\\n[{}]\", tooltip=\"boundary op {}\"];",
                    dot_escape(&node.op),
                    dot_escape(&shown),
                    dot_escape(&node.op)
                );
                *boundary_count.entry(node.op.clone()).or_default() += 1;
                dump.boundary.push(node.op.clone());
                kinds.insert(id.clone(), Kind::Boundary(reason));
            }
            for &r in &node.results {
                producer.insert(r, id.clone());
            }
        }
        for (op, n) in &boundary_count {
            let _ = writeln!(summary, "  boundary op {op} x{n}");
        }
        let _ = writeln!(
            dot,
            "  \"return\" [shape=ellipse, style=filled, fillcolor=\"#eeeeee\", label=\"outputs\"];"
        );
        let mut seen: std::collections::HashSet<(String, String)> = Default::default();
        for (n, node) in graph.nodes.iter().enumerate() {
            let to = if node.op == "func.return" {
                "return".to_string()
            } else if is_source(&node.op) || is_view(&node.op) {
                continue;
            } else {
                match producer.get(node.results.first().unwrap_or(&usize::MAX)) {
                    Some(id) => id.clone(),
                    None => format!("n{n}"),
                }
            };
            for &v in &node.operands {
                let Some(from) = producer.get(&v) else {
                    continue;
                };
                if *from == to || !seen.insert((from.clone(), to.clone())) {
                    continue;
                }
                // The reason of each end: a kernel's refusal with the other end, a
                // boundary op's own code, a lifted op's refusal with the other end.
                let side = |me: &String, other: &String| -> Option<String> {
                    match kinds.get(me)? {
                        Kind::Kernel => None,
                        Kind::Boundary(r) => match r.split_once(':') {
                            Some(("lifted", label)) => final_of
                                .get(label)
                                .and_then(|l| pair_code.get(&ordered(l.clone(), other.clone())))
                                .map(|c| format!("lifted, {c}"))
                                .or_else(|| Some("lifted".into())),
                            _ => Some(r.clone()),
                        },
                    }
                };
                let reason = match (kinds.get(from), kinds.get(&to)) {
                    (Some(Kind::Kernel), Some(Kind::Kernel)) => Some(
                        pair_code
                            .get(&ordered(from.clone(), to.clone()))
                            .cloned()
                            .or_else(|| {
                                let l = final_of.get(via.get(&v)?)?;
                                pair_code
                                    .get(&ordered(l.clone(), from.clone()))
                                    .or_else(|| pair_code.get(&ordered(l.clone(), to.clone())))
                                    .map(|c| format!("{c} (via a lifted view)"))
                            })
                            .unwrap_or_else(|| "no-decision".into()),
                    ),
                    (Some(_), Some(_)) => {
                        let a = side(from, &to);
                        let b = side(&to, from);
                        let coded =
                            |r: &Option<String>| r.as_ref().is_some_and(|r| r.contains("AF-"));
                        if coded(&a) {
                            a
                        } else if coded(&b) {
                            b
                        } else {
                            a.or(b)
                        }
                    }
                    _ => None,
                };
                match reason {
                    Some(code) => {
                        let _ = writeln!(
                            dot,
                            "  \"{}\" -> \"{}\" [style=dashed, color=\"#c0392b\", fontcolor=\"#c0392b\", class=\"unfused\", label=\"{}\"];",
                            dot_escape(from),
                            dot_escape(&to),
                            dot_escape(&code)
                        );
                        let _ = writeln!(summary, "  unfused edge {from} -> {to}: {code}");
                        dump.unfused.push((from.clone(), to.clone(), code));
                    }
                    None => {
                        let _ = writeln!(
                            dot,
                            "  \"{}\" -> \"{}\";",
                            dot_escape(from),
                            dot_escape(&to)
                        );
                    }
                }
            }
        }
        let _ = writeln!(dot, "}}");
        let file = sanitize(&graph.name);
        dots.push((file, dot));
    }
    // Each kernel's AscGraph.
    for (name, k) in &kernels {
        let i = kernel_index[name];
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
        dots.push((format!("kernel-{i}"), dot));
    }
    dump.svg = which_dot().is_some();
    for (file, dot) in &dots {
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
    for (name, why) in &dump.interpreted {
        let _ = writeln!(summary, "interpreted {name}: {why}");
    }
    let path = dir.join("summary.txt");
    std::fs::write(&path, &summary).map_err(|e| format!("{}: {e}", path.display()))?;
    dump.files.push(path);
    Ok(dump)
}

static COUNTER: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

fn ordered(a: String, b: String) -> (String, String) {
    if a <= b {
        (a, b)
    } else {
        (b, a)
    }
}

fn callee(node: &autofuse_ir::graph::Node) -> Option<&str> {
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
}
