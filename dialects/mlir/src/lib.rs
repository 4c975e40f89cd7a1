//! autofuse-mlir: the MLIR side of autofuse. Creates contexts with the upstream dialects
//! and our IRDL dialects loaded, parses input with real file locations, collects
//! diagnostics (MLIR's and our passes') in one ordered stream, and verifies what IRDL
//! cannot express.

pub mod build;
pub mod builder;
pub mod context;
pub mod diagnostics;
pub mod extract;
pub mod parse;
pub mod raw;
pub mod verify;

#[cfg(test)]
mod fuzz_tests;
