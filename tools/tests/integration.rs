//! Runs the lit suite (`test/`) with the tools built by this `cargo test`, so that
//! `cargo test` covers unit tests and IR tests in one command.

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
    use autofuse_core::tensor::Tensor;
    use autofuse_tools::{execute::Program, randgraph};
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
        if let Err(e) = autofuse_tools::execute::run_pipeline(
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
            let mut symbols = std::collections::HashMap::new();
            for (i, name) in graph.symbols.iter().enumerate() {
                symbols.insert(
                    name.clone(),
                    1 + ((seed * 7 + trial * 3 + i as u64 * 5) % 9) as i64,
                );
            }
            let inputs: Vec<Tensor> = graph
                .inputs
                .iter()
                .enumerate()
                .map(|(i, ty)| {
                    let shape: Vec<usize> = ty
                        .dims
                        .iter()
                        .map(|d| {
                            d.expr()
                                .and_then(|e| e.eval_map(&symbols).ok())
                                .unwrap_or(1) as usize
                        })
                        .collect();
                    Tensor::random(ty.dtype, shape, seed * 1000 + trial * 10 + i as u64)
                        .expect("valid shape")
                })
                .collect();
            let expected = before.run("main", &inputs);
            let actual = after.run("main", &inputs);
            match (expected, actual) {
                (Ok(e), Ok(a)) => {
                    for (k, (x, y)) in e.iter().zip(&a).enumerate() {
                        if let Err(why) = autofuse_tools::execute::compare(x, y) {
                            failures.push(format!(
                                "seed {seed} trial {trial} output {k}: {why}\n{}",
                                graph.text
                            ));
                        }
                    }
                }
                (Err(e), _) => failures.push(format!(
                    "seed {seed}: reference run failed: {e}\n{}",
                    graph.text
                )),
                (_, Err(e)) => failures.push(format!(
                    "seed {seed}: lowered run failed: {e}\n{}",
                    graph.text
                )),
            }
        }
    }
    assert!(
        lowered_calls > cases as usize,
        "the generator should produce lowerable ops ({lowered_calls} kernels)"
    );
    assert!(
        failures.is_empty(),
        "{} failures; first:\n{}",
        failures.len(),
        failures.first().map(String::as_str).unwrap_or("")
    );
}
