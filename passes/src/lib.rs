//! autofuse-passes: every pass of the compiler (one file each), the registry that names
//! them, pass options, statistics, and the builder of textual pipelines that mixes our
//! passes with upstream MLIR passes.

pub mod options;
pub mod parallel;
pub mod pipeline;
pub mod registry;
pub mod statistics;

// Passes, in pipeline order.
pub mod auto_tiling;
pub mod decompose;
pub mod fold_matmul_operands;
pub mod fuse;
pub mod group_launches;
pub mod infer_symbolic_shapes;
pub mod lower_to_ascir;
pub mod narrow_index_types;
pub mod schedule;
pub mod sink_constants;
pub mod verify;
