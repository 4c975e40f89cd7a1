//! `--autofuse-verify`: runs the Rust verifier (`autofuse_mlir::verify`) as a pass.
//!
//! Useful inside a pipeline after upstream passes, which MLIR's verifier checks only
//! against IRDL. Preconditions: none. Postconditions: the IR is unchanged; the pass
//! fails if any check fails, with an error at each offending op.

use crate::registry::PassInfo;
use autofuse_mlir::verify::verify_module;
use melior::ir::{operation::OperationLike, OperationRef, RegionLike};

pub const PASS: PassInfo = PassInfo {
    argument: "autofuse-verify",
    summary: "Check what IRDL cannot: shapes, broadcasting, axes, views, kernel symbols",
    description: "Runs the autofuse verifier over the module: ascend result types against the \
                  shape rules, fused_call kernel symbols and arity, AscGraph axes, symbols and views. \
                  The IR is not changed.",
    options: &[],
    run,
};

fn run(module: OperationRef, _options: &crate::options::PassOptions) -> Result<(), ()> {
    let body = module
        .region(0)
        .ok()
        .and_then(|r| r.first_block())
        .ok_or(())?;
    if verify_module(body) {
        Ok(())
    } else {
        Err(())
    }
}
