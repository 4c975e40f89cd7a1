//! The `ascend` dialect (Ascend IR): graph-level tensor operators. Its rows of the op
//! catalogue (`ops`), its shape rules (`shape`: result types, symbolic dims and guards,
//! what the verifier checks) and its reference interpreter (`interp`), which is the
//! dialect's semantics. Rationale: `dialects/ascend/README.md`.

pub mod conv;
pub mod derived;
pub mod interp;
pub mod ops;
pub mod shape;
