//! `autofuse-bench fusion-quality`: kernels after fusion and GM bytes moved against the
//! minimum, for autofuse, XLA (jax on CPU) and PyTorch Inductor (torch.compile on CPU),
//! on the subgraph suite of `bench/quality/graphs/` (issue 8).
//!
//! One run does everything:
//! 1. `autofuse-run <graph> --report-json` (release build) for every graph: the kernels
//!    the run launched in program order, GM bytes measured by the emulation for fused
//!    kernels, operand + result bytes for ops left outside any kernel (boundary ops and
//!    one-op kernels lifted back, which run as library kernels), and the minimum (graph
//!    inputs + outputs);
//! 2. `bench/quality/peers.py` in the virtual environment `.venv-bench/` (created here
//!    with jax[cpu] and torch when missing): the same subgraphs in jax and torch, kernels
//!    and bytes counted from XLA's optimized HLO and Inductor's generated wrapper;
//! 3. `docs/benchmarks/fusion_quality.md` (the table, targets and reasons where missed)
//!    and `docs/benchmarks/fusion_quality.svg` (grouped bars of GM bytes / minimum).
//!
//! Targets (issue 8): GM bytes within 1.05x of the minimum on every subgraph where XLA or
//! Inductor reach 1.00x; never more kernels than XLA.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The suite, in table order: one `bench/quality/graphs/<name>.mlir` each, and the same
/// name in `peers.py`.
const SUITE: &[&str] = &[
    "softmax",
    "layer_norm",
    "rms_norm",
    "gelu_bias",
    "swiglu",
    "elementwise_chain",
    "residual_layer_norm",
    "row_normalize",
    "cast_chain",
    "transpose_add",
    "concat_relu",
    "rec_block",
    "softmax_f16",
    "layer_norm_f16",
];

/// Pinned so that a rerun compares against the same peers.
const JAX_REQUIREMENT: &str = "jax[cpu]==0.10.2";
const TORCH_REQUIREMENT: &str = "torch==2.15.0";
const TORCH_CPU_INDEX: &str = "https://download.pytorch.org/whl/cpu";

/// GM target: autofuse within this factor of the minimum...
const GM_TARGET: f64 = 1.05;
/// ...where a peer reaches 1.00x (rounded to two decimals as the table prints it).
const PEER_AT_MINIMUM: f64 = 1.005;

struct Options {
    autofuse_run: PathBuf,
    graphs: PathBuf,
    peers: PathBuf,
    venv: PathBuf,
    python: String,
    out: PathBuf,
    only: Vec<String>,
    skip_peers: bool,
}

fn parse(mut args: impl Iterator<Item = String>) -> Result<Options, String> {
    let mut o = Options {
        autofuse_run: PathBuf::from("target/release/autofuse-run"),
        graphs: PathBuf::from("bench/quality/graphs"),
        peers: PathBuf::from("bench/quality/peers.py"),
        venv: PathBuf::from(".venv-bench"),
        python: "python3".into(),
        out: PathBuf::from("docs/benchmarks"),
        only: Vec::new(),
        skip_peers: false,
    };
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{arg} needs a value"));
        match arg.as_str() {
            "--autofuse-run" => o.autofuse_run = PathBuf::from(value()?),
            "--graphs" => o.graphs = PathBuf::from(value()?),
            "--peers" => o.peers = PathBuf::from(value()?),
            "--venv" => o.venv = PathBuf::from(value()?),
            "--python" => o.python = value()?,
            "--out" => o.out = PathBuf::from(value()?),
            "--only" => o.only = value()?.split(',').map(|s| s.trim().to_string()).collect(),
            "--skip-peers" => o.skip_peers = true,
            "--help" | "-h" => {
                return Err("usage: autofuse-bench fusion-quality [--autofuse-run PATH] [--graphs DIR] \
                     [--peers peers.py] [--venv DIR] [--python python3] [--out DIR] [--only a,b] [--skip-peers]"
                    .into())
            }
            other => return Err(format!("unknown argument '{other}'")),
        }
    }
    if let Some(bad) = o.only.iter().find(|n| !SUITE.contains(&n.as_str())) {
        return Err(format!(
            "--only: unknown subgraph '{bad}' (suite: {})",
            SUITE.join(", ")
        ));
    }
    Ok(o)
}

// ------------------------------------------------------------------ a small JSON reader
// (the workspace's bench crate has no serde; the documents are our own and small)

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Json {
    Null,
    Bool(bool),
    Num(f64),
    Str(String),
    Arr(Vec<Json>),
    Obj(Vec<(String, Json)>),
}

impl Json {
    pub(crate) fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Obj(fields) => fields.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }
    pub(crate) fn num(&self) -> Option<f64> {
        match self {
            Json::Num(n) => Some(*n),
            _ => None,
        }
    }
    pub(crate) fn str(&self) -> Option<&str> {
        match self {
            Json::Str(s) => Some(s),
            _ => None,
        }
    }
    pub(crate) fn arr(&self) -> &[Json] {
        match self {
            Json::Arr(a) => a,
            _ => &[],
        }
    }
    pub(crate) fn path_num(&self, keys: &[&str]) -> Option<f64> {
        keys.iter().try_fold(self, |j, k| j.get(k))?.num()
    }
}

