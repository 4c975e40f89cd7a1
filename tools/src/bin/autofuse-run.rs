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
use autofuse::runner::dump_fusion;
use autofuse::runner::report::{self, KernelRecord};
use autofuse::runner::symbols;
use autofuse::runner::vendor::{self, VendorHeaders};
use autofuse::runner::{self as run, RunOptions};
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
            Arg::new("emit-library")
                .long("emit-library")
                .value_name("DIR")
                .conflicts_with_all(["symbols", "inputs", "input-npy", "expect", "output-dir", "vendor-headers"])
                .help("Run nothing: build every kernel of the compiled module as one shared library with a C entry (DIR/kernels.so) and write the entry graph's launch plan (DIR/plan.json), for in-process callers such as the PyTorch package (docs/pytorch.md); DIR/npu holds the same kernels as a CANN source tree with the glue library that launches them on an NPU"),
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
    let quiet = matches.get_flag("quiet");
    let progress = Progress::new("autofuse-run", quiet || matches.get_flag("list-symbols"));
    let (text, onnx_nodes) = read_model(&path, &progress)?;
    if matches.get_flag("list-symbols") {
        return print_symbols(matches, &text, &path);
    }
    let repo = run::repo_root();
    let options = run_options(matches, &path, &repo);
    let context = create_context();
    let module = compile(matches, &progress, &context, &text, &path, &options)?;
    let entry = entry_of(matches, &module)?;
    if let Some(dir) = matches.get_one::<String>("emit-library") {
        return emit_library(&progress, &module, &options, &entry, Path::new(dir));
    }
    let mut session = Session {
        matches,
        path: &path,
        repo: &repo,
        progress: &progress,
        options: &options,
        module: &module,
        entry,
        out: String::new(),
        pass: true,
        reports: Vec::new(),
        summary: ModelSummary::default(),
        rows: Vec::new(),
        traces: Vec::new(),
    };
    session.log_header();
    let runs = session.shape_runs()?;
    let staged_out = session.write_sources()?;
    let builds = session.build()?;
    session.describe_kernels();
    session.run_shapes(&runs, &builds)?;
    session.finish(onnx_nodes, staged_out)
}

/// `--emit-library`: the kernels as a shared library and the launch plan, in `dir`.
fn emit_library(
    progress: &Progress,
    module: &run::PreparedModule,
    options: &RunOptions,
    entry: &str,
    dir: &Path,
) -> Result<bool, Failure> {
    let kernels = module.kernels.len() + module.launches.len();
    let library = progress.step(
        &format!("building {kernels} kernels as a shared library"),
        || autofuse::runner::library::emit_library(module, options, entry, dir),
    )?;
    for (name, why) in &module.interpreted {
        eprintln!("autofuse-run: warning: @{name} is not in the library: {why}");
    }
    let verb = if library.compiled {
        "built"
    } else {
        "found in the cache"
    };
    output::write_stdout(
        format!(
            "library {} ({kernels} kernels, {verb}), plan {}, NPU sources {}\n",
            library.path.display(),
            dir.join("plan.json").display(),
            dir.join("npu").display()
        )
        .as_bytes(),
    )?;
    Ok(true)
}

/// The `ascend` graph to compile: an ONNX model imported, or the input's bytes as they
/// are (MLIR's parser decides, as in autofuse-opt); with the ONNX model's node count.
fn read_model(path: &str, progress: &Progress) -> Result<(Vec<u8>, Option<usize>), Failure> {
    if path.ends_with(".onnx") {
        let imported = progress
            .step(&format!("importing {path}"), || {
                autofuse::onnx::import_file(Path::new(path))
            })
            .map_err(|e| format!("{path}: {e}"))?;
        Ok((imported.mlir.into_bytes(), Some(imported.summary.nodes)))
    } else {
        Ok((input::read_input(path)?, None))
    }
}

