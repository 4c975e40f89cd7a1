//! `--autofuse-verify`: runs the Rust verifier (`autofuse_mlir::verify`) as a pass.
//!
//! Useful inside a pipeline after upstream passes, which MLIR's verifier checks only
//! against IRDL. Preconditions: none. Postconditions: the IR is unchanged; the pass
//! fails if any check fails, with an error at each offending op.

use crate::registry::PassInfo;
use autofuse_mlir::extract;
use autofuse_mlir::verify::verify_module;
use melior::ir::OperationRef;

pub const PASS: PassInfo = PassInfo {
    argument: "autofuse-verify",
    summary: "Check what IRDL cannot: shapes, broadcasting, axes, views, symbols",
    description: "Runs the autofuse verifier over the module: ascend result types against the \
                  shape rules, AscGraph axes, symbols and views (kernel calls are func.calls, whose \
                  symbol and types MLIR's own verifier checks). \
                  The IR is not changed.",
    options: &[],
    run,
};

fn run(module: OperationRef, _options: &crate::options::PassOptions) -> Result<(), ()> {
    let body = extract::module_body(module).ok_or(())?;
    if verify_module(body) {
        Ok(())
    } else {
        Err(())
    }
}