struct Reader<'a> {
    s: &'a [u8],
    i: usize,
}

pub(crate) fn parse_json(text: &str) -> Result<Json, String> {
    let mut r = Reader {
        s: text.as_bytes(),
        i: 0,
    };
    let v = r.value()?;
    r.ws();
    if r.i != r.s.len() {
        return Err(format!("trailing characters at byte {}", r.i));
    }
    Ok(v)
}

impl Reader<'_> {
    fn ws(&mut self) {
        while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }
    fn eat(&mut self, c: u8) -> Result<(), String> {
        self.ws();
        if self.s.get(self.i) == Some(&c) {
            self.i += 1;
            Ok(())
        } else {
            Err(format!("expected '{}' at byte {}", c as char, self.i))
        }
    }
    fn value(&mut self) -> Result<Json, String> {
        self.ws();
        match self.s.get(self.i) {
            None => Err("unexpected end of JSON".into()),
            Some(b'{') => {
                self.i += 1;
                let mut fields = Vec::new();
                self.ws();
                if self.s.get(self.i) == Some(&b'}') {
                    self.i += 1;
                    return Ok(Json::Obj(fields));
                }
                loop {
                    self.ws();
                    let key = self.string()?;
                    self.eat(b':')?;
                    fields.push((key, self.value()?));
                    self.ws();
                    match self.s.get(self.i) {
                        Some(b',') => self.i += 1,
                        Some(b'}') => {
                            self.i += 1;
                            return Ok(Json::Obj(fields));
                        }
                        _ => return Err(format!("expected ',' or '}}' at byte {}", self.i)),
                    }
                }
            }
            Some(b'[') => {
                self.i += 1;
                let mut items = Vec::new();
                self.ws();
                if self.s.get(self.i) == Some(&b']') {
                    self.i += 1;
                    return Ok(Json::Arr(items));
                }
                loop {
                    items.push(self.value()?);
                    self.ws();
                    match self.s.get(self.i) {
                        Some(b',') => self.i += 1,
                        Some(b']') => {
                            self.i += 1;
                            return Ok(Json::Arr(items));
                        }
                        _ => return Err(format!("expected ',' or ']' at byte {}", self.i)),
                    }
                }
            }
            Some(b'"') => Ok(Json::Str(self.string()?)),
            Some(_) => {
                for (word, v) in [
                    ("null", Json::Null),
                    ("true", Json::Bool(true)),
                    ("false", Json::Bool(false)),
                    ("NaN", Json::Null),
                ] {
                    if self.s[self.i..].starts_with(word.as_bytes()) {
                        self.i += word.len();
                        return Ok(v);
                    }
                }
                let start = self.i;
                while self.i < self.s.len()
                    && matches!(
                        self.s[self.i],
                        b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'
                    )
                {
                    self.i += 1;
                }
                let text = std::str::from_utf8(&self.s[start..self.i]).unwrap_or("");
                text.parse()
                    .map(Json::Num)
                    .map_err(|_| format!("bad JSON value at byte {start}"))
            }
        }
    }
    fn string(&mut self) -> Result<String, String> {
        self.eat(b'"')?;
        let mut out = Vec::new();
        while let Some(&c) = self.s.get(self.i) {
            self.i += 1;
            match c {
                b'"' => return String::from_utf8(out).map_err(|e| e.to_string()),
                b'\\' => {
                    let e = *self.s.get(self.i).ok_or("unterminated escape")?;
                    self.i += 1;
                    match e {
                        b'n' => out.push(b'\n'),
                        b't' => out.push(b'\t'),
                        b'r' => out.push(b'\r'),
                        b'b' => out.push(8),
                        b'f' => out.push(12),
                        b'u' => {
                            let hex = self
                                .s
                                .get(self.i..self.i + 4)
                                .and_then(|h| std::str::from_utf8(h).ok())
                                .and_then(|h| u32::from_str_radix(h, 16).ok())
                                .ok_or("bad \\u escape")?;
                            self.i += 4;
                            let ch = char::from_u32(hex).unwrap_or('\u{fffd}');
                            let mut buf = [0u8; 4];
                            out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                        }
                        other => out.push(other),
                    }
                }
                other => out.push(other),
            }
        }
        Err("unterminated string".into())
    }
}

// ------------------------------------------------------------------ measurements

/// Kernels and bytes of one system on one subgraph, or why there are none.
#[derive(Clone, Debug)]
enum Figure {
    Measured { kernels: usize, bytes: f64 },
    Missing(String),
}

