//! `autofuse-opt`: the `mlir-opt` of autofuse. Parses `ascend`/`ascir`/`tiling` IR (and
//! any upstream dialect), runs autofuse and upstream passes, prints the result.
//!
//! Exit codes: 0 success, 1 diagnostics (parse, verification, pass failure, unmatched
//! `--verify-diagnostics` expectations), 2 command-line misuse.

use autofuse::runner::dump_fusion::DumpPipeline;
use autofuse::runner::execute;
use autofuse::runner::symbols;
use autofuse_mlir::registry::Dialect;
use autofuse_mlir::{context::create_context, diagnostics, raw};
use autofuse_passes::{options::PassOptions, pipeline, registry, statistics};
use autofuse_tools::output::{write_output, Failure};
use autofuse_tools::progress::{self, Progress};
use autofuse_tools::{docs, expected, input};
use clap::{Arg, ArgAction, ArgMatches, Command};
use melior::{
    ir::operation::{OperationLike, OperationPrintingFlags},
    pass::{PassIrPrintingOptions, PassManager},
};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

fn command() -> Command {
    let mut cmd = Command::new("autofuse-opt")
        .about("Run autofuse and MLIR passes on Ascend IR / AscIR")
        .override_usage("autofuse-opt [options] [input-file]")
        .arg(Arg::new("input").default_value("-").help("Input file ('-' for standard input)"))
        .arg(Arg::new("output").short('o').default_value("-").help("Output file ('-' for standard output)"))
        .arg(
            Arg::new("pass-pipeline")
                .long("pass-pipeline")
                .short('p')
                .help("Textual pipeline, e.g. 'builtin.module(infer-symbolic-shapes,canonicalize)'"),
        )
        .arg(
            Arg::new("split-input-file")
                .long("split-input-file")
                .num_args(0..=1)
                .require_equals(true)
                .default_missing_value("// -----")
                .help("Split the input at this marker (default '// -----') and process chunks independently"),
        )
        .arg(
            Arg::new("output-split-marker")
                .long("output-split-marker")
                .default_value("// -----")
                .help("Marker printed between output chunks"),
        )
        .arg(
            Arg::new("verify-diagnostics")
                .long("verify-diagnostics")
                .num_args(0..=1)
                .require_equals(true)
                .default_missing_value("all")
                .value_parser(["all", "only-expected"])
                .help("Check emitted diagnostics against expected-* comments"),
        )
        .arg(
            Arg::new("verify-each")
                .long("verify-each")
                .num_args(0..=1)
                .require_equals(true)
                .default_missing_value("true")
                .default_value("true")
                .value_parser(clap::value_parser!(bool))
                .help("Run the MLIR and autofuse verifiers after each pass"),
        )
        .arg(flag("mlir-print-ir-after-all", "Print IR after each pass"))
        .arg(flag("mlir-print-ir-before-all", "Print IR before each pass"))
        .arg(flag("mlir-print-ir-after-failure", "Print IR after a pass fails"))
        .arg(flag("mlir-print-ir-module-scope", "Print the whole module when printing IR"))
        .arg(flag("mlir-timing", "Print pass timing"))
        .arg(flag("mlir-pass-statistics", "Print pass statistics"))
        .arg(flag("mlir-print-op-generic", "Print ops in generic form"))
        .arg(flag("mlir-print-debuginfo", "Print locations"))
        .arg(flag("mlir-disable-threading", "Disable multithreading in the context"))
        .arg(flag("emit-bytecode", "Write MLIR bytecode instead of text"))
        .arg(flag("allow-unregistered-dialect", "Allow ops of unregistered dialects"))
        .arg(flag("list-passes", "List the registered autofuse passes and exit"))
        .arg(flag(
            "interpret",
            "After the passes, run the entry function with the reference interpreters and print its outputs",
        ))
        .arg(Arg::new("entry").long("entry").help("Function run by --interpret (default: the first graph function)"))
        .arg(
            Arg::new("input-npy")
                .long("input")
                .action(ArgAction::Append)
                .help("An input of --interpret as a .npy file (repeat per argument); default: seeded random"),
        )
        .arg(
            Arg::new("seed")
                .long("seed")
                .default_value("0")
                .value_parser(clap::value_parser!(u64))
                .help("Seed of random inputs for --interpret"),
        )
        .arg(
            Arg::new("symbols")
                .long("symbols")
                .help("Symbol values for random inputs of --interpret, e.g. s0=4,s1=128 (default 4)"),
        )
        .arg(Arg::new("output-dir").long("output-dir").help("Write --interpret outputs as out<N>.npy into this directory"))
        .arg(
            Arg::new("dump-fusion")
                .long("dump-fusion")
                .value_name("DIR")
                .help("Also compile the input through lower-to-ascir and fuse and draw the result in DIR: each graph function after --fuse as DOT and SVG (one colour per kernel, boundary ops marked, every unfused edge labelled with its reason code), each kernel's AscGraph, and summary.txt"),
        )
        .arg(
            Arg::new("dump-fusion-target")
                .long("dump-fusion-target")
                .default_value("ascend910b")
                .help("Chip profile of --dump-fusion's fuse pass, unless the pipeline's fuse names its target"),
        )
        .arg(flag("show-dialects", "List the loaded dialects and exit"))
        .arg(
            Arg::new("emit-irdl")
                .long("emit-irdl")
                .num_args(0..=1)
                .require_equals(true)
                .default_missing_value("all")
                .value_parser(["all", "ascend", "ascir", "tiling"])
                .help("Print the IRDL definition of the autofuse dialects (or of one: =ascend) and exit"),
        )
        .arg(flag("emit-pass-docs", "Print the pass reference (Markdown) and exit"))
        .arg(
            Arg::new("emit-dialect-docs")
                .long("emit-dialect-docs")
                .value_parser(["ascend", "ascir", "tiling"])
                .help("Print the reference (Markdown) of one dialect and exit"),
        );
    for pass in registry::PASSES {
        cmd = cmd.arg(
            Arg::new(pass.argument)
                .long(pass.argument)
                .num_args(0..=1)
                .require_equals(true)
                .default_missing_value("")
                .action(ArgAction::Append)
                .help(pass.summary)
                .help_heading("Passes"),
        );
    }
    cmd
}

