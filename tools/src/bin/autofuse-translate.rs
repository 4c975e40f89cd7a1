//! `autofuse-translate`: from scheduled and tiled MLIR to Ascend C, and the tiling
//! evaluator.
//!
//! - `--mlir-to-ascendc -o <dir>`: for a module after `--schedule --auto-tiling`, writes
//!   one directory per kernel (`<kernel>.cpp`, `<kernel>_tiling.h`, `<kernel>_tiling.cpp`,
//!   `CMakeLists.txt`), the shared `include/` and `cmake/` files, a top-level
//!   `CMakeLists.txt` and the module as `graph.mlir`. `-o -` prints every file to
//!   standard output, each after a `// ===== <path>` line (for FileCheck).
//! - `--evaluate-tiling --symbols=s0=4,...`: prints, per kernel, the case, tile size,
//!   block dim, UB bytes used out of capacity (per buffer) and the estimated cycles per
//!   pipe for those symbol values.
//!
//! `--split-input-file[=marker]` translates each chunk of the input on its own (as
//! `mlir-translate`): `-o -` prints the chunks' files separated by the marker, `-o <dir>`
//! writes chunk `i` (from 0) into `<dir>/<i>/`.
//!
//! Kernels left in hint form or marked infeasible are reported on stderr and skipped.
//! Exit codes: 0 success, 1 errors (parse, missing schedule, solver failure), 2 misuse.

use autofuse::ascendc::{self, module::Selection};
use autofuse::runner::symbols;
use autofuse_mlir::context::create_context;
use autofuse_tools::input;
use autofuse_tools::output::{self, Failure};
use clap::{Arg, ArgAction, Command};
use std::collections::HashMap;
use std::path::Path;
use std::process::ExitCode;

fn command() -> Command {
    Command::new("autofuse-translate")
        .about("Translate scheduled AscGraphs to Ascend C; evaluate tilings")
        .arg(
            Arg::new("input")
                .default_value("-")
                .help("Input file ('-' for standard input)"),
        )
        .arg(
            Arg::new("output")
                .short('o')
                .help("Output directory ('-' prints every file)"),
        )
        .arg(
            Arg::new("mlir-to-ascendc")
                .long("mlir-to-ascendc")
                .action(ArgAction::SetTrue)
                .help("Write the Ascend C sources of every scheduled kernel"),
        )
        .arg(
            Arg::new("evaluate-tiling")
                .long("evaluate-tiling")
                .action(ArgAction::SetTrue)
                .help("Print the solved tiling of every kernel for --symbols"),
        )
        .arg(
            Arg::new("symbols")
                .long("symbols")
                .help("Symbol values, e.g. s0=4,s1=128"),
        )
        .arg(Arg::new("kernel").long("kernel").help("Only this kernel"))
        .arg(
            Arg::new("split-input-file")
                .long("split-input-file")
                .num_args(0..=1)
                .require_equals(true)
                .default_missing_value("// -----")
                .help("Split the input at this marker (default '// -----') and translate chunks independently"),
        )
}

/// `--symbols` through the shared layer's syntax checks (malformed entries, values that
/// are not positive integers, duplicates are command-line errors).
fn parse_symbols(text: Option<&String>) -> Result<HashMap<String, i64>, String> {
    match text {
        None => Ok(HashMap::new()),
        Some(t) => symbols::parse_assignments(t).map(|pairs| pairs.into_iter().collect()),
    }
}

/// What one chunk produced: files (path, contents) or an evaluation report.
enum Produced {
    Files(Vec<(String, String)>),
    Report(String),
}

fn main() -> ExitCode {
    let matches = match autofuse_tools::input::parse_command_line(command()) {
        Ok(m) => m,
        Err(code) => return code,
    };
    let translate = matches.get_flag("mlir-to-ascendc");
    let evaluate = matches.get_flag("evaluate-tiling");
    if translate == evaluate {
        eprintln!(
            "autofuse-translate: give exactly one of --mlir-to-ascendc and --evaluate-tiling"
        );
        return ExitCode::from(2);
    }
    if translate && matches.get_one::<String>("output").is_none() {
        eprintln!("autofuse-translate: --mlir-to-ascendc needs -o <dir> (or -o -)");
        return ExitCode::from(2);
    }
    if let Err(message) = parse_symbols(matches.get_one::<String>("symbols")) {
        return report(Failure::Usage(message));
    }
    match run(&matches, translate) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => report(Failure::Error(e)),
    }
}

