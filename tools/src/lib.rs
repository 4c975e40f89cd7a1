//! The autofuse command-line tools (`src/bin/`): short drivers over the in-process API
//! (crate `autofuse`, `api/`), and what only the command line needs: reading input and
//! splitting it at `// -----` (`input`), writing output whole or not at all (`output`),
//! the `--verify-diagnostics` matcher (`expected`) and the generated references
//! (`docs`). The stages themselves are libraries under `stages/`.

pub mod docs;
pub mod expected;
pub mod input;
pub mod output;
pub mod progress;

/// The allocator of every tool. glibc's malloc spent about a quarter of a 10,000-op
/// pipeline run allocating, freeing and consolidating the many small, short-lived pieces
/// of the graph models; mimalloc roughly halves the whole run (docs/benchmarks).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