impl Figure {
    fn ratio(&self, minimum: f64) -> Option<f64> {
        match self {
            Figure::Measured { bytes, .. } if minimum > 0.0 => Some(bytes / minimum),
            _ => None,
        }
    }
    fn kernels(&self) -> Option<usize> {
        match self {
            Figure::Measured { kernels, .. } => Some(*kernels),
            Figure::Missing(_) => None,
        }
    }
}

struct Row {
    name: &'static str,
    shapes: String,
    minimum: f64,
    autofuse: Figure,
    /// The autofuse run's report (first shape run), for the reasons.
    report: Option<Json>,
    pass: bool,
    xla: Figure,
    inductor: Figure,
}

pub(crate) fn human(bytes: f64) -> String {
    if bytes.abs() >= 1024.0 * 1024.0 {
        format!("{:.1} MiB", bytes / (1024.0 * 1024.0))
    } else if bytes.abs() >= 1024.0 {
        format!("{:.1} KiB", bytes / 1024.0)
    } else {
        format!("{bytes:.0} B")
    }
}

/// Runs autofuse-run on one graph and reads its report.
fn autofuse(options: &Options, name: &str, dir: &Path) -> Result<(Json, bool), String> {
    let graph = options.graphs.join(format!("{name}.mlir"));
    if !graph.exists() {
        return Err(format!("{} does not exist", graph.display()));
    }
    let report = dir.join(format!("{name}.json"));
    let log = dir.join(format!("{name}.log"));
    let json = run_with_report(&options.autofuse_run, &graph, &[], &report, &log, name)?;
    let pass = json.get("pass") == Some(&Json::Bool(true));
    Ok((json, pass))
}

/// Runs `autofuse_run input args... --report-json report` with stdout in `log` and reads
/// the report. Exit 1 with a report is a FAIL of the comparison, which the tables show;
/// no report at all is an error of the run.
pub(crate) fn run_with_report(
    autofuse_run: &Path,
    input: &Path,
    args: &[String],
    report: &Path,
    log: &Path,
    name: &str,
) -> Result<Json, String> {
    let _ = std::fs::remove_file(report);
    let status = Command::new(autofuse_run)
        .arg(input)
        .args(args)
        .arg("--report-json")
        .arg(report)
        .stdout(std::fs::File::create(log).map_err(|e| format!("{}: {e}", log.display()))?)
        .stderr(Stdio::inherit())
        .status()
        .map_err(|e| format!("cannot run {}: {e}", autofuse_run.display()))?;
    let text = std::fs::read_to_string(report).map_err(|_| {
        format!(
            "autofuse-run wrote no report for {name} (exit {status}); see {}",
            log.display()
        )
    })?;
    parse_json(&text).map_err(|e| format!("{}: {e}", report.display()))
}

fn venv_python(options: &Options) -> PathBuf {
    options.venv.join("bin").join("python")
}

fn can_import(python: &Path, module: &str) -> bool {
    Command::new(python)
        .args(["-c", &format!("import {module}")])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map(|s| s.success())
        .unwrap_or(false)
}

fn pip(python: &Path, args: &[&str]) -> bool {
    eprintln!("fusion-quality: pip install {}", args.join(" "));
    Command::new(python)
        .args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
        ])
        .args(["--retries", "1", "--timeout", "30"])
        .args(args)
        .status()
        .map(|s| s.success())
        .unwrap_or(false)
}

/// Creates `.venv-bench/` with jax[cpu] and torch when they are missing. Torch comes from
/// the CPU wheel index when it is reachable (a much smaller download), else from PyPI;
/// when neither works the table says "not installable". Returns notes for the report.
fn ensure_venv(options: &Options) -> Result<Vec<String>, String> {
    let python = venv_python(options);
    let mut notes = Vec::new();
    if !python.exists() {
        eprintln!("fusion-quality: creating {}", options.venv.display());
        let ok = Command::new(&options.python)
            .args(["-m", "venv"])
            .arg(&options.venv)
            .status()
            .map(|s| s.success())
            .unwrap_or(false);
        if !ok {
            return Err(format!(
                "cannot create {} with {} -m venv (install python3-venv: scripts/setup.sh)",
                options.venv.display(),
                options.python
            ));
        }
    }
    if !can_import(&python, "jax") && !pip(&python, &[JAX_REQUIREMENT, "numpy"]) {
        notes.push(format!("{JAX_REQUIREMENT} could not be installed"));
    }
    if !can_import(&python, "numpy") {
        pip(&python, &["numpy"]);
    }
    if !can_import(&python, "torch")
        && !pip(
            &python,
            &[TORCH_REQUIREMENT, "--index-url", TORCH_CPU_INDEX],
        )
        && !pip(&python, &[TORCH_REQUIREMENT])
    {
        notes.push(format!(
            "{TORCH_REQUIREMENT} is not installable here (neither the CPU wheel index nor PyPI)"
        ));
    }
    Ok(notes)
}