fn flag(name: &'static str, help: &'static str) -> Arg {
    Arg::new(name)
        .long(name)
        .action(ArgAction::SetTrue)
        .help(help)
}

/// The passes given as flags, in command-line order, as pipeline elements.
fn flag_pipeline(matches: &ArgMatches) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for pass in registry::PASSES {
        if let (Some(indices), Some(values)) = (
            matches.indices_of(pass.argument),
            matches.get_many::<String>(pass.argument),
        ) {
            for (index, options) in indices.zip(values) {
                let element = if options.is_empty() {
                    pass.argument.to_string()
                } else {
                    format!("{}{{{options}}}", pass.argument)
                };
                out.push((index, element));
            }
        }
    }
    out.sort_by_key(|(index, _)| *index);
    out
}

fn list_passes() -> String {
    let mut out = String::from(
        "Available autofuse passes (upstream MLIR passes are also accepted in --pass-pipeline):\n",
    );
    for pass in registry::PASSES {
        out.push_str(&format!("  --{:<28} {}\n", pass.argument, pass.summary));
        for option in pass.options {
            out.push_str(&format!(
                "      {}=<{}> (default {}): {}\n",
                option.name, option.kind, option.default, option.help
            ));
        }
    }
    out
}

struct Settings<'m> {
    matches: &'m ArgMatches,
    progress: Progress,
    pipeline: String,
    verify_mode: Option<String>,
    source_name: String,
    /// Set when a chunk found command-line misuse (e.g. `--symbols` naming a symbol the
    /// entry graph does not have): exit 2.
    usage_error: std::cell::Cell<bool>,
}