/// `--list-symbols`: prints the entry graph's symbols, one per line.
fn print_symbols(matches: &clap::ArgMatches, text: &[u8], path: &str) -> Result<bool, Failure> {
    let mut listing = String::new();
    for name in list_symbols(matches, text, path)? {
        let _ = writeln!(listing, "{name}");
    }
    output::write_stdout(listing.as_bytes())?;
    Ok(true)
}

/// The pipeline and build options the command line chooses.
fn run_options(matches: &clap::ArgMatches, path: &str, repo: &Path) -> RunOptions {
    let mut options = RunOptions::new(repo);
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
        .then(|| Path::new(path).parent().map(Path::to_path_buf))
        .flatten()
        .filter(|p| !p.as_os_str().is_empty());
    options
}

/// Compiles and translates the graph, and draws the fusion for `--dump-fusion`: from
/// the same compile, or with `--no-fuse` from a compile of its own with the standard
/// `fuse` (the dump shows what fusion would do).
fn compile(
    matches: &clap::ArgMatches,
    progress: &Progress,
    context: &melior::Context,
    text: &[u8],
    path: &str,
    options: &RunOptions,
) -> Result<run::PreparedModule, Failure> {
    let dump_dir = matches.get_one::<String>("dump-fusion");
    let (module, snapshot) = progress.step_with_passes(
        "compiling (symbolic shapes, decompose, lower-to-ascir, fuse, schedule, tiling)",
        || run::prepare_module_with(context, text, path, options, dump_dir.is_some()),
    )?;
    if let Some(dir) = dump_dir {
        // With passes: its plain line names none unless the dump compiles on its own.
        let dump =
            progress.step_with_passes(
                &format!("drawing the fusion in {dir}"),
                || match &snapshot {
                    Some(snapshot) => dump_fusion::draw(snapshot, path, Path::new(dir)),
                    None => dump_fusion::dump_fusion(
                        context,
                        text,
                        path,
                        &dump_fusion::DumpPipeline::standard(&options.target),
                        Path::new(dir),
                    ),
                },
            )?;
        if !dump.svg {
            eprintln!("autofuse-run: warning: --dump-fusion wrote DOT only: Graphviz's dot is not on PATH (scripts/setup.sh installs graphviz)");
        }
    }
    Ok(module)
}

/// The graph function to run: `--entry`, else the module's first.
fn entry_of(matches: &clap::ArgMatches, module: &run::PreparedModule) -> Result<String, Failure> {
    Ok(match matches.get_one::<String>("entry") {
        Some(e) => e.clone(),
        None => module
            .reference
            .default_entry()
            .ok_or("the module has no graph function")?
            .to_string(),
    })
}

/// Files given per run (`--inputs A.npy,B.npy`, `--expect O.npy`), one list each.
type FileSets = Vec<Vec<String>>;

/// `--input`/`--inputs` as one list of files per run, and `--expect` likewise; mixing
/// both input flags, or expectations for a different number of runs, is misuse.
fn file_sets(matches: &clap::ArgMatches) -> Result<(FileSets, FileSets), Failure> {
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
    Ok((input_sets, expect_sets))
}

/// The sim builds of every kernel and, with vendor headers, the vendor path's.
struct Builds {
    sim: HashMap<String, run::SimBuild>,
    vendor: Option<HashMap<String, run::SimBuild>>,
}

/// The result of one shape run on the vendor path: its log lines, whether it passed,
/// and its figures for `--report-json` (`null` without the vendor path).
struct VendorCheck {
    out: String,
    ok: bool,
    json: String,
}

/// A compiled model and what the steps of its runs share: the command line, the full
/// log (`-v`) and what the shape runs produced so far.
struct Session<'a> {
    matches: &'a clap::ArgMatches,
    path: &'a str,
    repo: &'a Path,
    progress: &'a Progress,
    options: &'a RunOptions,
    module: &'a run::PreparedModule,
    entry: String,
    /// The full log, printed with `-v`.
    out: String,
    pass: bool,
    /// Each run's `--report-json` object.
    reports: Vec<String>,
    summary: ModelSummary,
    rows: Vec<Row>,
    traces: Vec<run::trace::LaunchTrace>,
}

