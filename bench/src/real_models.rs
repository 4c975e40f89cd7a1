//! `autofuse-bench real-models`: the committed ONNX exports of `examples/onnx/real/`
//! (issue 14, point 5), autofuse against PyTorch Inductor on the same `transformers`
//! models, configs, seeded weights and shapes.
//!
//! One run measures everything it prints:
//! 1. Inductor: `bench/quality/real_models_inductor.py` in `.venv-models/` (torch.compile
//!    on the CPU, static shapes), which rewrites `bench/quality/real_models_inductor.json`;
//!    `--inductor-json FILE` reads an earlier file instead, and the section says so.
//! 2. autofuse: `autofuse-run MODEL.onnx --inputs ... --expect ... --report-json` on every
//!    export of the manifest at the manifest's middle shape (b2 s16, Inductor's), with
//!    onnxruntime's outputs as the expected ones.
//! 3. The weights of each export (its initializers and `Constant` tensors) are read from
//!    the ONNX file here, for autofuse's minimum: the report's minimum only covers the
//!    function arguments and results, and the importer makes the weights constants.
//!
//! The section is written between markers into `fusion_quality.md`, replacing an earlier
//! one; `autofuse-bench fusion-quality` keeps it when it rewrites the file, so the two
//! generators can run in either order.

use crate::quality::{human, parse_json, run_with_report, Json};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

pub(crate) const BEGIN: &str =
    "<!-- real-models: written by `autofuse-bench real-models`; kept by `autofuse-bench fusion-quality` -->";
pub(crate) const END: &str = "<!-- real-models: end -->";

/// Where the Inductor script writes its figures (committed, next to the script).
const INDUCTOR_JSON: &str = "bench/quality/real_models_inductor.json";

/// GM target of the brief: within this factor of the minimum.
const GM_TARGET: f64 = 1.05;

struct Options {
    autofuse_run: PathBuf,
    models: PathBuf,
    python: PathBuf,
    inductor_script: PathBuf,
    /// Read Inductor's figures from this file instead of measuring them.
    inductor_json: Option<PathBuf>,
    out: PathBuf,
    findings: PathBuf,
}

fn parse(mut args: impl Iterator<Item = String>) -> Result<Options, String> {
    let mut o = Options {
        autofuse_run: PathBuf::from("target/release/autofuse-run"),
        models: PathBuf::from("examples/onnx/real"),
        python: PathBuf::from(".venv-models/bin/python"),
        inductor_script: PathBuf::from("bench/quality/real_models_inductor.py"),
        inductor_json: None,
        out: PathBuf::from("docs/benchmarks"),
        findings: PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/findings/fusion_quality_real_models.md"
        )),
    };
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{arg} needs a value"));
        match arg.as_str() {
            "--autofuse-run" => o.autofuse_run = PathBuf::from(value()?),
            "--models" => o.models = PathBuf::from(value()?),
            "--python" => o.python = PathBuf::from(value()?),
            "--inductor-script" => o.inductor_script = PathBuf::from(value()?),
            "--inductor-json" => o.inductor_json = Some(PathBuf::from(value()?)),
            "--out" => o.out = PathBuf::from(value()?),
            "--findings" => o.findings = PathBuf::from(value()?),
            "--help" | "-h" => {
                return Err(
                    "usage: autofuse-bench real-models [--autofuse-run PATH] [--models DIR] \
                     [--python .venv-models/bin/python] [--inductor-script PATH] \
                     [--inductor-json FILE (use these figures, do not measure)] [--out DIR] \
                     [--findings FILE]"
                        .into(),
                )
            }
            other => return Err(format!("unknown argument '{other}'")),
        }
    }
    Ok(o)
}

// ------------------------------------------------------------------ ONNX weights

/// One protobuf field: (field number, wire type, payload bytes, varint value). Varints
/// carry their value in `.3`, length-delimited and fixed fields their bytes in `.2`.
type Field<'a> = (u64, u8, &'a [u8], u64);

/// Reads a varint off the front of `b`.
fn varint(b: &mut &[u8]) -> Result<u64, String> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let (&byte, rest) = b.split_first().ok_or("truncated varint")?;
        *b = rest;
        v |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Ok(v);
        }
    }
    Err("varint too long".into())
}