/// Processes one chunk; returns the printed output (None on failure) and whether it
/// succeeded under `--verify-diagnostics` rules.
fn process_chunk(settings: &Settings, chunk: &input::Chunk) -> (Option<Vec<u8>>, bool) {
    let matches = settings.matches;
    let context = create_context();
    if matches.get_flag("mlir-disable-threading") {
        context.enable_multi_threading(false);
    }
    if matches.get_flag("allow-unregistered-dialect") {
        context.set_allow_unregistered_dialects(true);
    }
    diagnostics::drain(&context);
    let verify_each = *matches.get_one::<bool>("verify-each").unwrap_or(&true);
    pipeline::set_verify_each(verify_each);

    let mut output = None;
    // The tools' one input path: parse, then MLIR's and autofuse's verifiers.
    if let Some(mut module) = input::parse_verified(&context, &chunk.text, &settings.source_name) {
        {
            let manager = PassManager::new(&context);
            manager.enable_verifier(verify_each);
            let printing = matches.get_flag("mlir-print-ir-after-all")
                || matches.get_flag("mlir-print-ir-before-all")
                || matches.get_flag("mlir-print-ir-after-failure");
            if printing {
                manager.enable_ir_printing(&PassIrPrintingOptions {
                    before_all: matches.get_flag("mlir-print-ir-before-all"),
                    after_all: matches.get_flag("mlir-print-ir-after-all"),
                    module_scope: matches.get_flag("mlir-print-ir-module-scope"),
                    on_change: false,
                    on_failure: matches.get_flag("mlir-print-ir-after-failure"),
                    flags: OperationPrintingFlags::new(),
                    tree_printing_path: Default::default(),
                });
            }
            if matches.get_flag("mlir-timing") {
                raw::enable_timing(&manager);
            }
            if matches.get_flag("mlir-pass-statistics") {
                raw::enable_statistics(&manager);
            }
            let built =
                pipeline::add_pipeline(&manager.as_operation_pass_manager(), &settings.pipeline);
            match built {
                Err(message) => diagnostics::error_unlocated(&context, "autofuse-opt", message),
                Ok(()) => {
                    let ran = settings
                        .progress
                        .step_with_passes("running the pass pipeline", || {
                            manager.run(&mut module).is_ok()
                        });
                    if ran && !diagnostics::has_errors(&context) {
                        output = Some(if matches.get_flag("interpret") {
                            match interpret(matches, &module) {
                                Ok(text) => text.into_bytes(),
                                Err(Failure::Usage(message)) => {
                                    settings.usage_error.set(true);
                                    diagnostics::error_unlocated(&context, "autofuse-opt", message);
                                    Vec::new()
                                }
                                Err(Failure::Error(message)) => {
                                    diagnostics::error_unlocated(
                                        &context,
                                        &settings.source_name,
                                        message,
                                    );
                                    Vec::new()
                                }
                            }
                        } else {
                            render(matches, &module)
                        });
                    } else if !diagnostics::has_errors(&context) {
                        diagnostics::error_unlocated(
                            &context,
                            &settings.source_name,
                            "pass pipeline failed",
                        );
                    }
                }
            }
            drop(manager);
            if matches.get_flag("mlir-pass-statistics") {
                eprint!("{}", statistics::report(&statistics::drain()));
            }
        }
    }
    let diags = diagnostics::drain(&context);
    match &settings.verify_mode {
        None => {
            for diag in &diags {
                eprintln!("{diag}");
            }
            let ok = !diags
                .iter()
                .any(|d| d.severity == diagnostics::Severity::Error);
            (output.filter(|_| ok), ok)
        }
        Some(mode) => {
            let text = String::from_utf8_lossy(&chunk.text);
            let mut expectations = match expected::parse_expectations(&text, 1) {
                Ok(e) => e,
                Err(message) => {
                    eprintln!("{}: error: {message}", settings.source_name);
                    return (None, false);
                }
            };
            let problems = expected::check(
                &diags,
                &mut expectations,
                &settings.source_name,
                mode == "only-expected",
            );
            for p in &problems {
                eprintln!("{p}");
            }
            (output, problems.is_empty())
        }
    }
}

