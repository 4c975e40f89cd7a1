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
//! graph and the minimum, the largest error, and PASS or FAIL.
//! Exit codes: 0 PASS, 1 FAIL or errors, 2 command-line misuse.

use autofuse_core::graph::{Dim, TensorType};
use autofuse_core::tensor::Tensor;
use autofuse_mlir::context::create_context;
use autofuse_tools::ascendc::run::{self, RunOptions};
use autofuse_tools::ascendc::{self, KernelInput};
use autofuse_tools::execute::compare;
use autofuse_tools::input;
use clap::{Arg, ArgAction, Command};
use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

fn command() -> Command {
    Command::new("autofuse-run")
        .about("Compile an ascend graph, run its kernels on the Ascend C CPU emulation, compare with the interpreter")
        .arg(Arg::new("input").required(true).help("An ascend graph (.mlir)"))
        .arg(
            Arg::new("symbols")
                .long("symbols")
                .action(ArgAction::Append)
                .help("Symbol values, e.g. s0=4,s1=128; repeat to run several shapes with one compile (default: every symbol 4)"),
        )
        .arg(
            Arg::new("input-npy")
                .long("input")
                .action(ArgAction::Append)
                .help("An input as .npy (repeat per argument); default: seeded random"),
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
        .arg(Arg::new("out").long("out").help("Write the generated Ascend C sources into this directory"))
        .arg(Arg::new("cache-dir").long("cache-dir").help("Build cache (default $AUTOFUSE_CACHE_DIR or target/autofuse-cache)"))
        .arg(Arg::new("output-dir").long("output-dir").help("Write the outputs as out<N>.npy"))
}

fn parse_symbols(text: &str) -> Result<HashMap<String, i64>, String> {
    let mut out = HashMap::new();
    for pair in text.split(',').filter(|p| !p.trim().is_empty()) {
        let (k, v) = pair
            .split_once('=')
            .ok_or_else(|| format!("--symbols entry '{pair}' must look like s0=4"))?;
        let v: i64 = v
            .trim()
            .parse()
            .map_err(|_| format!("--symbols entry '{pair}' needs an integer"))?;
        if v < 0 {
            return Err(format!("--symbols entry '{pair}' is negative"));
        }
        out.insert(k.trim().to_string(), v);
    }
    Ok(out)
}

fn main() -> ExitCode {
    let matches = match command().try_get_matches() {
        Ok(m) => m,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    match run_main(&matches) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("autofuse-run: error: {e}");
            ExitCode::from(1)
        }
    }
}

fn shape_of(ty: &TensorType, symbols: &HashMap<String, i64>) -> Result<Vec<usize>, String> {
    ty.dims
        .iter()
        .map(|d| match d {
            Dim::Known(e) => e
                .eval(&|name| Some(*symbols.get(name).unwrap_or(&4)))
                .map(|v| v.max(0) as usize)
                .map_err(|err| err.to_string()),
            Dim::Unknown => Ok(4),
        })
        .collect()
}

fn human(bytes: u64) -> String {
    if bytes >= 10 * 1024 * 1024 {
        format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0))
    } else if bytes >= 10 * 1024 {
        format!("{:.1} KiB", bytes as f64 / 1024.0)
    } else {
        format!("{bytes} B")
    }
}

