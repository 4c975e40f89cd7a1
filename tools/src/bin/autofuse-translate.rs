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

use autofuse::ascendc::{self, launch, KernelInput};
use autofuse::runner::symbols;
use autofuse_ascir::kernel::Schedule;
use autofuse_ir::attr::AttrValue;
use autofuse_mlir::{context::create_context, extract};
use autofuse_passes::auto_tiling::solver::solve;
use autofuse_passes::schedule::build::BuildSchedule;
use autofuse_passes::schedule::{chip_of, form_of, read_hint_graph, RecordIndex};
use autofuse_tiling::tiling::TilingModel;
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

/// `--symbols` values (none given: no symbols); negative sizes are refused.
/// A scheduled kernel ready to translate.
struct Prepared {
    graph: autofuse_ascir::graph::AscGraph,
    schedule: Schedule,
    model: TilingModel,
    static_tiling: Option<autofuse_tiling::tiling::Tiling>,
    chip: autofuse_ascir::chip::ChipProfile,
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

/// Translates (or evaluates) one module; `out` is the output directory, `-` for stdout.
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
    let only = matches.get_one::<String>("kernel");
    let body = module.body();
    let mut files: Vec<(String, String)> = Vec::new();
    let mut kernel_dirs = Vec::new();
    let mut report = String::new();
    let mut errors = Vec::new();
    let mut found = 0;
    let index = RecordIndex::build(body);
    let mut prepared: HashMap<String, Prepared> = HashMap::new();
    let mut order: Vec<String> = Vec::new();
    for func in extract::functions(body) {
        if !extract::read_attributes(&func).contains_key("ascir.axes") {
            continue;
        }
        let kernel = extract::function_name(&func);
        if only.is_some_and(|o| o != &kernel) {
            continue;
        }
        found += 1;
        if form_of(&func) != "impl" {
            eprintln!("autofuse-translate: note: @{kernel} is not scheduled (hint form); skipped");
            continue;
        }
        let records = index.records(&kernel);
        let Some((_, function)) = records.iter().find(|(op, _)| op == "tiling.function") else {
            errors.push(format!(
                "@{kernel} has no tiling.function: run --auto-tiling first"
            ));
            continue;
        };
        if function.get("feasible").and_then(AttrValue::as_bool) == Some(false) {
            eprintln!("autofuse-translate: note: @{kernel}: no tiling case fits UB; skipped");
            continue;
        }
        let result = (|| -> Result<(), String> {
            let chip = chip_of(&func).unwrap_or_else(|| Err("no recorded chip".into()))?;
            let graph = read_hint_graph(&func)?;
            let schedule = Schedule::build(&graph, &chip)?;
            let model = TilingModel::new(&schedule, &Schedule::operands_of(&graph));
            let static_tiling = if schedule.symbols.is_empty() {
                Some(solve(&model, &HashMap::new(), &chip)?)
            } else {
                None
            };
            if !translate {
                let tiling = match &static_tiling {
                    Some(t) => t.clone(),
                    None => solve(&model, &symbols, &chip)?,
                };
                report.push_str(&tiling.report(&model));
            }
            order.push(kernel.clone());
            prepared.insert(
                kernel.clone(),
                Prepared {
                    graph,
                    schedule,
                    model,
                    static_tiling,
                    chip,
                },
            );
            Ok(())
        })();
        if let Err(e) = result {
            errors.push(format!("@{kernel}: {e}"));
        }
    }
    // Launches of several loop groups (--group-launches): their kernels are translated
    // as groups of the launch, not alone.
    let mut in_launch: std::collections::HashSet<String> = Default::default();
    if translate {
        for func in extract::functions(body) {
            let attrs = extract::read_attributes(&func);
            if !attrs.contains_key("ascir.launch") {
                continue;
            }
            let launch = extract::function_name(&func);
            let result = (|| -> Result<(), String> {
                let extracted = extract::extract_function(func).ok_or("a launch without a body")?;
                let wiring = launch::wiring(&extracted.graph, &attrs)?;
                let mut groups = Vec::new();
                for (kernel, _, _) in &wiring.groups {
                    let p = prepared.get(kernel).ok_or_else(|| {
                        format!("group @{kernel} is not a scheduled kernel with a feasible tiling")
                    })?;
                    groups.push(launch::LaunchGroup {
                        kernel: kernel.clone(),
                        input: KernelInput {
                            graph: &p.graph,
                            schedule: &p.schedule,
                            model: &p.model,
                            chip: &p.chip,
                            static_tiling: p.static_tiling.as_ref(),
                            source: name,
                        },
                    });
                }
                let sources = launch::translate_launch(&groups, &wiring, &launch, name)?;
                for (f, c) in sources.files {
                    files.push((format!("{launch}/{f}"), c));
                }
                kernel_dirs.push(launch.clone());
                for (kernel, _, _) in &wiring.groups {
                    in_launch.insert(kernel.clone());
                }
                Ok(())
            })();
            if let Err(e) = result {
                errors.push(format!("@{launch}: {e}"));
            }
        }
        for kernel in &order {
            if in_launch.contains(kernel) {
                continue;
            }
            let p = &prepared[kernel];
            let result = ascendc::translate_kernel(
                &KernelInput {
                    graph: &p.graph,
                    schedule: &p.schedule,
                    model: &p.model,
                    chip: &p.chip,
                    static_tiling: p.static_tiling.as_ref(),
                    source: name,
                },
                kernel,
            );
            match result {
                Ok(sources) => {
                    for (f, c) in sources.files {
                        files.push((format!("{kernel}/{f}"), c));
                    }
                    kernel_dirs.push(kernel.clone());
                }
                Err(e) => errors.push(format!("@{kernel}: {e}")),
            }
        }
    }
    if let Some(kernel) = only.filter(|_| found == 0) {
        let mut available: Vec<String> = extract::functions(body)
            .into_iter()
            .filter(|f| extract::read_attributes(f).contains_key("ascir.axes"))
            .map(|f| format!("@{}", extract::function_name(&f)))
            .collect();
        available.sort();
        return Err(format!(
            "--kernel {kernel}: the module has no AscGraph @{kernel} (available: {})",
            if available.is_empty() {
                "none".to_string()
            } else {
                available.join(", ")
            }
        ));
    }
    if found == 0 {
        eprintln!("autofuse-translate: note: the module has no AscGraph");
    }
    if !errors.is_empty() {
        return Err(errors.join("\n"));
    }
    if !translate {
        return Ok(Produced::Report(report));
    }
    files.extend(ascendc::shared_files());
    files.push(("CMakeLists.txt".into(), ascendc::top_cmake(&kernel_dirs)));
    files.push(("graph.mlir".into(), module.as_operation().to_string()));
    Ok(Produced::Files(files))
}
