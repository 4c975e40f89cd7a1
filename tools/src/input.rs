//! Reading tool input, the one path from bytes to a verified module, and splitting input
//! at `// -----` markers.
//!
//! Every tool (`autofuse-opt`, `autofuse-run`, `autofuse-translate`) parses its input
//! with `autofuse_mlir::parse::parse_verified` (or `load_module`, which also collects the diagnostics):
//! MLIR's parser (text or bytecode; bytes that are not UTF-8 are accepted where MLIR
//! accepts them, e.g. in comments), then MLIR's verifier with the IRDL dialect
//! verifiers, then autofuse's Rust verifier (`autofuse_mlir::verify`), all before any
//! pass. A module that fails any of them is rejected with located diagnostics
//! (`file:line:col: error: ...`).

use std::io::Read;

pub use autofuse_mlir::parse::{load_module, parse_verified};

/// Reads a file, or standard input for `-`.
pub fn read_input(path: &str) -> Result<Vec<u8>, String> {
    if path == "-" {
        let mut buf = Vec::new();
        std::io::stdin()
            .read_to_end(&mut buf)
            .map_err(|e| format!("cannot read standard input: {e}"))?;
        return Ok(buf);
    }
    std::fs::read(path).map_err(|e| format!("cannot open input file '{path}': {e}"))
}

/// One chunk of a split input: its text padded with newlines so that line numbers in
/// diagnostics are those of the whole file, and its first line.
pub struct Chunk {
    pub text: Vec<u8>,
    pub first_line: usize,
}

/// Splits at lines whose trimmed text starts with `marker` (`// -----`).
pub fn split(source: &[u8], marker: &str) -> Vec<Chunk> {
    let mut chunks = Vec::new();
    let mut current: Vec<u8> = Vec::new();
    let mut first_line = 1;
    for (index, line) in source.split_inclusive(|&b| b == b'\n').enumerate() {
        let line_no = index + 1;
        let trimmed = String::from_utf8_lossy(line);
        if trimmed.trim_start().starts_with(marker) {
            chunks.push(Chunk {
                text: std::mem::take(&mut current),
                first_line,
            });
            first_line = line_no + 1;
            // Padding keeps absolute line numbers in the next chunk.
            current = vec![b'\n'; line_no];
            continue;
        }
        current.extend_from_slice(line);
    }
    chunks.push(Chunk {
        text: current,
        first_line,
    });
    chunks
}

pub use autofuse::runner::symbols::parse_symbol_values;

/// Parses the command line with `command`. `Err` is the exit code once clap has printed
/// what it had to: 0 after `--help`/`--version`, 2 after a usage error.
pub fn parse_command_line(
    command: clap::Command,
) -> Result<clap::ArgMatches, std::process::ExitCode> {
    command.try_get_matches().map_err(|e| {
        let _ = e.print();
        if e.use_stderr() {
            std::process::ExitCode::from(2)
        } else {
            std::process::ExitCode::SUCCESS
        }
    })
}

#[cfg(test)]
mod tests {
    use super::split;

    #[test]
    fn chunks_keep_absolute_line_numbers() {
        let chunks = split(b"a\n// -----\nb\nc\n// -----\nd", "// -----");
        assert_eq!(chunks.len(), 3);
        assert_eq!(chunks[1].first_line, 3);
        let text = String::from_utf8(chunks[1].text.clone()).unwrap();
        assert_eq!(text.lines().nth(2), Some("b"));
        assert_eq!(chunks[2].first_line, 6);
    }
}