/// Runs peers.py; returns (versions, rows by name). A missing peer becomes `Missing`.
fn peers(
    options: &Options,
    names: &[&str],
    dir: &Path,
) -> Result<(Json, Vec<(String, Json)>), String> {
    let python = venv_python(options);
    if !can_import(&python, "numpy") {
        return Err(format!("{} has no numpy", python.display()));
    }
    // The counting rules are checked first where the answer is known (a single add).
    let check = dir.join("peers-self-check.log");
    let status = Command::new(&python)
        .arg(&options.peers)
        .arg("--self-check")
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&check).map_err(|e| format!("{}: {e}", check.display()))?)
        .status()
        .map_err(|e| format!("cannot run {}: {e}", options.peers.display()))?;
    if !status.success() {
        return Err(format!(
            "{} --self-check failed: the kernel/byte counting of the peers is wrong; see {}",
            options.peers.display(),
            check.display()
        ));
    }
    let log = dir.join("peers.log");
    let out = Command::new(&python)
        .arg(&options.peers)
        .args(names)
        .stderr(std::fs::File::create(&log).map_err(|e| format!("{}: {e}", log.display()))?)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", options.peers.display()))?;
    if !out.status.success() {
        return Err(format!(
            "{} failed ({}); see {}",
            options.peers.display(),
            out.status,
            log.display()
        ));
    }
    let mut versions = Json::Null;
    let mut rows = Vec::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let j = parse_json(line).map_err(|e| format!("peers.py printed bad JSON: {e}: {line}"))?;
        if let Some(v) = j.get("versions") {
            versions = v.clone();
        } else if let Some(name) = j.get("name").and_then(Json::str) {
            rows.push((name.to_string(), j));
        }
    }
    Ok((versions, rows))
}

fn peer_figure(row: Option<&Json>, peer: &str, missing: &str) -> Figure {
    let Some(p) = row.and_then(|r| r.get(peer)) else {
        return Figure::Missing(missing.to_string());
    };
    if let Some(e) = p.get("error").and_then(Json::str) {
        return Figure::Missing(e.to_string());
    }
    match (p.path_num(&["kernels"]), p.path_num(&["bytes"])) {
        (Some(k), Some(b)) => Figure::Measured {
            kernels: k as usize,
            bytes: b,
        },
        _ => Figure::Missing("no figures".into()),
    }
}

/// "f32 [4096, 1024], [1024] x2" from the report's input shapes and dtypes.
fn shapes_text(run: &Json) -> String {
    let dtypes: Vec<&str> = run
        .get("input_dtypes")
        .map(Json::arr)
        .unwrap_or_default()
        .iter()
        .filter_map(Json::str)
        .collect();
    let shapes: Vec<String> = run
        .get("inputs")
        .map(Json::arr)
        .unwrap_or_default()
        .iter()
        .map(|s| {
            let dims: Vec<String> = s
                .arr()
                .iter()
                .filter_map(Json::num)
                .map(|d| format!("{d}"))
                .collect();
            format!("[{}]", dims.join(", "))
        })
        .collect();
    let mut parts: Vec<(String, usize)> = Vec::new();
    for (i, s) in shapes.iter().enumerate() {
        let dtype = dtypes.get(i).copied().unwrap_or("?");
        let first = dtypes.first().copied().unwrap_or("?");
        let text = if dtype == first {
            s.clone()
        } else {
            format!("{dtype} {s}")
        };
        match parts.last_mut() {
            Some((t, n)) if *t == text => *n += 1,
            _ => parts.push((text, 1)),
        }
    }
    let list: Vec<String> = parts
        .into_iter()
        .map(|(t, n)| if n > 1 { format!("{t} ×{n}") } else { t })
        .collect();
    format!(
        "{} {}",
        dtypes.first().copied().unwrap_or("?"),
        list.join(", ")
    )
}

// ------------------------------------------------------------------ targets and reasons

struct Verdict {
    gm: Option<bool>,
    kernels: Option<bool>,
    reasons: Vec<String>,
}

fn verdict(row: &Row) -> Verdict {
    let min = row.minimum;
    let af = row.autofuse.ratio(min);
    let peer_best = [row.xla.ratio(min), row.inductor.ratio(min)]
        .into_iter()
        .flatten()
        .fold(f64::INFINITY, f64::min);
    let gm = (peer_best < PEER_AT_MINIMUM).then(|| af.is_some_and(|r| r <= GM_TARGET));
    let kernels = match (row.autofuse.kernels(), row.xla.kernels()) {
        (Some(a), Some(x)) => Some(a <= x),
        _ => None,
    };
    let mut reasons = Vec::new();
    if !row.pass {
        reasons.push("autofuse-run FAILED (outputs differ from the interpreter)".into());
    }
    if let Figure::Missing(why) = &row.autofuse {
        reasons.push(format!("autofuse: {why}"));
    }
    let missed = gm == Some(false) || kernels == Some(false);
    if let (true, Some(report)) = (missed, &row.report) {
        reasons.extend(explain(report, min));
    }
    if kernels == Some(false) {
        if let (Some(a), Some(x)) = (row.autofuse.kernels(), row.xla.kernels()) {
            reasons.push(format!("{a} kernels against XLA's {x}"));
        }
    }
    Verdict {
        gm,
        kernels,
        reasons,
    }
}

