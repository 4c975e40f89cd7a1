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
    if !source.starts_with(BYTECODE_MAGIC) {
        if let Some((line, column)) = nesting_beyond(source, MAX_NESTING) {
            let location = melior::ir::Location::new(context, source_name, line, column);
            crate::diagnostics::error(
                location,
                format!(
                    "brackets nest deeper than {MAX_NESTING} levels here; autofuse refuses \
                     such input (MLIR's parser recurses per level)"
                ),
            );
            return None;
        }
    }
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

/// The deepest bracket nesting (`(`, `[`, `{`, `<`) a text input may have. MLIR's parser,
/// printer and verifier recurse once or more per level, so nesting past what the stack
/// holds (about 5,000 levels of nested arrays or regions on an 8 MB stack) would abort
/// the process; no IR a compiler writes comes near this bound.
pub const MAX_NESTING: usize = 1000;

/// The 1-based line and column of the first bracket that opens level `limit + 1`, or
/// `None` when the text stays within `limit`. Brackets inside string literals and `//`
/// comments do not count; `->` is not a closing bracket; closing brackets never take the
/// depth below zero (`>=` of an integer set), so the count errs only towards accepting.
fn nesting_beyond(source: &[u8], limit: usize) -> Option<(usize, usize)> {
    let (mut depth, mut line, mut line_start) = (0usize, 1usize, 0usize);
    let mut i = 0;
    while i < source.len() {
        match source[i] {
            b'\n' => {
                line += 1;
                line_start = i + 1;
            }
            b'"' => {
                // A string literal: skip to its closing quote past escapes (a newline
                // inside one is an error MLIR's parser reports).
                i += 1;
                while i < source.len() && source[i] != b'"' && source[i] != b'\n' {
                    i += if source[i] == b'\\' { 2 } else { 1 };
                }
                continue;
            }
            b'/' if source.get(i + 1) == Some(&b'/') => {
                while i < source.len() && source[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'(' | b'[' | b'{' | b'<' => {
                depth += 1;
                if depth > limit {
                    return Some((line, i - line_start + 1));
                }
            }
            b'>' if i > 0 && source[i - 1] == b'-' => {}
            b')' | b']' | b'}' | b'>' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    None
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
    use super::{nesting_beyond, starts_with_module};

    #[test]
    fn recognizes_explicit_modules_after_comments() {
        assert!(starts_with_module(b"// RUN: x\n\nmodule {\n}"));
        assert!(starts_with_module(b"module @m attributes {} {}"));
        assert!(starts_with_module(b"\"builtin.module\"() ({})"));
        assert!(!starts_with_module(b"func.func @f() { return }"));
        assert!(!starts_with_module(b"module_like.op"));
        assert!(!starts_with_module(b"// only a comment"));
    }

    #[test]
    fn nesting_is_measured_outside_strings_comments_and_arrows() {
        assert_eq!(nesting_beyond(b"a = [[[1]]]", 3), None);
        assert_eq!(nesting_beyond(b"a = [[[[1]]]]", 3), Some((1, 8)));
        assert_eq!(nesting_beyond(b"x\n  {{(", 2), Some((2, 5)));
        // Brackets in strings and comments, and arrows, do not count.
        assert_eq!(nesting_beyond(b"s = \"[[[[\\\"[[[\" // ((((\n[]", 1), None);
        assert_eq!(nesting_beyond(b"(f32) -> (f32) -> <i1>", 1), None);
        // An unmatched closing bracket does not lower the count below zero.
        assert_eq!(nesting_beyond(b"]]]]]((", 1), Some((1, 7)));
    }
}