/// Prints a failure as autofuse-translate always has (`autofuse-translate: message`;
/// located diagnostics as they are) and returns its exit code: 2 for misuse, else 1.
fn report(failure: Failure) -> ExitCode {
    let (message, code) = match &failure {
        Failure::Usage(m) => (m, 2),
        Failure::Error(m) => (m, 1),
    };
    if output::is_located(message) {
        eprintln!("{message}");
    } else {
        eprintln!("autofuse-translate: {message}");
    }
    ExitCode::from(code)
}

fn run(matches: &clap::ArgMatches, translate: bool) -> Result<(), String> {
    let path = matches
        .get_one::<String>("input")
        .cloned()
        .unwrap_or_else(|| "-".into());
    let source = input::read_input(&path)?;
    let name = if path == "-" {
        "<stdin>"
    } else {
        path.as_str()
    };
    let marker = matches.get_one::<String>("split-input-file");
    let chunks = match marker {
        Some(marker) => input::split(&source, marker),
        None => vec![input::Chunk {
            text: source,
            first_line: 1,
        }],
    };
    let out = matches
        .get_one::<String>("output")
        .cloned()
        .unwrap_or_default();
    // Everything is produced first and written once, to standard output or (staged in a
    // temporary directory, renamed into place) to the output directory: an error leaves
    // no partial output.
    let mut errors = Vec::new();
    let mut printed: Vec<u8> = Vec::new();
    let mut files: Vec<(String, String)> = Vec::new();
    for (i, chunk) in chunks.iter().enumerate() {
        if out == "-" && i > 0 {
            printed.extend_from_slice(marker.map_or("// -----", String::as_str).as_bytes());
            printed.push(b'\n');
        }
        match translate_chunk(matches, translate, &chunk.text, name) {
            Err(e) => errors.push(e),
            Ok(Produced::Report(text)) => printed.extend_from_slice(text.as_bytes()),
            Ok(Produced::Files(chunk_files)) if out == "-" => {
                for (f, c) in &chunk_files {
                    if f.starts_with("include/") || f.starts_with("cmake/") || f == "graph.mlir" {
                        continue;
                    }
                    printed.extend_from_slice(format!("// ===== {f}\n").as_bytes());
                    printed.extend_from_slice(c.as_bytes());
                }
            }
            Ok(Produced::Files(chunk_files)) => {
                for (f, c) in chunk_files {
                    let f = if marker.is_some() {
                        format!("{i}/{f}")
                    } else {
                        f
                    };
                    files.push((f, c));
                }
            }
        }
    }
    if !errors.is_empty() {
        return Err(errors.join("\n"));
    }
    if !translate || out == "-" {
        output::write_stdout(&printed)
    } else {
        output::StagedDir::write(Path::new(&out), &files)?.commit()
    }
}

/// Translates (or evaluates) one chunk of the input, named `name` in diagnostics.
fn translate_chunk(
    matches: &clap::ArgMatches,
    translate: bool,
    source: &[u8],
    name: &str,
) -> Result<Produced, String> {
    let context = create_context();
    // The tools' one input path: parsed and verified before anything reads it.
    let module = input::load_module(&context, source, name)?;
    let symbols = parse_symbols(matches.get_one::<String>("symbols"))?;
    let selection = Selection {
        only: matches.get_one::<String>("kernel").map(String::as_str),
        source: name,
    };
    let mut note = |n: &str| eprintln!("autofuse-translate: note: {n}");
    if translate {
        ascendc::module::translate_module(&module, &selection, &mut note).map(Produced::Files)
    } else {
        ascendc::module::evaluate_tiling(&module, &selection, &symbols, &mut note)
            .map(Produced::Report)
    }
}
