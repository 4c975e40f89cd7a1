//! autofuse-core: what the compiler knows about its dialects and graphs, independent of
//! MLIR: the op catalogue (source of the IRDL definitions and docs), the in-memory graph
//! model passes analyse, and the reference interpreters that define the semantics.

pub mod ascir;
pub mod ascir_impl_interp;
pub mod ascir_interp;
pub mod attr;
pub mod catalogue;
pub mod chip;
pub mod fusion;
pub mod graph;
pub mod interp;
pub mod irdl;
pub mod lowering;
pub mod schedule;
pub mod shape;
pub mod tensor;
pub mod tiling_group;
pub mod tiling_solver;