/// The fields of one protobuf message, in order. A reader of the few ONNX fields needed
/// here, so that the bench crate needs no protobuf dependency and no importer code: the
/// minimum is a property of the file, not of how autofuse imports it.
fn fields(mut b: &[u8]) -> Result<Vec<Field<'_>>, String> {
    let mut out = Vec::new();
    while !b.is_empty() {
        let key = varint(&mut b)?;
        let (field, wire) = (key >> 3, (key & 7) as u8);
        match wire {
            0 => {
                let v = varint(&mut b)?;
                out.push((field, wire, &b[..0], v));
            }
            1 | 5 => {
                let n = if wire == 1 { 8 } else { 4 };
                if b.len() < n {
                    return Err("truncated fixed field".into());
                }
                out.push((field, wire, &b[..n], 0));
                b = &b[n..];
            }
            2 => {
                let n = varint(&mut b)? as usize;
                if b.len() < n {
                    return Err("truncated length-delimited field".into());
                }
                out.push((field, wire, &b[..n], 0));
                b = &b[n..];
            }
            other => return Err(format!("unsupported wire type {other}")),
        }
    }
    Ok(out)
}

/// Bytes of a `TensorProto`'s elements: its dims times the size of its data type.
fn tensor_bytes(t: &[u8]) -> Result<u64, String> {
    let mut elements = 1u64;
    let mut dtype = 0u64;
    for (field, wire, payload, v) in fields(t)? {
        match (field, wire) {
            // dims: repeated int64, packed or not.
            (1, 0) => elements *= v,
            (1, 2) => {
                let mut p = payload;
                while !p.is_empty() {
                    elements *= varint(&mut p)?;
                }
            }
            (2, 0) => dtype = v,
            _ => {}
        }
    }
    // TensorProto.DataType: FLOAT, UINT8, INT8, UINT16, INT16, INT32, INT64, STRING, BOOL,
    // FLOAT16, DOUBLE, UINT32, UINT64, ..., BFLOAT16 (16).
    let size = match dtype {
        2 | 3 | 9 => 1,
        4 | 5 | 10 | 16 => 2,
        1 | 6 | 12 => 4,
        7 | 11 | 13 => 8,
        other => return Err(format!("tensor data type {other} not sized here")),
    };
    Ok(elements * size)
}

/// What the ONNX file holds: node count and the bytes of its weights, i.e. every
/// initializer plus every tensor-valued `Constant` node (the exporters write constant
/// buffers such as BERT's position ids as `Constant` nodes), as the importer turns them
/// into `ascend.constant`s.
struct OnnxWeights {
    nodes: usize,
    initializer_bytes: u64,
    constant_bytes: u64,
}

fn onnx_weights(path: &Path) -> Result<OnnxWeights, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let err = |e: String| format!("{}: {e}", path.display());
    // ModelProto.graph = 7; GraphProto.node = 1, initializer = 5; NodeProto.op_type = 4,
    // attribute = 5; AttributeProto.t = 5.
    let model = fields(&bytes).map_err(err)?;
    let graph = model
        .iter()
        .find(|f| f.0 == 7 && f.1 == 2)
        .ok_or_else(|| format!("{}: no graph", path.display()))?
        .2;
    let mut w = OnnxWeights {
        nodes: 0,
        initializer_bytes: 0,
        constant_bytes: 0,
    };
    for (field, wire, payload, _) in fields(graph).map_err(err)? {
        match (field, wire) {
            (1, 2) => {
                w.nodes += 1;
                let node = fields(payload).map_err(err)?;
                if node.iter().any(|f| f.0 == 4 && f.2 == b"Constant") {
                    for (_, _, attr, _) in node.iter().filter(|f| f.0 == 5 && f.1 == 2) {
                        for (af, aw, t, _) in fields(attr).map_err(err)? {
                            if (af, aw) == (5, 2) {
                                w.constant_bytes += tensor_bytes(t).map_err(err)?;
                            }
                        }
                    }
                }
            }
            (5, 2) => w.initializer_bytes += tensor_bytes(payload).map_err(err)?,
            _ => {}
        }
    }
    Ok(w)
}

// ------------------------------------------------------------------ measurements

/// One export, measured.
struct Model {
    file: String,
    model: String,
    exporter: String,
    /// Node count and weights of the file (the summary line's node count must agree).
    weights: OnnxWeights,
    /// Outputs matched the interpreter and onnxruntime's.
    pass: bool,
    emulated: usize,
    interpreted: usize,
    matmuls: usize,
    /// Boundary ops other than matmuls, by op name: count and GM bytes.
    other_boundary: BTreeMap<String, (usize, f64)>,
    /// Why kernels were left to the interpreter (autofuse-run's build lines), by reason.
    interpreted_why: BTreeMap<String, usize>,
    gm_total: f64,
    gm_emulated: f64,
    gm_matmul: f64,
    gm_other_boundary: f64,
    gm_interpreted: f64,
    /// Function arguments + results at this shape (the report's `gm_bytes.minimum`).
    io_minimum: f64,
    /// The emulated kernels' bytes over their own minimum ("1.299x"), from the summary.
    emulated_vs_own: Option<String>,
    /// The sequence the model sees where only its batch is dynamic (the manifest's
    /// `fixed_seq`).
    fixed_seq: Option<f64>,
}

