//! The pass registry: every autofuse pass, by its command-line argument.
//!
//! The MLIR C API cannot register an external pass by name, so `autofuse-opt` resolves
//! pipeline elements here first and hands everything else to MLIR's own pipeline parser.
//! Adding a pass = one file with a `PassInfo` constant and one line in `PASSES`.

use crate::options::PassOptions;
use melior::ir::OperationRef;

/// One pass option, documented in `--help`, `--list-passes` and `docs/passes.md`.
#[derive(Clone, Copy, Debug)]
pub struct OptionInfo {
    pub name: &'static str,
    pub kind: &'static str,
    pub default: &'static str,
    pub help: &'static str,
}

/// The body of a pass: runs on the `builtin.module`, reports problems through
/// `autofuse_mlir::diagnostics`, returns `Err(())` to fail the pipeline.
pub type RunFn = fn(module: OperationRef, options: &PassOptions) -> Result<(), ()>;

#[derive(Clone, Copy, Debug)]
pub struct PassInfo {
    /// The pipeline / flag name (`infer-symbolic-shapes`).
    pub argument: &'static str,
    pub summary: &'static str,
    /// Longer text: what it does, preconditions, postconditions.
    pub description: &'static str,
    pub options: &'static [OptionInfo],
    pub run: RunFn,
}

/// Every registered pass, in pipeline order.
pub const PASSES: &[&PassInfo] = &[
    &crate::verify::PASS,
    &crate::infer_symbolic_shapes::PASS,
    &crate::fold_matmul_operands::PASS,
    &crate::decompose::PASS,
    &crate::narrow_index_types::PASS,
    &crate::lower_to_ascir::PASS,
    &crate::schedule::PASS,
    &crate::auto_tiling::PASS,
    &crate::fuse::PASS,
    &crate::sink_constants::PASS,
    &crate::group_launches::PASS,
];

pub fn lookup(argument: &str) -> Option<&'static PassInfo> {
    PASSES.iter().copied().find(|p| p.argument == argument)
}

/// Test helper: `docs/fusion.md` has a table row `| `CODE` | `SLUG` |` for every reason
/// code a pass reports, so its remarks stay explained.
#[cfg(test)]
pub(crate) fn assert_reason_codes_documented<'s>(
    codes: impl IntoIterator<Item = (&'s str, &'s str)>,
) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/fusion.md");
    let doc = std::fs::read_to_string(&path).expect("docs/fusion.md exists");
    for (code, slug) in codes {
        let row = format!("| `{code}` | `{slug}` |");
        assert!(doc.contains(&row), "docs/fusion.md lacks the row {row}");
    }
}