fn run_main(matches: &clap::ArgMatches) -> Result<bool, String> {
    let path = matches
        .get_one::<String>("input")
        .cloned()
        .unwrap_or_default();
    let text =
        String::from_utf8(input::read_input(&path)?).map_err(|_| format!("{path} is not UTF-8"))?;
    let repo = run::repo_root();
    let mut options = RunOptions::new(&repo);
    options.target = matches
        .get_one::<String>("target")
        .cloned()
        .unwrap_or_default();
    options.ub_bytes = *matches.get_one::<u64>("ub-bytes").unwrap_or(&0);
    options.cores = *matches.get_one::<u64>("cores").unwrap_or(&0);
    options.fuse = !matches.get_flag("no-fuse");
    if let Some(dir) = matches.get_one::<String>("cache-dir") {
        options.cache_dir = PathBuf::from(dir);
    }
    let context = create_context();
    let module = run::prepare_module(&context, &text, &path, &options)?;
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

    // Sources for the user.
    if let Some(dir) = matches.get_one::<String>("out") {
        let mut files = ascendc::shared_files();
        let mut names: Vec<String> = module.kernels.keys().cloned().collect();
        names.sort();
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
        files.push(("CMakeLists.txt".into(), ascendc::top_cmake(&names)));
        ascendc::write_files(Path::new(dir), &files)?;
        let _ = writeln!(
            out,
            "sources: {dir}/ ({} kernels, CMake for CANN in {dir}/CMakeLists.txt)",
            names.len()
        );
    }

    // Build once.
    let kernels: Vec<&run::PreparedKernel> = module.kernels.values().collect();
    let started = std::time::Instant::now();
    let build = run::build(&kernels, &options)?;
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
    for (name, why) in &module.interpreted {
        let _ = writeln!(out, "  kernel {name}: interpreted ({why})");
    }

    // Shapes to run.
    let sets: Vec<HashMap<String, i64>> = match matches.get_many::<String>("symbols") {
        Some(list) => list.map(|s| parse_symbols(s)).collect::<Result<_, _>>()?,
        None => vec![HashMap::new()],
    };
    let graph = module
        .reference
        .graphs
        .get(&entry)
        .ok_or_else(|| format!("no graph function @{entry}"))?;
    let files: Vec<&String> = matches
        .get_many::<String>("input-npy")
        .map(|v| v.collect())
        .unwrap_or_default();
    let seed = *matches.get_one::<u64>("seed").unwrap_or(&0);
    let mut pass = true;
    for given in &sets {
        let mut completed = given.clone();
        module.complete_symbols(&entry, &mut completed);
        let symbols = &completed;
        let inputs: Vec<Tensor> = if !files.is_empty() {
            autofuse_tools::execute::read_inputs(graph, &files)?
        } else {
            graph
                .arguments
                .iter()
                .enumerate()
                .map(|(i, &arg)| {
                    let ty = graph.ty(arg).ok_or("argument without a tensor type")?;
                    Tensor::random(ty.dtype, shape_of(ty, symbols)?, seed + i as u64)
                        .map_err(|e| e.to_string())
                })
                .collect::<Result<_, String>>()?
        };
        let shapes: Vec<String> = inputs.iter().map(|t| format!("{:?}", t.shape)).collect();
        let expected = module.reference.run(&entry, &inputs)?;
        let result = run::execute(&module, &builds, &entry, &inputs);
        let _ = writeln!(out, "-- inputs {}", shapes.join(" "));
        match result {
            Err(e) => {
                pass = false;
                let _ = writeln!(out, "   FAIL: {e}");
            }
            Ok(run) => {
                for l in &run.launches {
                    let tile = l
                        .fields
                        .iter()
                        .filter(|(n, _)| n.ends_with("t_size"))
                        .find(|(_, v)| *v != 0)
                        .map(|(n, v)| format!(" {n}={v}"))
                        .unwrap_or_default();
                    let _ = writeln!(
                        out,
                        "   {}: blocks {}{tile}, GM read {} written {}, UB peak {} B",
                        l.kernel,
                        l.blocks,
                        human(l.gm_read),
                        human(l.gm_written),
                        l.ub_peak
                    );
                }
                for n in &run.notes {
                    let _ = writeln!(out, "   note: {n}");
                }
                let mut worst = 0.0f64;
                let mut ok = true;
                for (i, (e, a)) in expected.iter().zip(&run.outputs).enumerate() {
                    match compare(e, a) {
                        Ok(err) => worst = worst.max(err),
                        Err(why) => {
                            ok = false;
                            let _ = writeln!(out, "   output #{i} differs: {why}");
                        }
                    }
                }
                let t = &run.traffic;
                let _ = writeln!(
                    out,
                    "   GM bytes: measured {} | unfused {} | minimum {}{}",
                    human(t.measured),
                    human(t.unfused),
                    human(t.minimum),
                    if t.interpreted_calls > 0 {
                        format!(
                            " ({} interpreted kernel call(s) not measured)",
                            t.interpreted_calls
                        )
                    } else {
                        String::new()
                    }
                );
                let _ = writeln!(
                    out,
                    "   max error {worst:.3e}: {}",
                    if ok { "PASS" } else { "FAIL" }
                );
                pass &= ok;
                if let Some(dir) = matches.get_one::<String>("output-dir") {
                    std::fs::create_dir_all(dir).map_err(|e| format!("{dir}: {e}"))?;
                    for (i, t) in run.outputs.iter().enumerate() {
                        let p = Path::new(dir).join(format!("out{i}.npy"));
                        t.write_npy(&p)
                            .map_err(|e| format!("{}: {e}", p.display()))?;
                    }
                }
            }
        }
    }
    let _ = writeln!(out, "== {}", if pass { "PASS" } else { "FAIL" });
    print!("{out}");
    Ok(pass)
}