impl Model {
    fn launches(&self) -> usize {
        self.emulated + self.interpreted + self.matmuls + self.other_boundaries()
    }
    fn other_boundaries(&self) -> usize {
        self.other_boundary.values().map(|(n, _)| n).sum()
    }
    fn minimum(&self) -> f64 {
        self.io_minimum + (self.weights.initializer_bytes + self.weights.constant_bytes) as f64
    }
}

fn is_matmul(op: &str) -> bool {
    op.starts_with("ascend.") && op.contains("matmul")
}

/// The files of one (batch, seq) entry of the manifest: input .npy files in the order
/// the manifest lists them (the graph's input order) and the expected outputs.
fn shape_files(entry: &Json, dir: &Path) -> (Vec<String>, Vec<String>) {
    let path = |j: &Json| {
        j.get("file")
            .and_then(Json::str)
            .map(|f| dir.join(f).display().to_string())
    };
    let inputs = match entry.get("inputs") {
        Some(Json::Obj(fields)) => fields.iter().filter_map(|(_, v)| path(v)).collect(),
        _ => Vec::new(),
    };
    let outputs = entry
        .get("outputs")
        .map(Json::arr)
        .unwrap_or_default()
        .iter()
        .filter_map(path)
        .collect();
    (inputs, outputs)
}

fn measure(
    options: &Options,
    file: &str,
    spec: &Json,
    batch: f64,
    seq: f64,
    dir: &Path,
) -> Result<Model, String> {
    let onnx = options.models.join(file);
    let weights = onnx_weights(&onnx)?;
    // A model whose sequence is fixed (`fixed_seq`: ViT's patches, Whisper's frames) runs
    // at the batch alone: its manifest entries give the sequence it sees.
    let fixed_seq = spec.path_num(&["fixed_seq"]);
    let entry = spec
        .get("shapes")
        .map(Json::arr)
        .unwrap_or_default()
        .iter()
        .find(|s| {
            s.path_num(&["batch"]) == Some(batch)
                && s.path_num(&["seq"]) == Some(fixed_seq.unwrap_or(seq))
        })
        .ok_or_else(|| format!("{file}: no b{batch} s{seq} entry in the manifest"))?;
    let (inputs, expect) = shape_files(entry, &options.models);
    let report = dir.join(format!("{file}.json"));
    let log = dir.join(format!("{file}.log"));
    // -v: the per-kernel lines (why a kernel was interpreted) are read below.
    let args = [
        "-v".to_string(),
        "--inputs".to_string(),
        inputs.join(","),
        "--expect".to_string(),
        expect.join(","),
    ];
    let json = run_with_report(&options.autofuse_run, &onnx, &args, &report, &log, file)?;
    let stdout = std::fs::read_to_string(&log).unwrap_or_default();
    let run = json
        .get("runs")
        .map(Json::arr)
        .and_then(|r| r.first())
        .ok_or_else(|| format!("{file}: no run in the report"))?;
    if let Some(e) = run.get("error").and_then(Json::str) {
        return Err(format!("{file}: autofuse-run: {e}"));
    }
    let mut m = Model {
        file: file.to_string(),
        model: spec.get("model").and_then(Json::str).unwrap_or("?").into(),
        exporter: spec
            .get("exporter")
            .and_then(Json::str)
            .unwrap_or("?")
            .into(),
        weights,
        pass: json.get("pass") == Some(&Json::Bool(true)),
        emulated: 0,
        interpreted: 0,
        matmuls: 0,
        other_boundary: BTreeMap::new(),
        interpreted_why: BTreeMap::new(),
        gm_total: run.path_num(&["gm_bytes", "total"]).unwrap_or(f64::NAN),
        gm_emulated: 0.0,
        gm_matmul: 0.0,
        gm_other_boundary: 0.0,
        gm_interpreted: 0.0,
        io_minimum: run.path_num(&["gm_bytes", "minimum"]).unwrap_or(f64::NAN),
        emulated_vs_own: None,
        fixed_seq,
    };
    for k in run.get("kernels").map(Json::arr).unwrap_or_default() {
        let bytes =
            k.path_num(&["gm_read"]).unwrap_or(0.0) + k.path_num(&["gm_written"]).unwrap_or(0.0);
        let name = k.get("name").and_then(Json::str).unwrap_or("?");
        match k.get("kind").and_then(Json::str) {
            Some("emulated") => {
                m.emulated += 1;
                m.gm_emulated += bytes;
            }
            Some("interpreted") => {
                m.interpreted += 1;
                m.gm_interpreted += bytes;
            }
            _ if is_matmul(name) => {
                m.matmuls += 1;
                m.gm_matmul += bytes;
            }
            _ => {
                let e = m.other_boundary.entry(name.to_string()).or_default();
                e.0 += 1;
                e.1 += bytes;
                m.gm_other_boundary += bytes;
            }
        }
    }
    // The parts must add up to the report's total, or the breakdown misreads the report.
    let parts = m.gm_emulated + m.gm_matmul + m.gm_other_boundary + m.gm_interpreted;
    if (parts - m.gm_total).abs() > 0.5 {
        return Err(format!(
            "{file}: kernels' bytes add up to {parts}, the report's total is {}",
            m.gm_total
        ));
    }
    // What the report does not carry is read from autofuse-run's text: why a kernel was
    // left to the interpreter ("  kernel NAME: interpreted (WHY)"), the summary line's
    // ONNX node count and the emulated kernels' bytes against their own minimum.
    for line in stdout.lines() {
        if let Some((_, why)) = line.trim().split_once(": interpreted (") {
            let why = why.strip_suffix(')').unwrap_or(why);
            // "AF-SC001 @name stays in hint form: REASON" -> REASON.
            let why = why.rsplit(": ").next().unwrap_or(why);
            *m.interpreted_why.entry(why.to_string()).or_default() += 1;
        }
        if let Some(rest) = line.strip_prefix("model: ") {
            let nodes: Option<usize> = rest
                .split_once(" ONNX nodes")
                .and_then(|(n, _)| n.trim().parse().ok());
            if nodes != Some(m.weights.nodes) {
                return Err(format!(
                    "{file}: autofuse-run's summary counts {nodes:?} ONNX nodes, the file has {}",
                    m.weights.nodes
                ));
            }
            // "... vs their own minimum 221.7 KiB (1.299x) over 1 run(s)" -> "1.299x".
            m.emulated_vs_own = rest
                .split_once("vs their own minimum ")
                .and_then(|(_, r)| r.split_once(" over "))
                .and_then(|(r, _)| r.rsplit_once('('))
                .map(|(_, r)| r.trim_end_matches(')').to_string());
        }
    }
    Ok(m)
}