/// The directory relative weight files are read from: the input file's (the current
/// directory for standard input).
fn weights_dir(matches: &ArgMatches) -> PathBuf {
    let input = matches
        .get_one::<String>("input")
        .map(String::as_str)
        .unwrap_or("-");
    if input == "-" {
        return PathBuf::from(".");
    }
    Path::new(input)
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

/// `--interpret`: runs the entry function on `.npy` or seeded random inputs and
/// describes (and optionally writes) its outputs.
fn interpret(matches: &ArgMatches, module: &melior::ir::Module) -> Result<String, Failure> {
    use autofuse_ir::tensor::Tensor;
    let mut program = execute::Program::from_module(module.body())?;
    program.resolve_weight_files(&weights_dir(matches));
    program.verify_weight_files()?;
    let entry = match matches.get_one::<String>("entry") {
        Some(e) => e.clone(),
        None => program
            .default_entry()
            .ok_or("the module has no graph function to interpret")?
            .to_string(),
    };
    let graph = program.graph(&entry)?;
    let files: Vec<&String> = matches
        .get_many::<String>("input-npy")
        .map(|v| v.collect())
        .unwrap_or_default();
    let inputs: Vec<Tensor> = if !files.is_empty() {
        execute::read_inputs(graph, &files)?
    } else {
        // The shared `--symbols` layer: every symbol of the entry graph, and only those,
        // once each; without `--symbols` every symbol is the documented default.
        let symbols = match matches.get_one::<String>("symbols") {
            Some(text) => symbols::bind(text, &symbols::graph_symbols(graph), &|_| {})
                .map_err(Failure::Usage)?,
            None => Default::default(),
        };
        let seed = *matches.get_one::<u64>("seed").unwrap_or(&0);
        execute::random_tensors(&execute::argument_types(graph)?, &symbols, seed)?
    };
    let outputs = program.run(&entry, &inputs)?;
    let mut text = String::new();
    for (i, out) in outputs.iter().enumerate() {
        let preview: Vec<String> = out.data.iter().take(8).map(|v| format!("{v}")).collect();
        text.push_str(&format!(
            "output #{i}: {} {:?} [{}{}]\n",
            out.dtype,
            out.shape,
            preview.join(", "),
            if out.data.len() > 8 { ", ..." } else { "" }
        ));
        if let Some(dir) = matches.get_one::<String>("output-dir") {
            std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {dir}: {e}"))?;
            let path = std::path::Path::new(dir).join(format!("out{i}.npy"));
            write_npy_atomic(out, &path)?;
        }
    }
    Ok(text)
}

/// Writes a `.npy` file under a temporary name and renames it into place.
fn write_npy_atomic(tensor: &autofuse_ir::tensor::Tensor, path: &Path) -> Result<(), String> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temp = path.with_file_name(format!(".{name}.tmp-{}", std::process::id()));
    let written = tensor
        .write_npy(&temp)
        .map_err(|e| e.to_string())
        .and_then(|()| std::fs::rename(&temp, path).map_err(|e| e.to_string()));
    written.map_err(|e| {
        let _ = std::fs::remove_file(&temp);
        format!("{}: {e}", path.display())
    })
}

fn render(matches: &ArgMatches, module: &melior::ir::Module) -> Vec<u8> {
    if matches.get_flag("emit-bytecode") {
        return module.as_operation().write_bytecode();
    }
    let mut flags = OperationPrintingFlags::new();
    if matches.get_flag("mlir-print-op-generic") {
        flags = flags.print_generic_operation_form();
    }
    if matches.get_flag("mlir-print-debuginfo") {
        flags = flags.enable_debug_info(true, false);
    }
    let mut bytes = raw::print_operation(&module.as_operation(), flags);
    if !bytes.ends_with(b"\n") {
        bytes.push(b'\n');
    }
    bytes
}