/// Why autofuse moves more than the minimum, from its run report.
fn explain(run: &Json, minimum: f64) -> Vec<String> {
    let mut out = Vec::new();
    let kernels = run.get("kernels").map(Json::arr).unwrap_or_default();
    let outside: Vec<&str> = kernels
        .iter()
        .filter(|k| k.get("kind").and_then(Json::str) != Some("emulated"))
        .filter_map(|k| k.get("name").and_then(Json::str))
        .collect();
    if !outside.is_empty() {
        let structural: Vec<&str> = outside
            .iter()
            .copied()
            .filter(|o| {
                ["transpose", "concat", "slice", "gather", "matmul", "split"]
                    .iter()
                    .any(|s| o.ends_with(s))
            })
            .collect();
        let mut text = format!("not fused: {} run as separate kernels", outside.join(", "));
        if !structural.is_empty() {
            let _ = write!(
                text,
                " ({} stays outside every AscIR kernel in this build, so nothing fuses with it \
                 and each remaining op is a one-op kernel lifted back)",
                structural.join(", ")
            );
        }
        out.push(text);
    }
    let total = run.path_num(&["gm_bytes", "total"]).unwrap_or(0.0);
    let excess = total - minimum;
    let emulated: Vec<&Json> = kernels
        .iter()
        .filter(|k| k.get("kind").and_then(Json::str) == Some("emulated"))
        .collect();
    if outside.is_empty() && excess > 0.0 {
        // Inputs smaller than the largest one are broadcast along the tiled axis; the
        // generated kernels load them once per block (hoisted out of the tile loop) or,
        // where they cannot be hoisted, once per tile or split-reduction pass.
        let sizes = input_bytes(run);
        let largest = sizes.iter().cloned().fold(0.0, f64::max);
        let small: f64 = sizes.iter().filter(|&&b| b < largest).sum();
        let tiles = (small > 0.0).then(|| excess / small);
        match tiles {
            Some(t) if emulated.len() == 1 => out.push(format!(
                "+{} measured over the minimum: the broadcast inputs ({} in all) are loaded again \
                 ≈{:.0} times (once per block where hoisted out of the tile loop, else per tile \
                 or split-reduction pass)",
                human(excess),
                human(small),
                t
            )),
            _ => out.push(format!(
                "+{} measured over the minimum across {} kernel(s)",
                human(excess),
                emulated.len()
            )),
        }
    }
    out
}

/// Bytes of each input of the report's run.
fn input_bytes(run: &Json) -> Vec<f64> {
    let dtypes = run.get("input_dtypes").map(Json::arr).unwrap_or_default();
    run.get("inputs")
        .map(Json::arr)
        .unwrap_or_default()
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let n: f64 = s.arr().iter().filter_map(Json::num).product();
            let size = match dtypes.get(i).and_then(Json::str) {
                Some("f16" | "bf16" | "i16") => 2.0,
                Some("i64") => 8.0,
                Some("i8" | "u8" | "i1") => 1.0,
                _ => 4.0,
            };
            n * size
        })
        .collect()
}

// ------------------------------------------------------------------ output

fn cell_kernels(f: &Figure) -> String {
    match f {
        Figure::Measured { kernels, .. } => kernels.to_string(),
        Figure::Missing(_) => "—".into(),
    }
}

fn cell_ratio(f: &Figure, min: f64) -> String {
    match (f, f.ratio(min)) {
        (_, Some(r)) => format!("{r:.2}x"),
        (Figure::Missing(why), None) if why.contains("not installable") => "not installable".into(),
        _ => "—".into(),
    }
}

