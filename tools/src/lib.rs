//! The autofuse command-line tools (`src/bin/`) and what only tools use: the Ascend C
//! translation (`ascendc`), the ONNX importer (`onnx`), the runner (`run`: module
//! execution with the interpreters, kernels built and launched on the emulation and on
//! the vendor's API), reading input, the `--verify-diagnostics` matcher, the generated
//! references and the random graph generator of the differential tests.

pub mod ascendc;
pub mod comparison;
pub mod docs;
pub mod expected;
pub mod input;
pub mod onnx;
pub mod output;
pub mod randgraph;
pub mod run;
pub mod symbols;

/// The allocator of every tool. glibc's malloc spent about a quarter of a 10,000-op
/// pipeline run allocating, freeing and consolidating the many small, short-lived pieces
/// of the graph models; mimalloc roughly halves the whole run (docs/benchmarks).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
