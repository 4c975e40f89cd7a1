//! Runs the lit suite (`test/`) with the tools built by this `cargo test`, so that
//! `cargo test` covers unit tests and IR tests in one command.

use autofuse_passes::schedule::build::BuildSchedule;
use std::path::PathBuf;
use std::process::Command;

#[test]
fn lit_suite() {
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let opt = PathBuf::from(env!("CARGO_BIN_EXE_autofuse-opt"));
    let bin_dir = opt.parent().expect("the tool has a directory");
    let llvm_bin = std::env::var("LLVM_BIN_DIR").unwrap_or_else(|_| "/usr/lib/llvm-22/bin".into());
    let lit = PathBuf::from(&llvm_bin).join("lit");
    let jobs = std::env::var("LIT_JOBS").unwrap_or_else(|_| "2".into());
    let status = Command::new(&lit)
        .arg("-sv")
        .arg("-j")
        .arg(&jobs)
        .arg(repo.join("test"))
        .env("AUTOFUSE_BIN_DIR", bin_dir)
        .status()
        .unwrap_or_else(|e| panic!("cannot run {}: {e} (run scripts/setup.sh)", lit.display()));
    assert!(status.success(), "lit suite failed");
}

/// Differential test of the lowering: random graphs give the same results (within dtype
/// tolerance) before and after `--infer-symbolic-shapes --decompose --lower-to-ascir`,
/// for several random symbol values each. `AUTOFUSE_DIFF_CASES` sets the number of
/// graphs (default 300).
#[test]
fn differential_lowering() {
    use autofuse::{randgraph, runner::execute::Program};
    let cases: u64 = std::env::var("AUTOFUSE_DIFF_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(300);
    let context = autofuse_mlir::context::create_context();
    let mut failures = Vec::new();
    let mut lowered_calls = 0usize;
    for seed in 0..cases {
        let graph = randgraph::generate(seed, 6);
        let Some(original) =
            autofuse_mlir::parse::parse_module(&context, graph.text.as_bytes(), "<random>")
        else {
            failures.push(format!(
                "seed {seed}: generated graph does not parse:\n{}",
                graph.text
            ));
            continue;
        };
        let Some(mut lowered) =
            autofuse_mlir::parse::parse_module(&context, graph.text.as_bytes(), "<random>")
        else {
            continue;
        };
        if let Err(e) = autofuse::runner::execute::run_pipeline(
            &mut lowered,
            "infer-symbolic-shapes,decompose,lower-to-ascir",
        ) {
            failures.push(format!("seed {seed}: pipeline failed: {e}\n{}", graph.text));
            continue;
        }
        let (before, after) = match (
            Program::from_module(original.body()),
            Program::from_module(lowered.body()),
        ) {
            (Ok(b), Ok(a)) => (b, a),
            (Err(e), _) | (_, Err(e)) => {
                failures.push(format!("seed {seed}: {e}"));
                continue;
            }
        };
        lowered_calls += after.kernels.len();
        for trial in 0..3u64 {
            failures.extend(differential_trial(
                (&before, &after, "lowered"),
                &graph,
                |i| 1 + (seed * 7 + trial * 3 + i * 5) % 9,
                seed * 1000 + trial * 10,
                &format!("seed {seed} trial {trial}"),
            ));
        }
    }
    assert!(
        lowered_calls > cases as usize,
        "the generator should produce lowerable ops ({lowered_calls} kernels)"
    );
    assert_no_failures(&failures);
}

/// Differential test of the fusion: random graphs give the same results (within dtype
/// tolerance) after `--infer-symbolic-shapes --decompose --lower-to-ascir` and after the
/// same pipeline followed by `--fuse`, for several random symbol values each. (The
/// oracle is the lowered graph, so that decomposition rounding in bf16, which
/// `differential_lowering` covers, does not mask or fake a fusion error.) Odd seeds fuse
/// without lifting and with a small `max-fusion-size`, so that kernels stay kernels and
/// the size cap splits chains. `AUTOFUSE_DIFF_CASES` sets the number of graphs
/// (default 200). The test also checks that fusion happened at all: some kernels hold
/// several ops and some write several outputs.
#[test]
fn differential_fusion() {
    use autofuse::{randgraph, runner::execute::Program};
    let cases: u64 = std::env::var("AUTOFUSE_DIFF_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    let context = autofuse_mlir::context::create_context();
    let mut failures = Vec::new();
    let (mut fused_kernels, mut multi_output, mut reductions_fused) = (0usize, 0usize, 0usize);
    for seed in 0..cases {
        let graph = randgraph::generate(seed, 8);
        let parse =
            || autofuse_mlir::parse::parse_module(&context, graph.text.as_bytes(), "<random>");
        let (Some(mut lowered), Some(mut fused)) = (parse(), parse()) else {
            failures.push(format!(
                "seed {seed}: generated graph does not parse:\n{}",
                graph.text
            ));
            continue;
        };
        let fuse = if seed % 2 == 0 {
            "fuse"
        } else {
            "fuse{lifting=false max-fusion-size=4}"
        };
        let lower = "infer-symbolic-shapes,decompose,lower-to-ascir";
        if let Err(e) = autofuse::runner::execute::run_pipeline(&mut lowered, lower) {
            failures.push(format!("seed {seed}: {lower} failed: {e}\n{}", graph.text));
            continue;
        }
        let pipeline = format!("{lower},{fuse}");
        if let Err(e) = autofuse::runner::execute::run_pipeline(&mut fused, &pipeline) {
            failures.push(format!(
                "seed {seed}: {pipeline} failed: {e}\n{}",
                graph.text
            ));
            continue;
        }
        let (before, after) = match (
            Program::from_module(lowered.body()),
            Program::from_module(fused.body()),
        ) {
            (Ok(b), Ok(a)) => (b, a),
            (Err(e), _) | (_, Err(e)) => {
                failures.push(format!("seed {seed}: {e}"));
                continue;
            }
        };
        for kernel in after.kernels.values() {
            if kernel.source_ops.len() > 1 {
                fused_kernels += 1;
                if kernel.outputs.len() > 1 {
                    multi_output += 1;
                }
                if kernel.name.starts_with("autofuse_reduce_") {
                    reductions_fused += 1;
                }
            }
        }
        for trial in 0..2u64 {
            failures.extend(differential_trial(
                (&before, &after, "fused"),
                &graph,
                |i| 1 + (seed * 5 + trial * 7 + i * 3) % 9,
                seed * 977 + trial * 13,
                &format!("seed {seed} trial {trial}"),
            ));
        }
    }
    assert_no_failures(&failures);
    // Fusion must actually happen on these graphs, including multi-output kernels and
    // reductions with their neighbours.
    assert!(
        fused_kernels > cases as usize / 2,
        "only {fused_kernels} fused kernels in {cases} graphs"
    );
    assert!(multi_output > 0, "no multi-output kernel in {cases} graphs");
    assert!(reductions_fused > 0, "no reduction fused in {cases} graphs");
}

/// End to end on the Ascend C emulation: random graphs through the full pipeline
/// (`infer-symbolic-shapes,decompose,lower-to-ascir[,fuse],schedule,auto-tiling`),
/// translated, compiled once per kernel (identical kernels of different graphs share one
/// build; builds are cached by content hash), run for three shapes of the same compiled
/// kernels and compared with the Ascend IR interpreter. Any emulation violation fails.
/// Every other graph uses a small UB budget and 4 cores, so that small shapes still get
/// many tiles, tails and blocks. `AUTOFUSE_E2E_CASES` sets the number of graphs
/// (default 200), `AUTOFUSE_E2E_UB_BYTES` that small UB budget (default 12288; smaller
/// budgets make more split reductions) and `AUTOFUSE_E2E_FIRST_SEED` the first seed (0).
#[test]
fn end_to_end_random_graphs_on_emulation() {
    use autofuse::randgraph;
    use autofuse::runner::{self as run, RunOptions, SimBuild};
    use autofuse_ir::tensor::Tensor;
    use std::collections::HashMap;
    let env_u64 = |name: &str, default: u64| -> u64 {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let cases = env_u64("AUTOFUSE_E2E_CASES", 200);
    let small_ub = env_u64("AUTOFUSE_E2E_UB_BYTES", 12288);
    let first_seed = env_u64("AUTOFUSE_E2E_FIRST_SEED", 0);
    let repo = run::repo_root();
    let context = autofuse_mlir::context::create_context();
    let mut failures: Vec<String> = Vec::new();
    struct Case {
        seed: u64,
        text: String,
        module: run::PreparedModule,
        inputs: Vec<Vec<Tensor>>,
        options: RunOptions,
    }
    let mut prepared = Vec::new();
    for seed in first_seed..first_seed + cases {
        let graph = randgraph::generate(seed, 6);
        let mut options = RunOptions::new(&repo);
        if seed % 2 == 1 {
            options.ub_bytes = small_ub;
            options.cores = 4;
        }
        let module = match run::prepare_module(&context, &graph.text, "<random>", &options) {
            Ok(m) => m,
            Err(e) => {
                failures.push(format!("seed {seed}: prepare failed: {e}\n{}", graph.text));
                continue;
            }
        };
        let mut inputs = Vec::new();
        for trial in 0..3u64 {
            let symbols = graph.trial_symbols(seed, trial);
            inputs.push(
                graph
                    .random_inputs(&symbols, seed * 1000 + trial * 10)
                    .expect("valid shapes"),
            );
        }
        prepared.push(Case {
            seed,
            text: graph.text,
            module,
            inputs,
            options,
        });
    }
    // Unique kernels, built in batches on two threads.
    let mut unique: HashMap<String, &run::PreparedKernel> = HashMap::new();
    for case in &prepared {
        for k in case.module.kernels.values() {
            unique.entry(k.symbol.clone()).or_insert(k);
        }
    }
    let mut all: Vec<&run::PreparedKernel> = unique.values().copied().collect();
    all.sort_by(|a, b| a.symbol.cmp(&b.symbol));
    let options = RunOptions::new(&repo);
    let batches: Vec<Vec<&run::PreparedKernel>> = all.chunks(48).map(|c| c.to_vec()).collect();
    let results: Vec<Result<SimBuild, String>> = std::thread::scope(|scope| {
        let mut handles = Vec::new();
        for pair in batches.chunks(batches.len().div_ceil(2).max(1)) {
            let options = &options;
            handles.push(scope.spawn(move || {
                pair.iter()
                    .map(|b| run::build(b, options))
                    .collect::<Vec<_>>()
            }));
        }
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("build thread"))
            .collect()
    });
    let mut builds: HashMap<String, SimBuild> = HashMap::new();
    for (batch, result) in batches.iter().zip(results) {
        match result {
            Ok(b) => {
                for k in batch {
                    builds.insert(k.symbol.clone(), b.clone());
                }
            }
            Err(e) => failures.push(format!("build failed: {e}")),
        }
    }
    // Launches of several loop groups, in batches of their own.
    let mut launches: HashMap<String, &run::PreparedLaunch> = HashMap::new();
    for case in &prepared {
        for l in case.module.launches.values() {
            launches.entry(l.symbol.clone()).or_insert(l);
        }
    }
    let mut launches: Vec<&run::PreparedLaunch> = launches.into_values().collect();
    launches.sort_by(|a, b| a.symbol.cmp(&b.symbol));
    for batch in launches.chunks(48) {
        match run::build_set(&[], batch, &options, &run::Toolchain::sim(&options)) {
            Ok(b) => {
                for l in batch {
                    builds.insert(l.symbol.clone(), b.clone());
                }
            }
            Err(e) => failures.push(format!("launch build failed: {e}")),
        }
    }
    eprintln!(
        "end-to-end: {} launches of several loop groups",
        launches.len()
    );
    // Run every graph for its three shapes, on two threads.
    let emulated = std::sync::atomic::AtomicUsize::new(0);
    let chunks: Vec<&[Case]> = prepared.chunks(prepared.len().div_ceil(2).max(1)).collect();
    let run_failures: Vec<String> = std::thread::scope(|scope| {
        let handles: Vec<_> = chunks
            .iter()
            .map(|chunk| {
                let builds = &builds;
                let emulated = &emulated;
                scope.spawn(move || {
                    let mut out = Vec::new();
                    for case in chunk.iter() {
                        let _ = &case.options;
                        for (trial, inputs) in case.inputs.iter().enumerate() {
                            let expected = match case.module.reference.run("main", inputs) {
                                Ok(e) => e,
                                Err(e) => {
                                    out.push(format!("seed {}: reference failed: {e}", case.seed));
                                    continue;
                                }
                            };
                            match run::execute(&case.module, builds, "main", inputs) {
                                Err(e) => out.push(format!(
                                    "seed {} trial {trial}: {e}\n{}",
                                    case.seed, case.text
                                )),
                                Ok(result) => {
                                    for n in &result.notes {
                                        eprintln!("  seed {} trial {trial}: {n}", case.seed);
                                    }
                                    emulated.fetch_add(
                                        result.launches.len(),
                                        std::sync::atomic::Ordering::Relaxed,
                                    );
                                    out.extend(mismatches(&expected, &result.outputs).iter().map(
                                        |m| {
                                            format!(
                                                "seed {} trial {trial} {m}\n{}",
                                                case.seed, case.text
                                            )
                                        },
                                    ));
                                }
                            }
                        }
                    }
                    out
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("run thread"))
            .collect()
    });
    failures.extend(run_failures);
    let interpreted: usize = prepared.iter().map(|c| c.module.interpreted.len()).sum();
    let launched = emulated.load(std::sync::atomic::Ordering::Relaxed);
    eprintln!(
        "end to end: {} graphs, {} unique kernels in {} builds, {launched} launches on the emulation, {interpreted} kernels interpreted",
        prepared.len(),
        all.len(),
        batches.len()
    );
    for case in prepared.iter().take(400) {
        for (name, why) in &case.module.interpreted {
            eprintln!("  seed {} {name}: {why}", case.seed);
        }
    }
    for f in &failures {
        eprintln!("FAILURE {f}");
    }
    assert_no_failures(&failures);
    assert!(
        launched > cases as usize,
        "most kernels should run on the emulation ({launched} launches, {interpreted} kernels interpreted)"
    );
}

/// Property test of schedule and tiling on random kernels (the fused kernels of random
/// graphs), on random chips (UB 2 KiB..full, 1..48 cores):
/// - for random symbol values of 1 to 10^7 per axis the solved tiling fits UB and the
///   core count, covers every tile, and keeps tiles aligned; the only admissible failure
///   is a reduction row that no case fits, on kernels that reduce;
/// - for small random shapes the impl-form interpreter (block by block, tile by tile,
///   with the solved tiling; every output element written exactly once) gives the Ascend
///   IR interpreter's results. `AUTOFUSE_PROP_CASES` sets the number of graphs (300),
///   `AUTOFUSE_PROP_FIRST_SEED` the first seed (0).
#[test]
fn property_tiling_fits_and_impl_form_matches() {
    use autofuse::{randgraph, runner::execute::Program};
    use autofuse_ascir::chip::ChipProfile;
    use autofuse_ascir::interp as ascir_interp;
    use autofuse_ascir::kernel::Schedule;
    use autofuse_ir::tensor::{SplitMix64, Tensor};
    use autofuse_passes::auto_tiling::solver::solve;
    use autofuse_tiling::impl_interp as ascir_impl_interp;
    use autofuse_tiling::tiling::TilingModel;
    use std::collections::HashMap;
    let cases: u64 = std::env::var("AUTOFUSE_PROP_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(300);
    let first_seed: u64 = std::env::var("AUTOFUSE_PROP_FIRST_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let context = autofuse_mlir::context::create_context();
    let pipeline = if autofuse_passes::registry::lookup("fuse").is_some() {
        "infer-symbolic-shapes,decompose,lower-to-ascir,fuse"
    } else {
        "infer-symbolic-shapes,decompose,lower-to-ascir"
    };
    let mut failures = Vec::new();
    let (mut solved, mut tiled_runs, mut multi_tile) = (0usize, 0usize, 0usize);
    let mut split_runs = 0usize;
    for seed in first_seed..first_seed + cases {
        let mut rng = SplitMix64::new(seed ^ 0x5eed);
        let graph = randgraph::generate(seed, 6);
        let parse = || {
            autofuse_mlir::parse::parse_module(&context, graph.text.as_bytes(), "<random>")
                .expect("random graphs parse")
        };
        let original = parse();
        let mut fused = parse();
        if let Err(e) = autofuse::runner::execute::run_pipeline(&mut fused, pipeline) {
            failures.push(format!("seed {seed}: pipeline failed: {e}"));
            continue;
        }
        let (reference, program) = match (
            Program::from_module(original.body()),
            Program::from_module(fused.body()),
        ) {
            (Ok(a), Ok(b)) => (a, b),
            (Err(e), _) | (_, Err(e)) => {
                failures.push(format!("seed {seed}: {e}"));
                continue;
            }
        };
        let ub = 2048 + rng.next_u64() % 188_160;
        let cores = 1 + rng.next_u64() % 48;
        let chip = ChipProfile::lookup("ascend910b")
            .and_then(|c| c.with_overrides(ub.min(188_160), cores))
            .expect("valid chip");
        let mut schedules = HashMap::new();
        for (name, kernel) in &program.kernels {
            let Ok(schedule) = Schedule::build(kernel, &chip) else {
                continue;
            };
            let model = TilingModel::new(&schedule, &Schedule::operands_of(kernel));
            // (a) Large symbol values: the tiling fits.
            for _ in 0..4 {
                let mut values = HashMap::new();
                let mut total: f64 = 1.0;
                for s in &schedule.symbols {
                    // Log-uniform in [1, 1e7], keeping the product below 2^40 elements.
                    let e = (rng.next_u64() % 7001) as f64 / 1000.0;
                    let mut v = 10f64.powf(e).round().max(1.0);
                    if total * v > 1e12 {
                        v = (1e12 / total).floor().max(1.0);
                    }
                    total *= v;
                    values.insert(s.clone(), v as i64);
                }
                match solve(&model, &values, &chip) {
                    Ok(t) => {
                        solved += 1;
                        let case = model.cases.iter().find(|c| c.key == t.key).expect("case");
                        let s_u = case.split_size.eval_map(&values).unwrap_or(0);
                        let ok = t.ub_bytes <= t.ub_capacity
                            && t.block_dim >= 1
                            && t.block_dim <= chip.vector_cores as i64
                            && t.block_dim * t.tiles_per_block >= t.tiles_total
                            && t.tile >= 1
                            && (t.tile <= s_u || s_u == 0)
                            && (t.tile % case.tile_align == 0
                                || t.tile == s_u
                                || s_u < case.tile_align);
                        if !ok {
                            failures
                                .push(format!("seed {seed} @{name} {values:?}: bad tiling {t:?}"));
                        }
                    }
                    Err(e) => {
                        if !e.contains("fits UB") || schedule.r.is_empty() && ub > 16384 {
                            failures.push(format!("seed {seed} @{name} {values:?}: {e}"));
                        }
                    }
                }
            }
            schedules.insert(name.clone(), (schedule, model));
        }
        // (b) Small shapes: impl-form interpreter == Ascend IR interpreter; the second
        // trial squeezes UB so that rows split and reductions run in passes.
        for trial in 0..2u64 {
            let run_chip = if trial == 0 {
                chip.clone()
            } else {
                let small = (3072 + rng.next_u64() % 8192).min(chip.ub_usable);
                chip.clone().with_overrides(small, 0).expect("smaller UB")
            };
            // Trial 1: one long axis (up to 600) so reduction rows outgrow the small UB.
            let symbols: HashMap<String, i64> = graph
                .symbols
                .iter()
                .enumerate()
                .map(|(i, s)| {
                    let limit = match (trial, i) {
                        (0, _) => 40,
                        (_, 0) => 600,
                        _ => 6,
                    };
                    (s.clone(), 1 + (rng.next_u64() % limit) as i64)
                })
                .collect();
            let inputs: Vec<Tensor> = graph
                .random_inputs(&symbols, seed * 100 + trial * 10)
                .expect("shape");
            let expected = match reference.run("main", &inputs) {
                Ok(e) => e,
                Err(e) => {
                    failures.push(format!("seed {seed}: reference failed: {e}"));
                    continue;
                }
            };
            let mut hook = |callee: &str, operands: &[Tensor], known: &HashMap<String, i64>| {
                let Some((schedule, model)) = schedules.get(callee) else {
                    return Ok(None);
                };
                let kernel = &program.kernels[callee];
                let values = ascir_interp::bind_kernel_symbols(kernel, operands, known)
                    .map_err(|e| e.to_string())?;
                let Ok(tiling) = solve(model, &values, &run_chip) else {
                    return Ok(None);
                };
                tiled_runs += 1;
                if tiling.tiles_total > 1 {
                    multi_tile += 1;
                }
                if schedule.case(tiling.key).is_some_and(|c| c.reduce_split) {
                    split_runs += 1;
                }
                ascir_impl_interp::run(kernel, schedule, &tiling, operands, known)
                    .map(|(outs, _)| Some(outs))
                    .map_err(|e| format!("impl interpreter: {e}"))
            };
            match program.run_with("main", &inputs, &mut hook) {
                Ok(actual) => {
                    for (k, (e, a)) in expected.iter().zip(&actual).enumerate() {
                        if let Err(why) = autofuse::runner::execute::compare(e, a) {
                            failures.push(format!(
                                "seed {seed} trial {trial} output {k} (ub {ub}, cores {cores}): {why}\n{}",
                                graph.text
                            ));
                        }
                    }
                }
                Err(e) => failures.push(format!("seed {seed} trial {trial}: {e}\n{}", graph.text)),
            }
        }
    }
    eprintln!(
        "property: {cases} graphs, {solved} tilings solved for large shapes, {tiled_runs} impl-form kernel runs ({multi_tile} with several tiles, {split_runs} with split reductions)"
    );
    assert_no_failures(&failures);
    assert!(
        solved > cases as usize && tiled_runs > cases as usize && multi_tile > 0 && split_runs > 0
    );
}

/// Every bundled example (`examples/*.mlir`) end to end on the emulation: compiled once,
/// run for two shapes (every symbol 3, then 37, or what the graph's guards tie them to),
/// equal to the Ascend IR interpreter, every kernel launched on the emulation.
#[test]
fn end_to_end_bundled_examples() {
    run_examples_on_emulation("examples", false);
}

/// The transpose and concat graphs (`examples/layout/*.mlir`: static and dynamic shapes,
/// f32 and f16, odd extents) end to end on the emulation; each must become exactly one
/// kernel launch, equal to the Ascend IR interpreter.
#[test]
fn end_to_end_layout_examples() {
    run_examples_on_emulation("examples/layout", true);
}

fn run_examples_on_emulation(dir: &str, one_kernel: bool) {
    use autofuse::runner::{self as run, RunOptions};
    use autofuse_ir::graph::Dim;
    use std::collections::HashMap;
    let repo = run::repo_root();
    let mut examples: Vec<std::path::PathBuf> = std::fs::read_dir(repo.join(dir))
        .expect("the examples directory exists")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "mlir"))
        .collect();
    examples.sort();
    assert!(!examples.is_empty(), "no examples in {dir}");
    let context = autofuse_mlir::context::create_context();
    let options = RunOptions::new(&repo);
    let mut failures = Vec::new();
    for path in &examples {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path).expect("readable example");
        let emulated = match Emulated::prepare(&context, &text, &name, &options) {
            Ok(e) => e,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        let graph = &emulated.module.reference.graphs[&emulated.entry];
        for (trial, value) in [3i64, 37].into_iter().enumerate() {
            // Every input symbol takes `value`; the rest follow from the graph.
            let mut symbols = HashMap::new();
            for &arg in &graph.arguments {
                for d in graph.ty(arg).map(|t| t.dims.clone()).unwrap_or_default() {
                    if let Dim::Known(e) = d {
                        for s in e.symbols() {
                            symbols.entry(s).or_insert(value);
                        }
                    }
                }
            }
            let label = format!("{name} trial {trial}");
            if let Some(result) = emulated.run_checked(symbols, 17, &label, &mut failures) {
                if one_kernel && result.launches.len() != 1 {
                    failures.push(format!(
                        "{label}: {} launches, expected one fused kernel",
                        result.launches.len()
                    ));
                }
            }
        }
    }
    assert_no_failures(&failures);
}

/// Fails the test with the number of failures and the first ten.
fn assert_no_failures(failures: &[String]) {
    assert!(
        failures.is_empty(),
        "{} failures; first:\n{}",
        failures.len(),
        failures
            .iter()
            .take(10)
            .map(String::as_str)
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// One trial of a differential test: symbol `i` of `graph` takes `symbol_value(i)`,
/// inputs are drawn from `input_seed`, and every difference of `after` (named `what`)
/// from `before` is reported under `label` with the graph's text.
fn differential_trial(
    (before, after, what): (
        &autofuse::runner::execute::Program,
        &autofuse::runner::execute::Program,
        &str,
    ),
    graph: &autofuse::randgraph::RandomGraph,
    symbol_value: impl Fn(u64) -> u64,
    input_seed: u64,
    label: &str,
) -> Vec<String> {
    let symbols: std::collections::HashMap<String, i64> = graph
        .symbols
        .iter()
        .enumerate()
        .map(|(i, name)| (name.clone(), symbol_value(i as u64) as i64))
        .collect();
    let inputs = graph
        .random_inputs(&symbols, input_seed)
        .expect("valid shapes");
    compare_programs(before, after, &inputs, what)
        .into_iter()
        .map(|m| format!("{label} {m}\n{}", graph.text))
        .collect()
}

/// Runs `main` of both programs on `inputs`: every difference of `after` (named `what`)
/// from the reference `before`, or why a run failed.
fn compare_programs(
    before: &autofuse::runner::execute::Program,
    after: &autofuse::runner::execute::Program,
    inputs: &[autofuse_ir::tensor::Tensor],
    what: &str,
) -> Vec<String> {
    match (before.run("main", inputs), after.run("main", inputs)) {
        (Ok(e), Ok(a)) => mismatches(&e, &a),
        (Err(e), _) => vec![format!("reference run failed: {e}")],
        (_, Err(e)) => vec![format!("{what} run failed: {e}")],
    }
}

/// Random tensors for `types` under `symbols`, tensor `i` drawn with seed `seed + i`.
fn random_tensors(
    types: &[autofuse_ir::graph::TensorType],
    symbols: &std::collections::HashMap<String, i64>,
    seed: u64,
) -> Result<Vec<autofuse_ir::tensor::Tensor>, String> {
    autofuse::runner::execute::random_tensors(types, symbols, seed)
}

/// Every difference between expected and actual outputs, as "output k: why" (and a
/// count mismatch).
fn mismatches(
    expected: &[autofuse_ir::tensor::Tensor],
    actual: &[autofuse_ir::tensor::Tensor],
) -> Vec<String> {
    let mut out = Vec::new();
    if expected.len() != actual.len() {
        out.push(format!(
            "{} outputs, expected {}",
            actual.len(),
            expected.len()
        ));
    }
    for (k, (e, a)) in expected.iter().zip(actual).enumerate() {
        if let Err(why) = autofuse::runner::execute::compare(e, a) {
            out.push(format!("output {k}: {why}"));
        }
    }
    out
}

/// A module prepared for the emulation (pipeline run, kernels translated and built),
/// and its entry function.
struct Emulated {
    module: autofuse::runner::PreparedModule,
    builds: std::collections::HashMap<String, autofuse::runner::SimBuild>,
    entry: String,
}

impl Emulated {
    fn prepare(
        context: &melior::Context,
        text: &str,
        name: &str,
        options: &autofuse::runner::RunOptions,
    ) -> Result<Emulated, String> {
        use autofuse::runner as run;
        let module = run::prepare_module(context, text, name, options)
            .map_err(|e| format!("prepare failed: {e}"))?;
        let build = run::build_module(&module, options, &run::Toolchain::sim(options))
            .map_err(|e| format!("build failed: {e}"))?;
        let builds = run::builds_for(&module, &build);
        let entry = module
            .reference
            .default_entry()
            .ok_or("no entry function")?
            .to_string();
        Ok(Emulated {
            module,
            builds,
            entry,
        })
    }

    /// Runs the entry on the emulation and on the Ascend IR interpreter with random
    /// inputs (`seed`) for `symbols` (completed from the graph); reports under `label`
    /// a failed run, a kernel left to the interpreter and every output mismatch.
    fn run_checked(
        &self,
        mut symbols: std::collections::HashMap<String, i64>,
        seed: u64,
        label: &str,
        failures: &mut Vec<String>,
    ) -> Option<autofuse::runner::GraphRun> {
        use autofuse::runner::{self as run, execute};
        self.module.complete_symbols(&self.entry, &mut symbols);
        let graph = &self.module.reference.graphs[&self.entry];
        let inputs = execute::argument_types(graph)
            .and_then(|types| random_tensors(&types, &symbols, seed))
            .expect("random inputs");
        let expected = self
            .module
            .reference
            .run(&self.entry, &inputs)
            .expect("reference run");
        match run::execute(&self.module, &self.builds, &self.entry, &inputs) {
            Err(e) => {
                failures.push(format!("{label}: {e}"));
                None
            }
            Ok(result) => {
                if result.launches.is_empty() || result.traffic.interpreted_calls > 0 {
                    failures.push(format!(
                        "{label}: {} launches, {} interpreted calls",
                        result.launches.len(),
                        result.traffic.interpreted_calls
                    ));
                }
                failures.extend(
                    mismatches(&expected, &result.outputs)
                        .iter()
                        .map(|m| format!("{label} {m}")),
                );
                Some(result)
            }
        }
    }
}

/// Runs one graph on the emulation with the given UB budget and core count for each
/// symbol set and compares every output with the Ascend IR interpreter. Returns the
/// failures and, per run, the tiling keys launched.
fn run_graph_on_emulation(
    text: &str,
    ub_bytes: u64,
    cores: u64,
    symbol_sets: &[&[(&str, i64)]],
) -> (Vec<String>, Vec<Vec<i64>>) {
    use autofuse::runner::{self as run, RunOptions};
    let repo = run::repo_root();
    let context = autofuse_mlir::context::create_context();
    let mut options = RunOptions::new(&repo);
    options.ub_bytes = ub_bytes;
    options.cores = cores;
    let emulated = match Emulated::prepare(&context, text, "<regression>", &options) {
        Ok(e) => e,
        Err(e) => return (vec![e], Vec::new()),
    };
    let mut failures = Vec::new();
    let mut keys = Vec::new();
    for (trial, set) in symbol_sets.iter().enumerate() {
        let symbols = set.iter().map(|&(k, v)| (k.to_string(), v)).collect();
        let label = format!("trial {trial}");
        if let Some(result) = emulated.run_checked(symbols, 5, &label, &mut failures) {
            keys.push(
                result
                    .launches
                    .iter()
                    .flat_map(|l| l.fields.iter())
                    .filter(|(name, _)| name == "tiling_key")
                    .map(|&(_, v)| v)
                    .collect(),
            );
        }
    }
    (failures, keys)
}

/// Regression: a bf16/f16 mean over the outer axis, split-reduction case (12 KiB of UB,
/// 4 cores, 130 rows: found at 66, which fits one tile since the sub reads the mean
/// through repeat strides). The mean accumulates in f32 and is cast back after the chunk
/// pass; the kernel scaled the accumulated sum by 1/N only after that cast, so the
/// broadcast-back `sub` read the unscaled sum (-5 instead of -1.586 at element 0).
#[test]
fn end_to_end_split_reduction_low_precision_mean() {
    for dtype in ["bf16", "f16", "f32"] {
        for red in ["reduce_mean", "reduce_sum", "reduce_max"] {
            let text = format!(
                "func.func @main(%x: tensor<?x?x{dtype}>) -> tensor<?x?x{dtype}> {{\n\
                 \x20 %n = \"ascend.neg\"(%x) : (tensor<?x?x{dtype}>) -> tensor<?x?x{dtype}>\n\
                 \x20 %m = \"ascend.{red}\"(%n) {{axes = [0], keep_dims = true}} : (tensor<?x?x{dtype}>) -> tensor<1x?x{dtype}>\n\
                 \x20 %y = \"ascend.sub\"(%n, %m) : (tensor<?x?x{dtype}>, tensor<1x?x{dtype}>) -> tensor<?x?x{dtype}>\n\
                 \x20 return %y : tensor<?x?x{dtype}>\n}}\n"
            );
            let (failures, keys) = run_graph_on_emulation(
                &text,
                12288,
                4,
                &[
                    &[("s0", 130), ("s1", 2)],
                    &[("s0", 300), ("s1", 3)],
                    &[("s0", 5), ("s1", 2)],
                ],
            );
            assert!(failures.is_empty(), "{dtype} {red}: {failures:?}\n{text}");
            // The first two shapes take the split-reduction case (key 1: chunks of z0).
            assert_eq!(
                keys[..2],
                [vec![1], vec![1]],
                "{dtype} {red}: tiling keys {keys:?}"
            );
        }
    }
}

/// Regression: a kernel whose store is node 2 and whose shapes use symbol `s2` (found by
/// the random-graph test). The store's raw queue tensor was named `s2` and shadowed the
/// symbol in the store's GM offset (`o_z1 * (9*s2)`), so g++ rejected the kernel.
#[test]
fn end_to_end_store_tensor_does_not_shadow_symbol() {
    let t = r#"tensor<?x9x?xf32, #ascend.dims<["s0", "9", "s2"]>>"#;
    let u = r#"tensor<1x?x9x?xf32, #ascend.dims<["1", "s0", "9", "s2"]>>"#;
    let m = r#"tensor<1x9x?xf32, #ascend.dims<["1", "9", "s2"]>>"#;
    let text = format!(
        "func.func @main(%x: {t}) -> ({t}, {t}) {{\n\
         \x20 %u = \"ascend.unsqueeze\"(%x) {{axes = [0]}} : ({t}) -> {u}\n\
         \x20 %q = \"ascend.squeeze\"(%u) {{axes = [0]}} : ({u}) -> {t}\n\
         \x20 %m = \"ascend.reduce_min\"(%q) {{axes = [0], keep_dims = true}} : ({t}) -> {m}\n\
         \x20 %y = \"ascend.sub\"(%q, %m) : ({t}, {m}) -> {t}\n\
         \x20 return %q, %y : {t}, {t}\n}}\n"
    );
    let (failures, _) = run_graph_on_emulation(
        &text,
        12288,
        4,
        &[&[("s0", 5), ("s2", 7)], &[("s0", 70), ("s2", 30)]],
    );
    assert!(failures.is_empty(), "{failures:?}\n{text}");
}

/// Symbols named like C++ keywords and identifiers of the generated code (`t` is the
/// tiling argument, `s` the host's solution, `case` a keyword; `af_sym_t` is what `t`
/// is renamed to) translate, compile and run: generated code spells user symbols
/// `af_sym_<name>`.
#[test]
fn end_to_end_symbols_named_like_cpp_identifiers() {
    let t = r#"tensor<?x?x?xf32, #ascend.dims<["t", "case", "af_sym_t"]>>"#;
    let r = r#"tensor<?x?x1xf32, #ascend.dims<["t", "case", "1"]>>"#;
    let b = r#"tensor<?xf32, #ascend.dims<["s"]>>"#;
    let text = format!(
        "func.func @main(%x: {t}, %v: {b}) -> ({t}, {b}) {{\n\
         \x20 %m = \"ascend.reduce_max\"(%x) {{axes = [2], keep_dims = true}} : ({t}) -> {r}\n\
         \x20 %y = \"ascend.sub\"(%x, %m) : ({t}, {r}) -> {t}\n\
         \x20 %e = \"ascend.exp\"(%y) : ({t}) -> {t}\n\
         \x20 %w = \"ascend.abs\"(%v) : ({b}) -> {b}\n\
         \x20 return %e, %w : {t}, {b}\n}}\n"
    );
    let (failures, _) = run_graph_on_emulation(
        &text,
        12288,
        4,
        &[
            &[("t", 3), ("case", 5), ("af_sym_t", 7), ("s", 9)],
            &[("t", 2), ("case", 33), ("af_sym_t", 130), ("s", 1000)],
        ],
    );
    assert!(failures.is_empty(), "{failures:?}\n{text}");
}

/// A layer norm as ONNX exporters write it, with `Pow(d, 2)` for the variance and
/// `Pow(v + eps, -0.5)`: `--decompose` turns the constant-exponent pows into products,
/// `sqrt` and a division, so the fused kernel translates and runs on the emulation (no
/// kernel left to the interpreter) with the interpreter's results.
#[test]
fn end_to_end_layer_norm_with_constant_pow() {
    let t = "tensor<?x64xf32>";
    let r = "tensor<?x1xf32>";
    let text = format!(
        "func.func @main(%x: {t}) -> {t} {{\n\
         \x20 %two = \"ascend.constant\"() {{value = dense<2.0> : tensor<f32>}} : () -> tensor<f32>\n\
         \x20 %eps = \"ascend.constant\"() {{value = dense<1.0e-5> : tensor<f32>}} : () -> tensor<f32>\n\
         \x20 %mhalf = \"ascend.constant\"() {{value = dense<-0.5> : tensor<f32>}} : () -> tensor<f32>\n\
         \x20 %m = \"ascend.reduce_mean\"(%x) {{axes = [1], keep_dims = true}} : ({t}) -> {r}\n\
         \x20 %d = \"ascend.sub\"(%x, %m) : ({t}, {r}) -> {t}\n\
         \x20 %p = \"ascend.pow\"(%d, %two) : ({t}, tensor<f32>) -> {t}\n\
         \x20 %v = \"ascend.reduce_mean\"(%p) {{axes = [1], keep_dims = true}} : ({t}) -> {r}\n\
         \x20 %e = \"ascend.add\"(%v, %eps) : ({r}, tensor<f32>) -> {r}\n\
         \x20 %s = \"ascend.pow\"(%e, %mhalf) : ({r}, tensor<f32>) -> {r}\n\
         \x20 %y = \"ascend.mul\"(%d, %s) : ({t}, {r}) -> {t}\n\
         \x20 return %y : {t}\n}}\n"
    );
    let (failures, keys) = run_graph_on_emulation(&text, 0, 0, &[&[("s0", 3)], &[("s0", 300)]]);
    assert!(failures.is_empty(), "{failures:?}\n{text}");
    assert_eq!(keys.len(), 2, "both shapes ran on the emulation");
}

/// floor, ceil and round translate (a float -> float Cast with the rounding mode; f16
/// rounds in f32) and match the interpreter on the emulation, in f32 and f16, on values
/// scaled so that most have a fractional part.
#[test]
fn end_to_end_rounding_ops() {
    emulate_in_f32_and_f16(|dtype| {
        let t = format!("tensor<?x40x{dtype}>");
        format!(
            "func.func @main(%x: {t}) -> ({t}, {t}, {t}) {{\n\
             \x20 %k = \"ascend.constant\"() {{value = dense<7.5> : tensor<{dtype}>}} : () -> tensor<{dtype}>\n\
             \x20 %y = \"ascend.mul\"(%x, %k) : ({t}, tensor<{dtype}>) -> {t}\n\
             \x20 %f = \"ascend.floor\"(%y) : ({t}) -> {t}\n\
             \x20 %c = \"ascend.ceil\"(%y) : ({t}) -> {t}\n\
             \x20 %r = \"ascend.round\"(%y) : ({t}) -> {t}\n\
             \x20 return %f, %c, %r : {t}, {t}, {t}\n}}\n"
        )
    });
}

/// Runs the graph `text_of(dtype)` on the emulation for f32 and f16 at two shapes (3 and
/// 333 rows, 12 KiB of UB, 4 cores) and requires every run to match the interpreter.
fn emulate_in_f32_and_f16(text_of: impl Fn(&str) -> String) {
    let mut failures = Vec::new();
    for dtype in ["f32", "f16"] {
        let text = text_of(dtype);
        let (found, keys) =
            run_graph_on_emulation(&text, 12288, 4, &[&[("s0", 3)], &[("s0", 333)]]);
        failures.extend(found.into_iter().map(|f| format!("{dtype}: {f}")));
        assert_eq!(keys.len(), 2, "{dtype}: both shapes ran on the emulation");
    }
    assert_no_failures(&failures);
}

/// int32 `abs` (no `Abs` API for int32) is emitted as `max(-x, x)` and matches the
/// interpreter on the emulation.
#[test]
fn end_to_end_int32_abs() {
    let t = "tensor<?x40xi32>";
    let text = format!(
        "func.func @main(%x: {t}, %y: {t}) -> {t} {{\n\
         \x20 %d = \"ascend.sub\"(%x, %y) : ({t}, {t}) -> {t}\n\
         \x20 %a = \"ascend.abs\"(%d) : ({t}) -> {t}\n\
         \x20 return %a : {t}\n}}\n"
    );
    let (failures, keys) = run_graph_on_emulation(&text, 12288, 4, &[&[("s0", 3)], &[("s0", 301)]]);
    assert!(failures.is_empty(), "{failures:?}\n{text}");
    assert_eq!(keys.len(), 2, "both shapes ran on the emulation");
}

/// `sin` and `cos` (rotary embeddings) translate to the library `Sin`/`Cos` with a shared
/// temporary buffer and match the interpreter on the emulation, in f32 and f16.
#[test]
fn end_to_end_sin_cos() {
    emulate_in_f32_and_f16(|dtype| {
        let t = format!("tensor<?x40x{dtype}>");
        format!(
            "func.func @main(%x: {t}) -> ({t}, {t}) {{\n\
             \x20 %k = \"ascend.constant\"() {{value = dense<3.0> : tensor<{dtype}>}} : () -> tensor<{dtype}>\n\
             \x20 %y = \"ascend.mul\"(%x, %k) : ({t}, tensor<{dtype}>) -> {t}\n\
             \x20 %s = \"ascend.sin\"(%y) : ({t}) -> {t}\n\
             \x20 %c = \"ascend.cos\"(%y) : ({t}) -> {t}\n\
             \x20 return %s, %c : {t}, {t}\n}}\n"
        )
    });
}

/// int32 ordered compares (2201 compares int32 for equality only) are emitted as
/// `Max` + `Compare(EQ)` and match the interpreter on the emulation.
#[test]
fn end_to_end_int32_ordered_compares() {
    let t = "tensor<?x40xi32>";
    let b = "tensor<?x40xi1>";
    let f = "tensor<?x40xf32>";
    let mut body = String::new();
    let mut results = Vec::new();
    for (i, op) in ["lt", "le", "gt", "ge", "ne", "eq"].iter().enumerate() {
        body.push_str(&format!(
            "  %c{i} = \"ascend.{op}\"(%x, %y) : ({t}, {t}) -> {b}\n  %r{i} = \"ascend.cast\"(%c{i}) : ({b}) -> {f}\n"
        ));
        results.push(format!("%r{i}"));
    }
    let types = vec![f; results.len()].join(", ");
    let text = format!(
        "func.func @main(%x: {t}, %y: {t}) -> ({types}) {{\n{body}  return {} : {types}\n}}\n",
        results.join(", ")
    );
    let (failures, keys) = run_graph_on_emulation(&text, 12288, 4, &[&[("s0", 3)], &[("s0", 301)]]);
    assert!(failures.is_empty(), "{failures:?}\n{text}");
    assert_eq!(keys.len(), 2, "both shapes ran on the emulation");
}