/// Inductor's figures for one model, from `real_models_inductor.json`.
struct Inductor {
    kernels: usize,
    fused: usize,
    matmuls: usize,
    /// Other library calls (aten fallbacks such as cumsum), by name.
    other: BTreeMap<String, usize>,
    bytes: f64,
    min_bytes: f64,
    graphs: usize,
}

fn inductor(doc: &Json, model: &str) -> Result<Inductor, String> {
    let m = doc
        .get("models")
        .and_then(|ms| ms.get(model))
        .ok_or_else(|| format!("Inductor: no figures for {model}"))?;
    if let Some(e) = m.get("error").and_then(Json::str) {
        return Err(format!("Inductor failed on {model}: {e}"));
    }
    let mut i = Inductor {
        kernels: m.path_num(&["kernels"]).unwrap_or(0.0) as usize,
        fused: 0,
        matmuls: 0,
        other: BTreeMap::new(),
        bytes: m.path_num(&["bytes"]).unwrap_or(f64::NAN),
        min_bytes: m.path_num(&["min_bytes"]).unwrap_or(f64::NAN),
        graphs: m.path_num(&["compiled_graphs"]).unwrap_or(0.0) as usize,
    };
    for g in m.get("graphs").map(Json::arr).unwrap_or_default() {
        if let Some(Json::Obj(kinds)) = g.get("kernel_kinds") {
            for (kind, n) in kinds {
                let n = n.num().unwrap_or(0.0) as usize;
                if kind == "cpp_fused" {
                    i.fused += n;
                } else if kind.starts_with("extern_kernels.") && kind.ends_with("mm") {
                    // mm, addmm, bmm: one library matmul each, as autofuse's ascend.matmul.
                    i.matmuls += n;
                } else {
                    *i.other.entry(kind.clone()).or_default() += n;
                }
            }
        }
    }
    let parts = i.fused + i.matmuls + i.other.values().sum::<usize>();
    if parts != i.kernels {
        return Err(format!(
            "Inductor {model}: kernel kinds add up to {parts}, not {}",
            i.kernels
        ));
    }
    Ok(i)
}

