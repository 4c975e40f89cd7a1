//! Parsing an input buffer into a module, with real file locations.
//!
//! `mlir-opt` accepts both an explicit `module { ... }` and a list of top-level ops that
//! it wraps in an implicit module. The C API parses exactly one top-level op, so a
//! buffer that does not start with a module is wrapped here. The wrapper is put on the
//! first line without adding a line, so line numbers stay those of the file.

use crate::raw;
use melior::{ir::Module, Context};

/// Bytecode files start with this magic.
const BYTECODE_MAGIC: &[u8] = b"ML\xefR";

/// Parses `source` as a module named `source_name` in diagnostics. Parse errors are
/// reported through the context's diagnostic handler.
pub fn parse_module<'c>(
    context: &'c Context,
    source: &[u8],
    source_name: &str,
) -> Option<Module<'c>> {
    if source.starts_with(BYTECODE_MAGIC) || starts_with_module(source) {
        let op = raw::parse_operation(context, source, source_name)?;
        return Module::from_operation(op);
    }
    let mut wrapped = Vec::with_capacity(source.len() + 16);
    wrapped.extend_from_slice(b"module{");
    wrapped.extend_from_slice(source);
    wrapped.extend_from_slice(b"\n}");
    let op = raw::parse_operation(context, &wrapped, source_name)?;
    Module::from_operation(op)
}

/// Whether the first token after whitespace and `//` comments is a module op.
fn starts_with_module(source: &[u8]) -> bool {
    let mut rest = source;
    loop {
        let trimmed = trim_start(rest);
        if trimmed.starts_with(b"//") {
            match trimmed.iter().position(|&b| b == b'\n') {
                Some(end) => rest = &trimmed[end + 1..],
                None => return false,
            }
            continue;
        }
        let keyword = |k: &[u8]| {
            trimmed.starts_with(k)
                && trimmed
                    .get(k.len())
                    .is_none_or(|b| !(b.is_ascii_alphanumeric() || *b == b'_' || *b == b'.'))
        };
        return keyword(b"module")
            || keyword(b"builtin.module")
            || trimmed.starts_with(b"\"builtin.module\"");
    }
}

fn trim_start(bytes: &[u8]) -> &[u8] {
    let start = bytes
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(bytes.len());
    &bytes[start..]
}

/// Parses `source` and verifies it (MLIR's verifier including the dialects', then
/// autofuse's). Errors are reported through `crate::diagnostics` (located at the
/// offending op); `None` when the module does not parse or does not verify.
pub fn parse_verified<'c>(
    context: &'c melior::Context,
    source: &[u8],
    source_name: &str,
) -> Option<melior::ir::Module<'c>> {
    use melior::ir::operation::OperationLike;
    let module = parse_module(context, source, source_name)?;
    let verified = module.as_operation().verify() && crate::verify::verify_module(module.body());
    verified.then_some(module)
}

/// [`parse_verified`] for tools that stop at the first bad input: the error is the
/// located diagnostics, one per line (`file:line:col: error: ...`).
pub fn load_module<'c>(
    context: &'c melior::Context,
    source: &[u8],
    source_name: &str,
) -> Result<melior::ir::Module<'c>, String> {
    use crate::diagnostics;
    diagnostics::drain(context);
    let module = parse_verified(context, source, source_name);
    let diags = diagnostics::drain(context);
    let errors: Vec<String> = diags
        .iter()
        .filter(|d| d.severity == diagnostics::Severity::Error)
        .map(|d| d.to_string())
        .collect();
    match module {
        Some(module) if errors.is_empty() => Ok(module),
        _ if errors.is_empty() => Err(format!(
            "{source_name}: error: the module does not parse or verify"
        )),
        _ => Err(errors.join("\n")),
    }
}

#[cfg(test)]
mod tests {
    use super::starts_with_module;

    #[test]
    fn recognizes_explicit_modules_after_comments() {
        assert!(starts_with_module(b"// RUN: x\n\nmodule {\n}"));
        assert!(starts_with_module(b"module @m attributes {} {}"));
        assert!(starts_with_module(b"\"builtin.module\"() ({})"));
        assert!(!starts_with_module(b"func.func @f() { return }"));
        assert!(!starts_with_module(b"module_like.op"));
        assert!(!starts_with_module(b"// only a comment"));
    }
}