fn markdown(rows: &[Row], versions: &Json, notes: &[String]) -> String {
    let mut md = String::new();
    let _ = writeln!(md, "# Fusion quality\n");
    let _ = writeln!(
        md,
        "Generated by `autofuse-bench fusion-quality` (see `docs/benchmarks/README.md` for how \
         every figure is measured); one run on this machine. GM/min is the GM bytes moved \
         divided by the minimum (graph inputs + outputs, each moved once).\n"
    );
    let v = |k: &str| {
        versions
            .get(k)
            .and_then(Json::str)
            .unwrap_or("not installed")
            .to_string()
    };
    let _ = writeln!(
        md,
        "Peers: XLA from jax {} (jaxlib {}, CPU backend), PyTorch Inductor from torch {} (CPU); \
         python {}.\n",
        v("jax"),
        v("jaxlib"),
        v("torch"),
        v("python")
    );
    for n in notes {
        let _ = writeln!(md, "Note: {n}.\n");
    }
    let _ = writeln!(
        md,
        "Targets (issue 8): GM bytes within {GM_TARGET:.2}x of the minimum on every subgraph where \
         XLA or Inductor reach 1.00x; never more kernels than XLA. `n/a` = the GM target does \
         not apply (no peer reaches 1.00x).\n"
    );
    let _ = writeln!(
        md,
        "| subgraph | dtype / shape | autofuse kernels | autofuse GM/min | XLA kernels | XLA GM/min | \
         Inductor kernels | Inductor GM/min | targets met? | reason where missed |"
    );
    let _ = writeln!(md, "|---|---|---:|---:|---:|---:|---:|---:|---|---|");
    let (mut met, mut total) = (0, 0);
    for row in rows {
        let v = verdict(row);
        let gm = match v.gm {
            Some(true) => "GM yes",
            Some(false) => "GM **no**",
            None => "GM n/a",
        };
        let kernels = match v.kernels {
            Some(true) => "kernels yes",
            Some(false) => "kernels **no**",
            None => "kernels n/a",
        };
        total += 1;
        if v.gm != Some(false) && v.kernels != Some(false) && row.pass {
            met += 1;
        }
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {gm}, {kernels} | {} |",
            row.name,
            row.shapes,
            cell_kernels(&row.autofuse),
            cell_ratio(&row.autofuse, row.minimum),
            cell_kernels(&row.xla),
            cell_ratio(&row.xla, row.minimum),
            cell_kernels(&row.inductor),
            cell_ratio(&row.inductor, row.minimum),
            v.reasons.join("; ").replace('|', "\\|")
        );
    }
    let _ = writeln!(md, "\nAll targets met on {met} of {total} subgraphs.\n");
    let _ = writeln!(md, "## Bytes\n");
    let _ = writeln!(
        md,
        "| subgraph | minimum | autofuse | XLA | Inductor |\n|---|---:|---:|---:|---:|"
    );
    for row in rows {
        let b = |f: &Figure| match f {
            Figure::Measured { bytes, .. } => human(*bytes),
            Figure::Missing(_) => "—".into(),
        };
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} |",
            row.name,
            human(row.minimum),
            b(&row.autofuse),
            b(&row.xla),
            b(&row.inductor)
        );
    }
    let missing: Vec<String> = rows
        .iter()
        .flat_map(|r| {
            [("XLA", &r.xla), ("Inductor", &r.inductor)]
                .into_iter()
                .filter_map(move |(p, f)| match f {
                    Figure::Missing(why) => Some(format!("- {} / {p}: {why}", r.name)),
                    _ => None,
                })
        })
        .collect();
    if !missing.is_empty() {
        let _ = writeln!(md, "\nPeers without figures:\n\n{}", missing.join("\n"));
    }
    let _ = writeln!(
        md,
        "\n![GM bytes / minimum per subgraph](fusion_quality.svg)"
    );
    md
}