/// Runs the Inductor script (or reads `--inductor-json`); returns the document and a note
/// on where the figures come from.
fn inductor_doc(options: &Options) -> Result<(Json, String), String> {
    let path = match &options.inductor_json {
        Some(p) => p.clone(),
        None => {
            if !options.python.exists() {
                return Err(format!(
                    "{} does not exist: create .venv-models/ with scripts/make-real-models.sh \
                     (it also re-exports the models), or pass --inductor-json \
                     bench/quality/real_models_inductor.json to use the committed figures",
                    options.python.display()
                ));
            }
            eprintln!(
                "real-models: running {} (Inductor)",
                options.inductor_script.display()
            );
            let out = PathBuf::from(INDUCTOR_JSON);
            let status = Command::new(&options.python)
                .arg(&options.inductor_script)
                .arg("--out")
                .arg(&out)
                .stdout(Stdio::inherit())
                .stderr(Stdio::inherit())
                .status()
                .map_err(|e| format!("cannot run {}: {e}", options.python.display()))?;
            if !status.success() {
                return Err(format!(
                    "{} failed ({status})",
                    options.inductor_script.display()
                ));
            }
            out
        }
    };
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let doc = parse_json(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let note = if options.inductor_json.is_some() {
        format!(
            "Inductor's figures were read from `{}` (not measured in this run).",
            path.display()
        )
    } else {
        format!(
            "Inductor's figures were measured in this run by `{}` (written to `{}`).",
            options.inductor_script.display(),
            path.display()
        )
    };
    Ok((doc, note))
}

// ------------------------------------------------------------------ the section

fn ratio(a: f64, b: f64) -> String {
    if b > 0.0 && a.is_finite() {
        format!("{:.2}x", a / b)
    } else {
        "—".into()
    }
}

fn counts(map: &BTreeMap<String, usize>, strip: &str) -> String {
    let mut list: Vec<(&String, &usize)> = map.iter().collect();
    // Most frequent first: the ops that cost the most launches lead.
    list.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    list.iter()
        .map(|(k, n)| format!("{} ×{n}", k.strip_prefix(strip).unwrap_or(k)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The real-models section of `fusion_quality.md`, between [`BEGIN`] and [`END`]: what
/// was run, the launch and GM byte tables of both sides, where autofuse's launches and
/// bytes go, Inductor's graph breaks and library calls, and `findings`.
fn section(rows: &[(Model, Inductor)], doc: &Json, note: &str, findings: &str) -> String {
    let mut md = String::new();
    let _ = writeln!(md, "{BEGIN}\n");
    md.push_str(&intro(doc, note, rows));
    md.push_str(&launch_table(rows));
    md.push_str(&gm_table(rows));
    md.push_str(&breakdown_table(rows));
    md.push_str(&inductor_notes(rows));
    let files: Vec<&str> = rows.iter().map(|(m, _)| m.file.as_str()).collect();
    let _ = writeln!(md, "\nFiles: {}.", files.join(", "));
    if !findings.trim().is_empty() {
        let _ = writeln!(md, "\n{}", findings.trim_end());
    }
    let _ = writeln!(md, "\n{END}");
    md
}

/// The section's title and what both sides ran: models, shape, versions, and `note`.
fn intro(doc: &Json, note: &str, rows: &[(Model, Inductor)]) -> String {
    let mut md = String::new();
    let _ = writeln!(md, "## Real models: ONNX exports against Inductor\n");
    let (b, s) = (
        doc.path_num(&["shape", "batch"]).unwrap_or(0.0),
        doc.path_num(&["shape", "seq"]).unwrap_or(0.0),
    );
    let v = |k: &str| {
        doc.get("versions")
            .and_then(|v| v.get(k))
            .and_then(Json::str)
            .unwrap_or("?")
            .to_string()
    };
    let _ = writeln!(
        md,
        "Generated by `autofuse-bench real-models` (`bash bench/quality/run.sh real-models`; see \
         `docs/benchmarks/README.md`); one run on this machine. The tiny `transformers` models of \
         `examples/onnx/real/` (configs in its `manifest.json`, random seeded weights; both torch \
         ONNX exporters, dynamic batch and sequence), at batch {b} and sequence {s}: autofuse imports \
         each `.onnx` file and runs it with `autofuse-run` (kernels on the Ascend C emulation, \
         everything else in the interpreter, outputs checked against onnxruntime's); Inductor is \
         `torch.compile(backend=\"inductor\", dynamic=False)` on the CPU on the same model, config, \
         weights and inputs (torch {}, transformers {}). {note}\n",
        v("torch"),
        v("transformers")
    );
    let mut fixed: Vec<String> = rows
        .iter()
        .filter(|(m, _)| m.exporter == "dynamo")
        .filter_map(|(m, _)| m.fixed_seq.map(|s| format!("{} ({s})", m.model)))
        .collect();
    fixed.dedup();
    if !fixed.is_empty() {
        let _ = writeln!(
            md,
            "Only the batch is dynamic in {}: their inputs' other dims are fixed by the model \
             (the sequence it sees in parentheses), so they run at batch {b} with that sequence \
             on both sides.\n",
            fixed.join(", ")
        );
    }
    md
}

/// Launches per model on both sides, by kind, against the target of no more launches
/// than Inductor.
fn launch_table(rows: &[(Model, Inductor)]) -> String {
    let mut md = String::new();
    let _ = writeln!(
        md,
        "Launches count every kernel a run starts, matmuls included on both sides (each \
         autofuse `ascend.matmul` and each Inductor `extern_kernels.mm`/`addmm`/`bmm` is one). \
         autofuse: fused kernels run on the emulation, kernels left to the interpreter, and \
         boundary ops (`ascend` ops outside every kernel, which run as library kernels). \
         Inductor: generated `cpp_fused_*` kernels and library calls (extern matmuls, aten \
         fallbacks). Constants and pure views are not launches on either side. Targets: no more \
         launches than Inductor; GM bytes within {GM_TARGET:.2}x of the minimum.\n"
    );
    let _ = writeln!(
        md,
        "| model | export | ONNX nodes | autofuse launches | fused (emulated) | interpreted | matmuls | other boundary ops | Inductor launches | cpp_fused | matmuls | other library calls | launches autofuse / Inductor | ≤ Inductor? |"
    );
    let _ = writeln!(
        md,
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
    );
    for (m, i) in rows {
        let other = m.other_boundaries();
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            m.model,
            m.exporter,
            m.weights.nodes,
            m.launches(),
            m.emulated,
            m.interpreted,
            m.matmuls,
            other,
            i.kernels,
            i.fused,
            i.matmuls,
            i.other.values().sum::<usize>(),
            ratio(m.launches() as f64, i.kernels as f64),
            if m.launches() <= i.kernels {
                "yes"
            } else {
                "**no**"
            }
        );
    }
    md
}

/// GM bytes per model on both sides against each side's minimum, and the outputs'
/// comparison with onnxruntime.
fn gm_table(rows: &[(Model, Inductor)]) -> String {
    let mut md = String::new();
    let _ = writeln!(
        md,
        "\nGM bytes: autofuse's are `--report-json`'s `gm_bytes.total`: the bytes the emulation \
         counted in the fused kernels' GM↔UB copies, plus the distinct operand bytes and result \
         bytes of every boundary op and interpreted kernel (what such a kernel moves at least). \
         Inductor's are the sizes of the distinct buffers passed to each call of its wrapper. \
         The minimum is the model's graph inputs, weights and outputs, each moved once: for \
         autofuse the function arguments and results at this shape (the report's \
         `gm_bytes.minimum`) plus the bytes of the ONNX file's initializers and tensor \
         `Constant` nodes (the importer makes them constants, which the report's minimum leaves \
         out); for Inductor the wrapper's arguments (parameters, buffers such as position ids, \
         the token ids, as Inductor lifts them) plus the output. The two minima differ where the \
         export stores more than the torch module: GPT-2 and Qwen2 tie the LM head to the \
         embedding, which torch holds once and both exporters write twice (+16 KiB); the \
         exporters add folded and shape constants (under 2 KiB).\n"
    );
    let _ = writeln!(
        md,
        "| model | export | autofuse GM | autofuse minimum | autofuse GM/min | Inductor GM | Inductor minimum | Inductor GM/min | GM autofuse / Inductor | ≤ {GM_TARGET:.2}x min? | outputs vs onnxruntime |"
    );
    let _ = writeln!(md, "|---|---|---:|---:|---:|---:|---:|---:|---:|---|---|");
    for (m, i) in rows {
        let r = m.gm_total / m.minimum();
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            m.model,
            m.exporter,
            human(m.gm_total),
            human(m.minimum()),
            ratio(m.gm_total, m.minimum()),
            human(i.bytes),
            human(i.min_bytes),
            ratio(i.bytes, i.min_bytes),
            ratio(m.gm_total, i.bytes),
            if r <= GM_TARGET { "yes" } else { "**no**" },
            if m.pass { "PASS" } else { "**FAIL**" }
        );
    }
    md
}

/// Where autofuse's launches and bytes go per model: its other boundary ops, the
/// kernels left to the interpreter and why, and GM bytes by kind of launch.
fn breakdown_table(rows: &[(Model, Inductor)]) -> String {
    let mut md = String::new();
    let _ = writeln!(
        md,
        "\nWhere autofuse's launches and bytes go (from the same runs): the boundary ops other \
         than matmuls with their count and GM bytes, the kernels left to the interpreter and \
         why (`autofuse-run`'s build lines), and GM bytes by kind of launch. \"own min\" is \
         `autofuse-run`'s summary line: the fused kernels' measured bytes against their own \
         distinct operands and results, each once.\n"
    );
    let _ = writeln!(
        md,
        "| model | export | other boundary ops | interpreted kernels | GM: fused kernels (vs own min) | GM: matmuls | GM: other boundary ops | GM: interpreted |"
    );
    let _ = writeln!(md, "|---|---|---|---|---:|---:|---:|---:|");
    for (m, _) in rows {
        let why = if m.interpreted_why.is_empty() {
            "—".to_string()
        } else {
            counts(&m.interpreted_why, "")
        };
        let mut ops: Vec<(&String, &(usize, f64))> = m.other_boundary.iter().collect();
        // Most bytes first: the ops that cost the most traffic lead.
        ops.sort_by(|a, b| b.1 .1.total_cmp(&a.1 .1).then(a.0.cmp(b.0)));
        let ops: Vec<String> = ops
            .iter()
            .map(|(op, (n, bytes))| {
                format!(
                    "{} ×{n} ({})",
                    op.strip_prefix("ascend.").unwrap_or(op),
                    human(*bytes)
                )
            })
            .collect();
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} ({} own min) | {} | {} | {} |",
            m.model,
            m.exporter,
            ops.join(", "),
            why.replace('|', "\\|"),
            human(m.gm_emulated),
            m.emulated_vs_own.as_deref().unwrap_or("—"),
            human(m.gm_matmul),
            human(m.gm_other_boundary),
            human(m.gm_interpreted)
        );
    }
    md
}

