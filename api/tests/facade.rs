//! The in-process path of the facade, step by step, on bundled examples: parse,
//! translate, build on the CPU emulation, run, and compare with the reference
//! interpreter; and a bad input reported as a located error, not a panic.

use std::collections::HashMap;
use std::path::PathBuf;

use autofuse::comparison::compare;
use autofuse::runner::execute::random_inputs;
use autofuse::runner::symbols::graph_symbols;
use autofuse::RunOptions;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("api/ has a parent")
        .to_path_buf()
}

/// Runs `example` through the facade at every symbol = `value`; returns the kernels
/// launched on the emulation.
fn run_example(example: &str, value: i64) -> usize {
    let path = repo().join("examples").join(example);
    let source = std::fs::read(&path).expect("the example exists");
    let context = autofuse::context();
    let options = RunOptions::new(&repo());
    let module = autofuse::translate(&context, &source, example, &options)
        .unwrap_or_else(|e| panic!("translate {example}: {e}"));
    assert!(
        !module.kernels.is_empty(),
        "{example}: no kernel was scheduled"
    );
    let build = autofuse::build(&module, &options).unwrap_or_else(|e| panic!("build: {e}"));
    let entry = module
        .reference
        .default_entry()
        .expect("the example has a graph function")
        .to_string();
    let entry = entry.as_str();
    let graph = module.reference.graph(entry).expect("the entry graph");
    let symbols: HashMap<String, i64> = graph_symbols(graph)
        .into_iter()
        .map(|name| (name, value))
        .collect();
    let inputs = random_inputs(graph, &symbols, 7).expect("inputs");
    let expected = module.reference.run(entry, &inputs).expect("reference run");
    let run = autofuse::run(&module, &build, entry, &inputs)
        .unwrap_or_else(|e| panic!("run {example}: {e}"));
    assert_eq!(run.outputs.len(), expected.len());
    for (want, got) in expected.iter().zip(&run.outputs) {
        let error = compare(want, got).unwrap_or_else(|e| panic!("{example}: {e}"));
        assert!(error.is_finite(), "{example}: error {error}");
    }
    let report = autofuse::report(&run);
    assert!(report.contains("GM traffic:"), "{report}");
    run.launches.len()
}

#[test]
fn softmax_runs_on_the_emulation_through_the_facade() {
    assert!(run_example("softmax.mlir", 48) >= 1);
}

#[test]
fn rotary_embedding_runs_on_the_emulation_through_the_facade() {
    assert!(run_example("rotary_embedding.mlir", 6) >= 1);
}

#[test]
fn a_malformed_module_is_a_located_error() {
    let context = autofuse::context();
    let error = match autofuse::parse(&context, b"func.func @main( {", "bad.mlir") {
        Ok(_) => panic!("a malformed module parsed"),
        Err(e) => e,
    };
    assert!(error.starts_with("bad.mlir:1:"), "{error}");
}