/// Grouped bars of GM bytes / minimum: autofuse, XLA, Inductor per subgraph. Ratios above
/// the axis cap are drawn to the cap with their value printed, so that the 1.00-1.20
/// range that matters stays readable.
fn svg(rows: &[Row]) -> String {
    let systems: [(&str, &str); 3] = [
        ("autofuse", "#1f77b4"),
        ("XLA (CPU)", "#ff7f0e"),
        ("Inductor (CPU)", "#2ca02c"),
    ];
    let (group_w, bar_w, left, top, plot_h) = (64.0, 16.0, 60.0, 70.0, 300.0);
    let w = left + group_w * rows.len() as f64 + 80.0;
    let h = top + plot_h + 110.0;
    let ratios: Vec<[Option<f64>; 3]> = rows
        .iter()
        .map(|r| {
            [
                r.autofuse.ratio(r.minimum),
                r.xla.ratio(r.minimum),
                r.inductor.ratio(r.minimum),
            ]
        })
        .collect();
    let max = ratios
        .iter()
        .flatten()
        .flatten()
        .cloned()
        .fold(1.0, f64::max);
    let cap = max.clamp(1.2, 2.5);
    let y = |v: f64| top + plot_h - v.min(cap) / cap * plot_h;
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" font-family=\"sans-serif\" font-size=\"11\">\n\
         <rect width=\"{w}\" height=\"{h}\" fill=\"white\"/>\n\
         <text x=\"{}\" y=\"20\" text-anchor=\"middle\" font-size=\"13\">GM bytes moved / minimum per subgraph (lower is better; 1.00 = every input and output moved once)</text>\n",
        w / 2.0
    );
    // Axis, grid lines and the 1.00 and 1.05 marks.
    let mut tick = 0.0;
    while tick <= cap + 1e-9 {
        let _ = writeln!(
            out,
            "<line x1=\"{left}\" y1=\"{0:.1}\" x2=\"{1}\" y2=\"{0:.1}\" stroke=\"#ddd\"/>\n<text x=\"{2}\" y=\"{3:.1}\" text-anchor=\"end\">{tick:.1}</text>",
            y(tick),
            w - 80.0,
            left - 6.0,
            y(tick) + 4.0
        );
        tick += 0.5;
    }
    // The 1.00 label goes under its line, the 1.05 label over its own: they are 6 px apart.
    for (v, dash, label, dy) in [(1.0, "", "1.00", 9.0), (GM_TARGET, "4 3", "1.05", -2.0)] {
        let _ = writeln!(
            out,
            "<line x1=\"{left}\" y1=\"{0:.1}\" x2=\"{1}\" y2=\"{0:.1}\" stroke=\"black\" stroke-dasharray=\"{dash}\"/>\n<text x=\"{2}\" y=\"{3:.1}\" font-size=\"9\">{label}</text>",
            y(v),
            w - 80.0,
            w - 78.0,
            y(v) + dy
        );
    }
    let _ = writeln!(
        out,
        "<line x1=\"{left}\" y1=\"{top}\" x2=\"{left}\" y2=\"{}\" stroke=\"black\"/>\n<text x=\"15\" y=\"{}\" transform=\"rotate(-90 15 {})\" text-anchor=\"middle\">GM bytes / minimum (axis capped at {cap:.1})</text>",
        top + plot_h,
        top + plot_h / 2.0,
        top + plot_h / 2.0
    );
    for (g, (row, rs)) in rows.iter().zip(&ratios).enumerate() {
        let x0 = left + group_w * g as f64 + (group_w - 3.0 * bar_w) / 2.0;
        for (i, r) in rs.iter().enumerate() {
            let x = x0 + bar_w * i as f64;
            match r {
                Some(v) => {
                    let _ = writeln!(
                        out,
                        "<rect x=\"{x:.1}\" y=\"{:.1}\" width=\"{}\" height=\"{:.1}\" fill=\"{}\"><title>{} {}: {v:.3}</title></rect>",
                        y(*v),
                        bar_w - 2.0,
                        top + plot_h - y(*v),
                        systems[i].1,
                        row.name,
                        systems[i].0
                    );
                    if *v > cap {
                        let _ = writeln!(
                            out,
                            "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"9\" text-anchor=\"middle\">{v:.1}</text>",
                            x + bar_w / 2.0 - 1.0,
                            top - 4.0
                        );
                    }
                }
                None => {
                    let _ = writeln!(
                        out,
                        "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"9\" text-anchor=\"middle\">–</text>",
                        x + bar_w / 2.0 - 1.0,
                        top + plot_h - 3.0
                    );
                }
            }
        }
        let cx = left + group_w * g as f64 + group_w / 2.0;
        let ly = top + plot_h + 10.0;
        let _ = writeln!(
            out,
            "<text x=\"{cx:.1}\" y=\"{ly:.1}\" transform=\"rotate(40 {cx:.1} {ly:.1})\">{}</text>",
            row.name
        );
    }
    for (i, (label, color)) in systems.iter().enumerate() {
        let x = left + 10.0 + 150.0 * i as f64;
        let _ = writeln!(
            out,
            "<rect x=\"{x}\" y=\"30\" width=\"10\" height=\"10\" fill=\"{color}\"/><text x=\"{}\" y=\"39\">{label}</text>",
            x + 14.0
        );
    }
    out.push_str("</svg>\n");
    out
}

// ------------------------------------------------------------------ the subcommand

