//! Shared pieces of the autofuse command-line tools: reading input, splitting it into
//! chunks, the `--verify-diagnostics` matcher, module execution with the reference
//! interpreters, and the random graph generator of the differential tests.

pub mod ascendc;
pub mod docs;
pub mod execute;
pub mod expected;
pub mod input;
pub mod onnx;
pub mod randgraph;

/// The allocator of every tool. glibc's malloc spent about a quarter of a 10,000-op
/// pipeline run allocating, freeing and consolidating the many small, short-lived pieces
/// of the graph models; mimalloc roughly halves the whole run (docs/benchmarks).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