impl Session<'_> {
    /// The log's first line: input, entry, target and the pipeline that compiled it.
    fn log_header(&mut self) {
        let _ = writeln!(
            self.out,
            "== autofuse-run {} (@{}, target {}, pipeline {})",
            self.path,
            self.entry,
            self.module.chip.name,
            self.options.pipeline()
        );
    }

    /// The shapes to run, checked before anything is built (command-line misuse: exit
    /// 2). Each run: its symbols (none when inputs are files: their shapes bind the
    /// symbols), its input files and its expected outputs. `--symbols` goes through the
    /// shared layer: every symbol of the entry graph once (or derived by its guards from
    /// given ones), nothing else.
    fn shape_runs(&self) -> Result<Vec<RunSpec>, Failure> {
        let graph = self.module.reference.graph(&self.entry)?;
        let (input_sets, expect_sets) = file_sets(self.matches)?;
        let known = symbols::graph_symbols(graph);
        let complete =
            |values: &mut HashMap<String, i64>| self.module.complete_symbols(&self.entry, values);
        if input_sets.is_empty() {
            return match self.matches.get_many::<String>("symbols") {
                Some(list) => list
                    .map(|s| {
                        symbols::bind(s, &known, &complete).map(|v| (v, Vec::new(), Vec::new()))
                    })
                    .collect::<Result<_, _>>()
                    .map_err(Failure::Usage),
                None => Ok(vec![(HashMap::new(), Vec::new(), Vec::new())]),
            };
        }
        if self.matches.contains_id("symbols") {
            return Err(Failure::Usage(
                "--symbols and input files do not mix: the inputs' shapes bind the symbols".into(),
            ));
        }
        Ok(input_sets
            .into_iter()
            .enumerate()
            .map(|(i, files)| {
                let expect = expect_sets.get(i).cloned().unwrap_or_default();
                (HashMap::new(), files, expect)
            })
            .collect())
    }

    /// `--out`: the sources for the user, staged in a temporary directory and renamed
    /// into place once the run completes, so that an error on the way leaves no partial
    /// source tree.
    fn write_sources(&mut self) -> Result<Option<output::StagedDir>, Failure> {
        let Some(dir) = self.matches.get_one::<String>("out") else {
            return Ok(None);
        };
        let mut files = ascendc::shared_files();
        let launch_dirs = self.launch_sources(&mut files)?;
        let names = self.kernel_sources(&mut files)?;
        let all: Vec<String> = launch_dirs.iter().chain(&names).cloned().collect();
        files.push(("CMakeLists.txt".into(), ascendc::top_cmake(&all)));
        let staged = output::StagedDir::write(Path::new(dir), &files)?;
        let _ = writeln!(
            self.out,
            "sources: {dir}/ ({} kernels, {} launches of several loop groups, CMake for CANN in {dir}/CMakeLists.txt)",
            names.len(),
            launch_dirs.len()
        );
        Ok(Some(staged))
    }

    /// The kernel input of the prepared kernel `k` for the translation.
    fn kernel_input<'k>(&'k self, k: &'k run::PreparedKernel) -> KernelInput<'k> {
        KernelInput {
            graph: &k.graph,
            schedule: &k.schedule,
            model: &k.model,
            chip: &k.chip,
            static_tiling: k.static_tiling.as_ref(),
            source: self.path,
        }
    }

    /// Adds the sources of every launch of several loop groups, in name order, to
    /// `files`; returns their directories.
    fn launch_sources(&self, files: &mut Vec<(String, String)>) -> Result<Vec<String>, String> {
        let module = self.module;
        let mut launch_names: Vec<&String> = module.launches.keys().collect();
        launch_names.sort();
        for name in launch_names {
            let l = &module.launches[name];
            let groups: Vec<ascendc::launch::LaunchGroup> = l
                .groups
                .iter()
                .map(|g| ascendc::launch::LaunchGroup {
                    kernel: g.clone(),
                    input: self.kernel_input(&module.kernels[g]),
                })
                .collect();
            let sources = ascendc::launch::translate_launch(&groups, &l.wiring, name, self.path)?;
            for (f, c) in sources.files {
                files.push((format!("{name}/{f}"), c));
            }
        }
        let mut launch_dirs: Vec<String> = module.launches.keys().cloned().collect();
        launch_dirs.sort();
        Ok(launch_dirs)
    }

    /// Adds the sources of every kernel that is not a group of a launch, in name order,
    /// to `files`; returns their names.
    fn kernel_sources(&self, files: &mut Vec<(String, String)>) -> Result<Vec<String>, String> {
        let module = self.module;
        let grouped: std::collections::HashSet<&String> =
            module.launches.values().flat_map(|l| &l.groups).collect();
        let mut names: Vec<String> = module
            .kernels
            .keys()
            .filter(|k| !grouped.contains(k))
            .cloned()
            .collect();
        names.sort();
        for name in &names {
            let sources =
                ascendc::translate_kernel(&self.kernel_input(&module.kernels[name]), name)?;
            for (f, c) in sources.files {
                files.push((format!("{name}/{f}"), c));
            }
        }
        Ok(names)
    }

    /// Builds every kernel once against the emulation and, with `--vendor-headers` (or
    /// its variable), against the vendor's headers.
    fn build(&mut self) -> Result<Builds, Failure> {
        let (module, options) = (self.module, self.options);
        let kernels: Vec<&run::PreparedKernel> = module.kernels.values().collect();
        let started = std::time::Instant::now();
        // One g++ call compiles every kernel (docs/fusion-dump.md says why the build is
        // not split per kernel): the step names the kernel count, and its time.
        let build = self.progress.step_timed(
            &format!("building {} kernel(s) with {}", kernels.len(), options.cxx),
            || run::build_module(module, options, &run::Toolchain::sim(options)),
        )?;
        let _ = writeln!(
            self.out,
            "build: {} kernel(s) {} ({:.1} s)",
            kernels.len(),
            if build.compiled {
                "compiled with g++ against sim/include"
            } else {
                "from the cache"
            },
            started.elapsed().as_secs_f64()
        );
        let sim = run::builds_for(module, &build);
        let vendor_root = self
            .matches
            .get_one::<String>("vendor-headers")
            .cloned()
            .or_else(|| std::env::var(vendor::ENV).ok().filter(|s| !s.is_empty()));
        let vendor = match vendor_root {
            None => None,
            Some(root) => Some(self.build_vendor(&root, &kernels)?),
        };
        Ok(Builds { sim, vendor })
    }

    /// Builds every kernel against the vendor's headers under `root`. One build compiles
    /// every kernel; only when it fails is each kernel compiled on its own, to name the
    /// kernel, line and API of the first error.
    fn build_vendor(
        &mut self,
        root: &str,
        kernels: &[&run::PreparedKernel],
    ) -> Result<HashMap<String, run::SimBuild>, Failure> {
        let headers = VendorHeaders::locate(Path::new(root), self.repo)?;
        let started = std::time::Instant::now();
        let vbuild =
            match run::build_module(self.module, self.options, &vendor::toolchain(&headers)) {
                Ok(b) => b,
                Err(e) => {
                    vendor::check_kernels(kernels, self.options, &headers).map_err(|c| {
                        format!("vendor headers ({}): {c}", headers.include.display())
                    })?;
                    return Err(format!("vendor path: {e}").into());
                }
            };
        let _ = writeln!(
            self.out,
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
        Ok(run::builds_for(self.module, &vbuild))
    }

    /// One log line per kernel, per launch of several loop groups and per kernel left
    /// to the interpreter (with why).
    fn describe_kernels(&mut self) {
        let module = self.module;
        let mut names: Vec<&String> = module.kernels.keys().collect();
        names.sort();
        for name in names {
            let k = &module.kernels[name];
            let _ = writeln!(
                self.out,
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
                self.out,
                "  launch {name}: {} loop groups ({}) | {} cross-core barrier(s) | {} workspace value(s)",
                l.groups.len(),
                l.groups.join(", "),
                l.wiring.waits.iter().filter(|&&w| w).count(),
                l.wiring.workspace.len()
            );
        }
        for (name, why) in &module.interpreted {
            let _ = writeln!(self.out, "  kernel {name}: interpreted ({why})");
        }
    }

    /// Runs every shape, then writes the pipe timelines of `--trace`/`--trace-svg`
    /// (collected in a temporary directory while the runs go).
    fn run_shapes(&mut self, runs: &[RunSpec], builds: &Builds) -> Result<(), Failure> {
        let trace_dir = (self.matches.contains_id("trace")
            || self.matches.contains_id("trace-svg"))
        .then(|| std::env::temp_dir().join(format!("autofuse-trace-{}", std::process::id())));
        if let Some(dir) = &trace_dir {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        if self.matches.get_flag("no-sync-check") {
            run::set_sync_check(false);
        }
        for (run_index, spec) in runs.iter().enumerate() {
            let step = (run_index + 1, runs.len());
            self.run_shape(step, spec, builds, trace_dir.as_deref())?;
        }
        match &trace_dir {
            Some(dir) => self.write_traces(dir),
            None => Ok(()),
        }
    }

    /// The inputs of one run: its `.npy` files, else seeded random values.
    fn shape_inputs(
        &self,
        files: &[String],
        symbols: &HashMap<String, i64>,
    ) -> Result<Vec<Tensor>, Failure> {
        let graph = self.module.reference.graph(&self.entry)?;
        let seed = *self.matches.get_one::<u64>("seed").unwrap_or(&0);
        Ok(if !files.is_empty() {
            let files: Vec<&String> = files.iter().collect();
            autofuse::runner::execute::read_inputs(graph, &files)?
        } else {
            autofuse::runner::execute::random_inputs(graph, symbols, seed)?
        })
    }

    /// Runs shape run `step.0` of `step.1`: the reference interpreter, then the kernels
    /// on the emulation (and the vendor path), compared and logged.
    fn run_shape(
        &mut self,
        step: (usize, usize),
        (given, files, expect): &RunSpec,
        builds: &Builds,
        trace_dir: Option<&Path>,
    ) -> Result<(), Failure> {
        let mut row = Row::default();
        let mut completed = given.clone();
        self.module.complete_symbols(&self.entry, &mut completed);
        let symbols = &completed;
        let inputs = self.shape_inputs(files, symbols)?;
        let shapes: Vec<String> = inputs.iter().map(|t| format!("{:?}", t.shape)).collect();
        row.shape = shape_label(symbols, &shapes);
        let step = format!("run {} of {} ({})", step.0, step.1, row.shape);
        let (module, entry) = (self.module, self.entry.as_str());
        // The reference interpreter and the kernels on the emulation, one step.
        let (expected, result) = self.progress.step(&step, || {
            let expected = module.reference.run(entry, &inputs);
            if expected.is_err() {
                return (expected, Err(String::new()));
            }
            if let Some(dir) = trace_dir {
                run::set_trace_dir(Some(dir.to_path_buf()));
            }
            let result = run::execute(module, &builds.sim, entry, &inputs);
            run::set_trace_dir(None);
            (expected, result)
        });
        let expected = expected?;
        if let Ok(r) = &result {
            self.collect_traces(r);
        }
        let _ = writeln!(self.out, "-- inputs {}", shapes.join(" "));
        match result {
            Err(e) => {
                self.record_failure(row, symbols, &inputs, &e);
                Ok(())
            }
            Ok(graph_run) => {
                let shape = ShapeRun {
                    symbols,
                    inputs: &inputs,
                    expect,
                    expected: &expected,
                    run: &graph_run,
                };
                self.record_run(row, &shape, builds)
            }
        }
    }

    /// Keeps the pipe timeline of every launch that wrote one.
    fn collect_traces(&mut self, r: &run::GraphRun) {
        for l in &r.launches {
            if let (Some(file), Some(p)) = (&l.trace, &l.pipes) {
                self.traces.push(run::trace::LaunchTrace {
                    kernel: l.kernel.clone(),
                    file: file.clone(),
                    micros: p.cycles / (run::trace::CLOCK_GHZ * 1000.0),
                });
            }
        }
    }

    /// A run the emulation could not complete: FAIL with why.
    fn record_failure(
        &mut self,
        mut row: Row,
        symbols: &HashMap<String, i64>,
        inputs: &[Tensor],
        e: &str,
    ) {
        self.pass = false;
        let _ = writeln!(self.out, "   FAIL: {e}");
        row.result = "FAIL".into();
        row.details.push(format!("FAIL: {e}"));
        self.rows.push(row);
        self.reports.push(
            report::RunReport {
                symbols,
                inputs,
                kernels: &[],
                traffic: None,
                max_error: None,
                notes: &[],
                error: Some(e),
                vendor: "null",
                pass: false,
            }
            .json(),
        );
    }

    /// A completed run: its launches, its comparisons with the interpreter, the vendor
    /// path and `--expect`, its GM bytes, its row, its report and `--output-dir`.
    fn record_run(
        &mut self,
        mut row: Row,
        shape: &ShapeRun,
        builds: &Builds,
    ) -> Result<(), Failure> {
        let run = shape.run;
        self.log_launches(run, &mut row);
        for n in &run.notes {
            let _ = writeln!(self.out, "   note: {n}");
        }
        let (worst, ok, why) = max_error(shape.expected, &run.outputs);
        for w in &why {
            let _ = writeln!(self.out, "   {w}");
            row.details.push(w.clone());
        }
        let vendor = self.vendor_check(shape, builds);
        let kernels = report::run_kernels(self.module, &self.entry, shape.inputs, &run.launches)?;
        self.log_gm_bytes(&run.traffic, &kernels);
        let _ = writeln!(self.out, "   {}", verdict(worst, ok, why.len()));
        self.out.push_str(&vendor.out);
        self.pass &= ok && vendor.ok;
        let mut matched = true;
        if !shape.expect.is_empty() {
            let (line, c) = compare_expected(shape.expect, &run.outputs)?;
            let _ = writeln!(self.out, "{line}");
            let m = c.passed();
            self.pass &= m;
            matched = m;
            row.expected = Some(c.error_figure());
            if !m {
                row.details
                    .extend(line.lines().map(|l| l.trim().to_string()));
            }
        }
        if !vendor.ok || (builds.vendor.is_some() && self.matches.get_flag("verbose")) {
            row.details
                .extend(vendor.out.lines().map(|l| l.trim().to_string()));
        } else if builds.vendor.is_some() {
            row.vendor = Some("PASS".into());
        }
        fill_row(&mut row, &kernels, &run.traffic, worst);
        row.result = if ok && vendor.ok && matched {
            "PASS"
        } else {
            "FAIL"
        }
        .into();
        self.rows.push(row);
        self.summary.add(&kernels);
        if self.matches.get_one::<String>("report-json").is_some() {
            self.reports.push(
                report::RunReport {
                    symbols: shape.symbols,
                    inputs: shape.inputs,
                    kernels: &kernels,
                    traffic: Some(&run.traffic),
                    max_error: Some(worst),
                    notes: &run.notes,
                    error: None,
                    vendor: &vendor.json,
                    pass: ok && vendor.ok,
                }
                .json(),
            );
        }
        if let Some(dir) = self.matches.get_one::<String>("output-dir") {
            write_outputs(dir, &run.outputs)?;
        }
        Ok(())
    }

    /// Per launch: its blocks, tile size, case and GM bytes, and its pipe line (whose
    /// chip time adds to the row's).
    fn log_launches(&mut self, run: &run::GraphRun, row: &mut Row) {
        for l in &run.launches {
            let tile = l
                .fields
                .iter()
                // Tile sizes are named after their axis (`z0t_size`), which buffer sizes
                // such as `part_size` are not.
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
                self.out,
                "   {}: blocks {}{tile}, GM read {} written {}, UB peak {} B, distinct reads per core {}{key}",
                l.kernel,
                l.blocks,
                run::human_bytes(l.gm_read),
                run::human_bytes(l.gm_written),
                l.ub_peak,
                run::human_bytes(l.gm_read_per_core)
            );
            if let Some(p) = &l.pipes {
                let _ = writeln!(self.out, "   {}", run::trace::pipes_line(p));
                row.micros += p.cycles / (run::trace::CLOCK_GHZ * 1000.0);
                row.timed = true;
            }
        }
    }

    /// Runs the shape on the vendor path (when built) and compares its outputs with the
    /// interpreter's and the emulation's.
    fn vendor_check(&self, shape: &ShapeRun, builds: &Builds) -> VendorCheck {
        let mut check = VendorCheck {
            out: String::new(),
            ok: true,
            json: String::from("null"),
        };
        let Some(vbuilds) = &builds.vendor else {
            return check;
        };
        match run::execute(self.module, vbuilds, &self.entry, shape.inputs) {
            Err(e) => {
                check.ok = false;
                let _ = writeln!(check.out, "   vendor path: FAIL: {e}");
                check.json = report::vendor_failure_json(&e);
            }
            Ok(vrun) => {
                let (verr, vok, vwhy) = max_error(shape.expected, &vrun.outputs);
                let (vsim, sok, swhy) = max_error(&shape.run.outputs, &vrun.outputs);
                let mut launched: Vec<&str> =
                    vrun.launches.iter().map(|l| l.kernel.as_str()).collect();
                launched.sort_unstable();
                launched.dedup();
                for w in &vwhy {
                    let _ = writeln!(check.out, "   vendor path: {w}");
                }
                for w in &swhy {
                    let _ = writeln!(check.out, "   vendor path vs sim: {w}");
                }
                let _ = writeln!(
                    check.out,
                    "   vendor path: {} kernel(s) run, max error {verr:.3e} (vs sim {vsim:.3e}): {}",
                    launched.len(),
                    if vok && sok { "PASS" } else { "FAIL" }
                );
                check.ok = vok && sok;
                check.json = report::vendor_json(launched.len(), verr, vsim, check.ok);
            }
        }
        check
    }

    /// The run's GM bytes against the unfused graph, the minimum and the kernels' own
    /// minimums.
    fn log_gm_bytes(&mut self, t: &run::Traffic, kernels: &[KernelRecord]) {
        let (own, per_core) = report::emulated_minimums(kernels);
        let _ = writeln!(
            self.out,
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
    }

    /// Merges the launches' pipe timelines into `--trace` and draws `--trace-svg`; the
    /// temporary directory `dir` is removed either way.
    fn write_traces(&self, dir: &Path) -> Result<(), Failure> {
        if self.traces.is_empty() {
            let _ = std::fs::remove_dir_all(dir);
            return Err(Failure::Error(
                "--trace: no kernel ran on the emulation, so there is no pipe timeline".into(),
            ));
        }
        let merged = run::trace::merge(&self.traces)?;
        let _ = std::fs::remove_dir_all(dir);
        if let Some(file) = self.matches.get_one::<String>("trace") {
            output::write_file_atomic(Path::new(file), merged.as_bytes())?;
        }
        if let Some(file) = self.matches.get_one::<String>("trace-svg") {
            let title = format!(
                "{} pipe timeline",
                Path::new(self.path)
                    .file_name()
                    .map_or(self.path.to_string(), |f| f.to_string_lossy().into_owned())
            );
            let picture = run::trace::svg(&merged, &title, 4)?;
            output::write_file_atomic(Path::new(file), picture.as_bytes())?;
        }
        Ok(())
    }

    /// Without -v: the header, one row per shape, failures and the model line.
    fn short_log(&self, model_line: Option<&str>) -> String {
        let mut short = String::new();
        let _ = writeln!(
            short,
            "== autofuse-run {} (@{}, target {})",
            self.path, self.entry, self.module.chip.name
        );
        let module = self.module;
        if !module.interpreted.is_empty() {
            let names: Vec<&str> = module.interpreted.iter().map(|(n, _)| n.as_str()).collect();
            let _ = writeln!(
                short,
                "   left to the interpreter: {} (-v for why)",
                names.join(", ")
            );
        }
        short.push_str(&table(&self.rows));
        if let Some(line) = model_line {
            let _ = writeln!(short, "{line}");
        }
        short
    }

    /// Prints the log `-v`, `-q` or neither asks for, after every output is complete:
    /// the JSON report (a failure to write it is an error, exit 1, with no verdict
    /// printed) and the sources of `--out`; then the verdict.
    fn finish(
        mut self,
        onnx_nodes: Option<usize>,
        staged_out: Option<output::StagedDir>,
    ) -> Result<bool, Failure> {
        let model_line = self.summary.render(onnx_nodes);
        if let Some(line) = &model_line {
            let _ = writeln!(self.out, "{line}");
        }
        let short = self.short_log(model_line.as_deref());
        let mut out = if self.matches.get_flag("quiet") {
            String::new()
        } else if self.matches.get_flag("verbose") {
            std::mem::take(&mut self.out)
        } else {
            short
        };
        if let Some(file) = self.matches.get_one::<String>("report-json") {
            let json = report::ModelReport {
                input: self.path,
                onnx_nodes,
                entry: &self.entry,
                target: self.module.chip.name,
                pipeline: &self.options.pipeline(),
                runs: &self.reports,
                pass: self.pass,
            }
            .json();
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
        let _ = writeln!(out, "== {}", if self.pass { "PASS" } else { "FAIL" });
        output::write_stdout(out.as_bytes())?;
        Ok(self.pass)
    }
}

/// One completed shape run and what it is compared with.
struct ShapeRun<'r> {
    symbols: &'r HashMap<String, i64>,
    inputs: &'r [Tensor],
    /// `--expect` files of the run.
    expect: &'r [String],
    /// The reference interpreter's outputs.
    expected: &'r [Tensor],
    run: &'r run::GraphRun,
}

/// The row's launch counts, GM bytes and largest error.
fn fill_row(row: &mut Row, kernels: &[KernelRecord], t: &run::Traffic, worst: f64) {
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
}

/// `--output-dir`: the run's outputs as `out<N>.npy`, each written under a temporary
/// name and renamed into place.
fn write_outputs(dir: &str, outputs: &[Tensor]) -> Result<(), Failure> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{dir}: {e}"))?;
    for (i, t) in outputs.iter().enumerate() {
        let p = Path::new(dir).join(format!("out{i}.npy"));
        let temp = Path::new(dir).join(format!(".out{i}.npy.tmp-{}", std::process::id()));
        let written = t
            .write_npy(&temp)
            .map_err(|e| e.to_string())
            .and_then(|()| std::fs::rename(&temp, &p).map_err(|e| e.to_string()));
        if let Err(e) = written {
            let _ = std::fs::remove_file(&temp);
            return Err(format!("{}: {e}", p.display()).into());
        }
    }
    Ok(())
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