pub fn run(args: impl Iterator<Item = String>) -> Result<(), String> {
    let options = parse(args)?;
    let names: Vec<&'static str> = SUITE
        .iter()
        .copied()
        .filter(|n| options.only.is_empty() || options.only.iter().any(|o| o == n))
        .collect();
    if !options.autofuse_run.exists() {
        return Err(format!(
            "{} does not exist (cargo build --release -p autofuse-tools --bin autofuse-run)",
            options.autofuse_run.display()
        ));
    }
    let dir = std::env::temp_dir().join("autofuse-fusion-quality");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;

    let mut notes = Vec::new();
    let (versions, peer_rows) = if options.skip_peers {
        notes.push("peers skipped (--skip-peers)".to_string());
        (Json::Null, Vec::new())
    } else {
        notes.extend(ensure_venv(&options)?);
        eprintln!("fusion-quality: running {}", options.peers.display());
        peers(&options, &names, &dir)?
    };
    let peer_missing = if options.skip_peers {
        "skipped"
    } else {
        "not measured"
    };

    let mut rows = Vec::new();
    for name in names {
        eprintln!("fusion-quality: autofuse-run {name}");
        let peer = peer_rows.iter().find(|(n, _)| n == name).map(|(_, j)| j);
        let (autofuse, report, pass) = match autofuse(&options, name, &dir) {
            Ok((json, pass)) => {
                let run = json
                    .get("runs")
                    .map(Json::arr)
                    .and_then(|r| r.first())
                    .cloned();
                let figure = match &run {
                    Some(r) => match (
                        r.path_num(&["kernel_count"]),
                        r.path_num(&["gm_bytes", "total"]),
                    ) {
                        (Some(k), Some(b)) => Figure::Measured {
                            kernels: k as usize,
                            bytes: b,
                        },
                        _ => Figure::Missing(
                            r.get("error")
                                .and_then(Json::str)
                                .unwrap_or("no figures")
                                .to_string(),
                        ),
                    },
                    None => Figure::Missing("no run in the report".into()),
                };
                (figure, run, pass)
            }
            Err(e) => (Figure::Missing(e), None, false),
        };
        let af_min = report
            .as_ref()
            .and_then(|r| r.path_num(&["gm_bytes", "minimum"]));
        let peer_min = peer.and_then(|p| p.path_num(&["min_bytes"]));
        // The minimum is graph inputs + outputs on both sides; a mismatch means the two
        // descriptions of the subgraph disagree (shapes or dtypes), which would make the
        // ratios incomparable.
        if let (Some(a), Some(p)) = (af_min, peer_min) {
            if a != p {
                return Err(format!(
                    "{name}: minimum bytes differ between the graph ({a}) and peers.py ({p})"
                ));
            }
        }
        rows.push(Row {
            name,
            shapes: report.as_ref().map(shapes_text).unwrap_or_default(),
            minimum: af_min.or(peer_min).unwrap_or(0.0),
            autofuse,
            report,
            pass,
            xla: peer_figure(peer, "xla", peer_missing),
            inductor: peer_figure(peer, "inductor", peer_missing),
        });
    }

    std::fs::create_dir_all(&options.out).map_err(|e| format!("{}: {e}", options.out.display()))?;
    let md_path = options.out.join("fusion_quality.md");
    // The real-models section has its own generator (`autofuse-bench real-models`); a
    // rewrite of the subgraph tables keeps it as it is.
    let mut md = markdown(&rows, &versions, &notes);
    if let Some(section) = std::fs::read_to_string(&md_path)
        .ok()
        .as_deref()
        .and_then(crate::real_models::existing)
    {
        md = crate::real_models::splice(&md, &format!("{section}\n"));
    }
    std::fs::write(&md_path, md).map_err(|e| format!("{}: {e}", md_path.display()))?;
    let svg_path = options.out.join("fusion_quality.svg");
    std::fs::write(&svg_path, svg(&rows)).map_err(|e| format!("{}: {e}", svg_path.display()))?;
    eprintln!(
        "fusion-quality: wrote {} and {}",
        md_path.display(),
        svg_path.display()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_reader_reads_our_reports() {
        let j = parse_json(
            r#"{"a": [1, 2.5e3, -0e0], "b": {"c": "x\"y\u00e9"}, "d": null, "e": true}"#,
        )
        .unwrap();
        assert_eq!(j.get("a").unwrap().arr().len(), 3);
        assert_eq!(j.get("a").unwrap().arr()[1].num(), Some(2500.0));
        assert_eq!(j.get("b").unwrap().get("c").unwrap().str(), Some("x\"yé"));
        assert_eq!(j.get("d"), Some(&Json::Null));
        assert!(parse_json("{\"a\": }").is_err());
        assert!(parse_json("[1, 2").is_err());
        assert!(parse_json("{} x").is_err());
    }

    fn row(af: (usize, f64), xla: (usize, f64), inductor: (usize, f64)) -> Row {
        let m = |(kernels, r): (usize, f64)| Figure::Measured {
            kernels,
            bytes: r * 100.0,
        };
        Row {
            name: "t",
            shapes: String::new(),
            minimum: 100.0,
            autofuse: m(af),
            report: None,
            pass: true,
            xla: m(xla),
            inductor: m(inductor),
        }
    }

    #[test]
    fn targets() {
        // A peer at 1.00x makes the GM target apply.
        let v = verdict(&row((1, 1.04), (1, 1.0), (1, 1.2)));
        assert_eq!((v.gm, v.kernels), (Some(true), Some(true)));
        let v = verdict(&row((1, 1.06), (2, 1.3), (1, 1.001)));
        assert_eq!((v.gm, v.kernels), (Some(false), Some(true)));
        // No peer at 1.00x: GM n/a; more kernels than XLA: missed.
        let v = verdict(&row((3, 2.0), (2, 2.0), (1, 1.5)));
        assert_eq!((v.gm, v.kernels), (None, Some(false)));
        assert!(v
            .reasons
            .iter()
            .any(|r| r.contains("3 kernels against XLA's 2")));
    }

    #[test]
    fn reload_reason_counts_tiles() {
        let report = parse_json(
            r#"{"inputs": [[8, 4], [4]], "input_dtypes": ["f32", "f32"],
                "kernels": [{"name": "k", "kind": "emulated"}],
                "gm_bytes": {"total": 320}}"#,
        )
        .unwrap();
        // minimum 128 + 16 + 128 = 272; excess 48 = the [4] input read 3 more times.
        let reasons = explain(&report, 272.0);
        assert!(reasons[0].contains("≈3 times"), "{reasons:?}");
    }
}
