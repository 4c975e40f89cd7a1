//! Shared pieces of the autofuse command-line tools: reading input, splitting it into
//! chunks, and the `--verify-diagnostics` matcher.

pub mod docs;
pub mod expected;
pub mod input;
