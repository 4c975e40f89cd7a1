//! autofuse-mlir: the MLIR side of autofuse. Creates contexts with the upstream dialects
//! and our IRDL dialects loaded, parses input with real file locations, collects
//! diagnostics (MLIR's and our passes') in one ordered stream, and verifies what IRDL
//! cannot express. It joins the three dialects' catalogue rows into one registry
//! (`registry`) and generates their IRDL from it (`irdl`).

pub mod build;
pub mod builder;
pub mod context;
pub mod diagnostics;
pub mod extract;
pub mod irdl;
pub mod parse;
pub mod raw;
pub mod registry;
pub mod verify;

#[cfg(test)]
mod fuzz_tests;
