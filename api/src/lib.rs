//! The in-process API of autofuse: one crate that the command-line tools (`tools/`), the
//! benchmarks (`bench/`), the fuzz targets and the Python package call, so that none of
//! them reaches into the stages on its own terms.
//!
//! Why a facade: the stages are libraries of their own (`stages/`: the ONNX importer,
//! the Ascend C translation, the runner, the random graph generator), each with the
//! dependencies it needs and nothing above; a caller that wants the whole compiler
//! depends on this one crate and gets the same path from a model to a report as
//! `autofuse-run`.
//!
//! The path, one function per step:
//!
//! 1. [`import_onnx`]: an ONNX model (path) to the `ascend` graph's MLIR text (weights
//!    by reference, absolute paths);
//! 2. [`parse`]: text or bytecode to a verified module (MLIR's verifier with the IRDL
//!    dialects, then autofuse's);
//! 3. [`compile`]: a pass pipeline (`autofuse-opt`'s textual form, our passes and any
//!    upstream one) over a module;
//! 4. [`translate`]: the whole path from the graph to the Ascend C sources of every
//!    kernel (pipeline and `--mlir-to-ascendc`, kernels named by content hash);
//! 5. [`build`]: the sources compiled with g++ against the CPU emulation (`sim/include`),
//!    cached by content hash;
//! 6. [`run`]: the entry graph for concrete inputs, kernels on the emulation and
//!    everything else on the reference interpreters, with the GM traffic of every launch
//!    ([`report`] summarizes it).
//!
//! The stages are re-exported under short names for what the steps do not cover.
//! Every function reports errors as located diagnostics in a `String`
//! (`file:line:col: error: ...`), as the tools print them.

use std::collections::HashMap;
use std::path::Path;

pub use autofuse_onnx as onnx;
pub use autofuse_randgraph as randgraph;
pub use autofuse_runner as runner;
pub use autofuse_runner::comparison;
pub use autofuse_runner::{GraphRun, PreparedModule, RunOptions, SimBuild};
pub use autofuse_target_ascendc as ascendc;

use autofuse_ir::tensor::Tensor;
use melior::ir::Module;
use melior::Context;

/// A context with the three dialects (IRDL) and the upstream dialects loaded, and
/// autofuse's diagnostic handler: every module of the API lives in one.
pub fn context() -> Context {
    autofuse_mlir::context::create_context()
}

/// Imports an ONNX model (external data next to it) as `ascend` MLIR text, with a
/// summary of what was converted and what became external calls.
pub fn import_onnx(path: &Path) -> Result<onnx::Imported, String> {
    onnx::import_file(path).map_err(|e| e.to_string())
}

/// Parses and verifies `source` (MLIR text or bytecode) named `source_name` in
/// diagnostics.
pub fn parse<'c>(
    context: &'c Context,
    source: &[u8],
    source_name: &str,
) -> Result<Module<'c>, String> {
    autofuse_mlir::parse::load_module(context, source, source_name)
}

/// Runs the pass pipeline `pipeline` (`infer-symbolic-shapes,decompose,...`) over
/// `module`; returns the diagnostics it emitted (remarks, warnings), errors fail.
pub fn compile(module: &mut Module, pipeline: &str) -> Result<Vec<String>, String> {
    runner::run_pipeline_keep(module, pipeline)
}

/// Compiles the `ascend` graph `source` with the pipeline `options` choose and
/// translates every scheduled kernel (and every launch of several loop groups) to Ascend
/// C: the result holds the sources, the entry graph and the module to run.
pub fn translate(
    context: &Context,
    source: &[u8],
    source_name: &str,
    options: &RunOptions,
) -> Result<PreparedModule, String> {
    runner::prepare_module(context, source, source_name, options)
}

/// Compiles the translated kernels of `module` with g++ against the CPU emulation.
pub fn build(module: &PreparedModule, options: &RunOptions) -> Result<SimBuild, String> {
    runner::build_module(module, options, &runner::Toolchain::sim(options))
}

/// Runs the entry graph `entry` of `module` for `inputs` with the kernels of `build`.
pub fn run(
    module: &PreparedModule,
    build: &SimBuild,
    entry: &str,
    inputs: &[Tensor],
) -> Result<GraphRun, String> {
    let builds: HashMap<String, SimBuild> = runner::builds_for(module, build);
    runner::execute(module, &builds, entry, inputs)
}

/// One line per launch (kernel, GM bytes read and written) and the GM totals of a run:
/// measured, unfused and the minimum.
pub fn report(run: &GraphRun) -> String {
    let mut out = String::new();
    for l in &run.launches {
        out.push_str(&format!(
            "{}: read {}, written {}\n",
            l.kernel,
            runner::human_bytes(l.gm_read),
            runner::human_bytes(l.gm_written)
        ));
    }
    let t = &run.traffic;
    out.push_str(&format!(
        "GM traffic: {} measured, {} unfused, {} minimum\n",
        runner::human_bytes(t.measured),
        runner::human_bytes(t.unfused),
        runner::human_bytes(t.minimum)
    ));
    out
}