/// The models Inductor compiled as several graphs (graph breaks), and its library
/// calls other than matmuls, per model.
fn inductor_notes(rows: &[(Model, Inductor)]) -> String {
    let mut md = String::new();
    let breaks: Vec<String> = rows
        .iter()
        .filter(|(_, i)| i.graphs != 1)
        .map(|(m, i)| format!("{} ({} graphs)", m.model, i.graphs))
        .collect();
    if !breaks.is_empty() {
        let _ = writeln!(
            md,
            "\nInductor compiled more than one graph (graph breaks) for: {}; its figures are the sums.",
            breaks.join(", ")
        );
    }
    // Per model, not per export: Inductor compiles the torch module, not the ONNX file.
    let other: Vec<String> = rows
        .iter()
        .filter(|(m, i)| m.exporter == "dynamo" && !i.other.is_empty())
        .map(|(m, i)| format!("{}: {}", m.model, counts(&i.other, "")))
        .collect();
    if !other.is_empty() {
        let _ = writeln!(
            md,
            "\nInductor's other library calls: {}.",
            other.join("; ")
        );
    }
    md
}

/// `text` with the real-models section (between [`BEGIN`] and [`END`]) replaced by
/// `section`, or with `section` appended when it has none.
pub(crate) fn splice(text: &str, section: &str) -> String {
    match (text.find(BEGIN), text.find(END)) {
        (Some(a), Some(b)) if b > a => {
            format!(
                "{}{}{}",
                &text[..a],
                section,
                &text[b + END.len()..].trim_start_matches('\n')
            )
        }
        _ => format!("{}\n\n{section}", text.trim_end()),
    }
}