fn main() -> ExitCode {
    let matches = match autofuse_tools::input::parse_command_line(command()) {
        Ok(m) => m,
        Err(code) => return code,
    };
    let output_path = matches
        .get_one::<String>("output")
        .cloned()
        .unwrap_or_else(|| "-".into());
    if let Some(text) = emitted_text(&matches) {
        return match write_result(&output_path, text.as_bytes()) {
            Ok(()) => ExitCode::SUCCESS,
            Err(code) => code,
        };
    }
    let input_path = matches
        .get_one::<String>("input")
        .cloned()
        .unwrap_or_else(|| "-".into());
    let source = match input::read_input(&input_path) {
        Ok(s) => s,
        Err(message) => {
            eprintln!("autofuse-opt: error: {message}");
            return ExitCode::FAILURE;
        }
    };
    let pipeline_text = match checked_pipeline(&matches) {
        Ok(text) => text,
        Err(failure) => return failure.report("autofuse-opt"),
    };
    // No progress lines in logs unless AUTOFUSE_PROGRESS=plain asks for them.
    let progress = Progress::with_default("autofuse-opt", false, progress::Mode::Off);
    if let Err(code) = dump_fusion(&matches, &source, &input_path, &pipeline_text, &progress) {
        return code;
    }
    let settings = Settings {
        matches: &matches,
        progress,
        pipeline: pipeline_text,
        usage_error: std::cell::Cell::new(false),
        verify_mode: matches.get_one::<String>("verify-diagnostics").cloned(),
        source_name: if input_path == "-" {
            "<stdin>".to_string()
        } else {
            input_path.clone()
        },
    };
    let chunks = match matches.get_one::<String>("split-input-file") {
        Some(marker) => input::split(&source, marker),
        None => vec![input::Chunk {
            text: source,
            first_line: 1,
        }],
    };
    let (joined, all_ok) = process_chunks(&settings, &chunks);
    // Like mlir-opt, keep an output file only on success.
    if all_ok || output_path == "-" {
        if let Err(code) = write_result(&output_path, &joined) {
            return code;
        }
    }
    if settings.usage_error.get() {
        ExitCode::from(2)
    } else if all_ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// What the command line asks to print instead of processing input: the pass list,
/// the IRDL of a dialect (or of all), the generated docs, the dialect list.
fn emitted_text(matches: &ArgMatches) -> Option<String> {
    if matches.get_flag("list-passes") {
        Some(list_passes())
    } else if let Some(name) = matches.get_one::<String>("emit-irdl") {
        match Dialect::ALL.into_iter().find(|d| d.name() == name) {
            Some(dialect) => Some(autofuse_mlir::irdl::dialect_irdl(dialect)),
            None => Some(autofuse_mlir::context::irdl_source().to_string()),
        }
    } else if matches.get_flag("emit-pass-docs") {
        Some(docs::passes_doc())
    } else if let Some(name) = matches.get_one::<String>("emit-dialect-docs") {
        Dialect::ALL
            .into_iter()
            .find(|d| d.name() == name)
            .map(docs::dialect_doc)
    } else if matches.get_flag("show-dialects") {
        Some("Available dialects: all upstream MLIR dialects, ascend, ascir, tiling\n".to_string())
    } else {
        None
    }
}

/// Writes the output; a failure is printed and becomes exit code 1.
fn write_result(path: &str, bytes: &[u8]) -> Result<(), ExitCode> {
    write_output(path, bytes).map_err(|message| {
        eprintln!("autofuse-opt: error: {message}");
        ExitCode::FAILURE
    })
}

/// `--dump-fusion DIR`: draws the fusion of the input in DIR before the pipeline runs:
/// compiled with the pipeline's passes up to its `fuse` and that pass's options, or,
/// without `fuse` in the pipeline, with the runner's passes and `fuse`
/// (`--dump-fusion-target` is `fuse`'s target unless the pipeline's `fuse` names one).
/// A failure is printed and becomes exit code 1.
fn dump_fusion(
    matches: &ArgMatches,
    source: &[u8],
    input_path: &str,
    pipeline_text: &str,
    progress: &Progress,
) -> Result<(), ExitCode> {
    let Some(dir) = matches.get_one::<String>("dump-fusion") else {
        return Ok(());
    };
    let target = matches
        .get_one::<String>("dump-fusion-target")
        .map_or(autofuse_ascir::chip::DEFAULT_TARGET, String::as_str);
    let pipeline = match DumpPipeline::of_pipeline(pipeline_text, target) {
        Ok(Some(pipeline)) => pipeline,
        Ok(None) => DumpPipeline::standard(target),
        Err(message) => {
            eprintln!("autofuse-opt: error: --dump-fusion: {message}");
            return Err(ExitCode::FAILURE);
        }
    };
    let context = create_context();
    let drawn = progress.step_with_passes(&format!("drawing the fusion in {dir}"), || {
        autofuse::runner::dump_fusion::dump_fusion(
            &context,
            source,
            input_path,
            &pipeline,
            std::path::Path::new(dir),
        )
    });
    match drawn {
        Ok(dump) if !dump.svg => eprintln!(
            "autofuse-opt: warning: --dump-fusion wrote DOT only: Graphviz's dot is not on PATH (scripts/setup.sh installs graphviz)"
        ),
        Ok(_) => {}
        Err(message) => {
            eprintln!("autofuse-opt: error: --dump-fusion: {message}");
            return Err(ExitCode::FAILURE);
        }
    }
    Ok(())
}

/// The pipeline to run (`--pass-pipeline`, or the pass flags in command-line order),
/// checked once before any chunk runs with our pass options (names and values) and
/// `--symbols`: a typo is one command-line error, not a diagnostic at a made-up
/// location.
fn checked_pipeline(matches: &ArgMatches) -> Result<String, Failure> {
    let flags = flag_pipeline(matches);
    let pipeline_text = match matches.get_one::<String>("pass-pipeline") {
        // As mlir-opt: a textual pipeline and pass flags do not mix (which would run
        // first is not what either says).
        Some(_) if !flags.is_empty() => {
            let names: Vec<String> = flags
                .iter()
                .map(|(_, e)| format!("--{}", e.split('{').next().unwrap_or(e)))
                .collect();
            return Err(Failure::Usage(format!(
                "--pass-pipeline cannot be used with individual pass flags ({}): put every pass in the pipeline",
                names.join(", ")
            )));
        }
        Some(p) => p.clone(),
        None => flags
            .iter()
            .map(|(_, e)| e.clone())
            .collect::<Vec<_>>()
            .join(","),
    };
    for (_, element) in &flags {
        if let Some((name, opts)) = element.split_once('{') {
            if let Some(info) = registry::lookup(name) {
                PassOptions::parse(info, opts.trim_end_matches('}')).map_err(Failure::Usage)?;
            }
        }
    }
    if matches.contains_id("pass-pipeline") {
        pipeline::check(&pipeline_text)
            .map_err(|message| Failure::Usage(format!("--pass-pipeline: {message}")))?;
    }
    if let Some(text) = matches.get_one::<String>("symbols") {
        symbols::parse_assignments(text).map_err(Failure::Usage)?;
    }
    Ok(pipeline_text)
}

/// Processes every chunk in turn; returns the outputs of those that printed one, joined
/// by `--output-split-marker`, and whether every chunk succeeded.
fn process_chunks(settings: &Settings, chunks: &[input::Chunk]) -> (Vec<u8>, bool) {
    let mut all_ok = true;
    let mut outputs: Vec<Vec<u8>> = Vec::new();
    for chunk in chunks {
        let (out, ok) = process_chunk(settings, chunk);
        all_ok &= ok;
        if let Some(out) = out {
            outputs.push(out);
        }
    }
    let marker = settings
        .matches
        .get_one::<String>("output-split-marker")
        .cloned()
        .unwrap_or_default();
    let mut joined = Vec::new();
    for (i, out) in outputs.iter().enumerate() {
        if i > 0 {
            joined.extend_from_slice(format!("{marker}\n").as_bytes());
        }
        joined.extend_from_slice(out);
    }
    (joined, all_ok)
}
