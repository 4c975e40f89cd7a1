//! The `tiling` dialect: schedule and tiling facts of a fused kernel. Its rows of the op
//! catalogue (`ops`), the tiling model of a scheduled kernel and a solved tiling
//! (`tiling`: what `--auto-tiling` solves, the host tiling function computes and the
//! kernel reads), and the impl-form interpreter (`impl_interp`), which runs a scheduled
//! kernel with a solved tiling block by block as the generated code does: the dialect's
//! semantics. Rationale: `dialects/tiling/README.md`.

pub mod impl_interp;
pub mod ops;
pub mod tiling;
