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