/// The real-models section of `text`, with its markers, if any.
pub(crate) fn existing(text: &str) -> Option<&str> {
    let a = text.find(BEGIN)?;
    let b = text[a..].find(END)? + a;
    Some(&text[a..b + END.len()])
}

// ------------------------------------------------------------------ the subcommand

pub fn run(args: impl Iterator<Item = String>) -> Result<(), String> {
    let options = parse(args)?;
    if !options.autofuse_run.exists() {
        return Err(format!(
            "{} does not exist (cargo build --release -p autofuse-tools --bin autofuse-run)",
            options.autofuse_run.display()
        ));
    }
    let manifest_path = options.models.join("manifest.json");
    let manifest = parse_json(
        &std::fs::read_to_string(&manifest_path)
            .map_err(|e| format!("{}: {e}", manifest_path.display()))?,
    )
    .map_err(|e| format!("{}: {e}", manifest_path.display()))?;
    let (doc, note) = inductor_doc(&options)?;
    // Inductor measures one static shape; autofuse runs the same one, which must be a
    // shape the manifest has inputs and onnxruntime outputs for.
    let (batch, seq) = (
        doc.path_num(&["shape", "batch"])
            .ok_or("Inductor JSON: no shape")?,
        doc.path_num(&["shape", "seq"])
            .ok_or("Inductor JSON: no shape")?,
    );
    let dir = std::env::temp_dir().join("autofuse-real-models");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let Some(Json::Obj(files)) = manifest.get("files") else {
        return Err(format!("{}: no files", manifest_path.display()));
    };
    let mut rows = Vec::new();
    for (file, spec) in files {
        eprintln!("real-models: autofuse-run {file} (b{batch} s{seq})");
        let m = measure(&options, file, spec, batch, seq, &dir)?;
        let i = inductor(&doc, &m.model)?;
        // Same model on both sides: the export's parameter count is Inductor's module's.
        let params = |j: Option<&Json>| j.and_then(|j| j.path_num(&["parameters"]));
        let (exported, compiled) = (
            params(Some(spec)),
            params(doc.get("models").and_then(|ms| ms.get(&m.model))),
        );
        if exported != compiled {
            return Err(format!(
                "{file}: {exported:?} parameters in the manifest, {compiled:?} in Inductor's module"
            ));
        }
        rows.push((m, i));
    }
    // Models in the Inductor document's order, then dynamo before TorchScript.
    let order: Vec<String> = match doc.get("models") {
        Some(Json::Obj(ms)) => ms.iter().map(|(k, _)| k.clone()).collect(),
        _ => Vec::new(),
    };
    rows.sort_by_key(|(m, _)| {
        (
            order
                .iter()
                .position(|o| *o == m.model)
                .unwrap_or(usize::MAX),
            m.exporter != "dynamo",
        )
    });
    let findings = std::fs::read_to_string(&options.findings).unwrap_or_default();
    let text = section(&rows, &doc, &note, &findings);
    let md_path = options.out.join("fusion_quality.md");
    let old = std::fs::read_to_string(&md_path).unwrap_or_else(|_| "# Fusion quality\n".into());
    std::fs::write(&md_path, splice(&old, &text))
        .map_err(|e| format!("{}: {e}", md_path.display()))?;
    for (m, i) in &rows {
        eprintln!(
            "real-models: {} {}: {} nodes | autofuse {} launches ({} fused, {} interpreted, {} matmuls, {} other boundary), GM {} / min {} | Inductor {} launches, GM {} / min {}",
            m.model,
            m.exporter,
            m.weights.nodes,
            m.launches(),
            m.emulated,
            m.interpreted,
            m.matmuls,
            m.other_boundaries(),
            m.gm_total,
            m.minimum(),
            i.kernels,
            i.bytes,
            i.min_bytes
        );
    }
    eprintln!("real-models: wrote the section into {}", md_path.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tensor_bytes_reads_dims_and_type() {
        // dims [2, 3] packed (field 1, wire 2), data_type FLOAT (field 2 = 1).
        let packed = [0x0a, 0x02, 0x02, 0x03, 0x10, 0x01];
        assert_eq!(tensor_bytes(&packed).unwrap(), 24);
        // dims 4 and 300 unpacked (300 = 0xac 0x02), INT64.
        let unpacked = [0x08, 0x04, 0x08, 0xac, 0x02, 0x10, 0x07];
        assert_eq!(tensor_bytes(&unpacked).unwrap(), 4 * 300 * 8);
        // A scalar (no dims) of BOOL is one byte.
        assert_eq!(tensor_bytes(&[0x10, 0x09]).unwrap(), 1);
    }

    #[test]
    fn splice_replaces_or_appends() {
        let section = format!("{BEGIN}\nnew\n{END}\n");
        let appended = splice("# T\n\ntable\n", &section);
        assert_eq!(appended, format!("# T\n\ntable\n\n{section}"));
        let replaced = splice(&format!("# T\n\n{BEGIN}\nold\n{END}\n"), &section);
        assert_eq!(replaced, format!("# T\n\n{section}"));
        assert_eq!(existing(&replaced), Some(section.trim_end()));
    }
}
