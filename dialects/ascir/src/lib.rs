//! The `ascir` dialect (AscIR): loop-level nodes that map 1:1 to Ascend C APIs. Its rows
//! of the op catalogue (`ops`), the in-memory AscGraph and its MLIR form (`graph`), GE's
//! TilingGroups (`tiling_group`), the impl-form kernel model that `--schedule` builds and
//! the tiling solver and the Ascend C translation read (`kernel`), the chip profiles the
//! impl form is made for (`chip`), the verifier rules of AscGraphs (`verify`), and the
//! AscIR interpreter of the hint form (`interp`), which is the dialect's semantics. Rationale: `dialects/ascir/README.md`.

pub mod chip;
pub mod graph;
pub mod interp;
pub mod kernel;
pub mod ops;
pub mod tiling_group;
pub mod verify;
