//! Reading tool input and splitting it at `// -----` markers.

use std::collections::HashMap;
use std::io::Read;

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

/// A `--symbols` value, `s0=64,s1=8`, as symbol values (non-negative integers).
pub fn parse_symbol_values(text: &str) -> Result<HashMap<String, i64>, String> {
    let mut out = HashMap::new();
    for pair in text.split(',').filter(|p| !p.trim().is_empty()) {
        let (k, v) = pair
            .split_once('=')
            .ok_or_else(|| format!("--symbols entry '{pair}' must look like s0=4"))?;
        let v: i64 = v
            .trim()
            .parse()
            .map_err(|_| format!("--symbols entry '{pair}' needs an integer"))?;
        if v < 0 {
            return Err(format!("--symbols entry '{pair}' is negative"));
        }
        out.insert(k.trim().to_string(), v);
    }
    Ok(out)
}

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
