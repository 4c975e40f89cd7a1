//! Robustness of parsing and verification: every lit test input of the repository,
//! truncated at many points and with bytes flipped, goes through parsing and the Rust
//! verifier without a panic. (Diagnostics are expected; crashes are bugs.)

use crate::{context::create_context, diagnostics, parse::parse_module, verify::verify_module};
use melior::ir::operation::OperationLike;
use std::path::Path;

fn inputs() -> Vec<Vec<u8>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../test");
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "mlir") {
                if let Ok(bytes) = std::fs::read(&path) {
                    out.push(bytes);
                }
            }
        }
    }
    out
}

#[test]
fn mutated_inputs_never_panic() {
    let context = create_context();
    let files = inputs();
    assert!(files.len() >= 5, "the test inputs were not found");
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut parsed = 0;
    for file in &files {
        for _ in 0..12 {
            let mut bytes = file.clone();
            match next() % 3 {
                0 => bytes.truncate((next() as usize) % (bytes.len() + 1)),
                1 => {
                    for _ in 0..4 {
                        if !bytes.is_empty() {
                            let at = (next() as usize) % bytes.len();
                            bytes[at] = (next() % 256) as u8;
                        }
                    }
                }
                _ => {
                    // Swap two lines: uses before definitions, misplaced returns.
                    let text = String::from_utf8_lossy(&bytes).into_owned();
                    let mut lines: Vec<&str> = text.lines().collect();
                    if lines.len() > 2 {
                        let a = (next() as usize) % lines.len();
                        let b = (next() as usize) % lines.len();
                        lines.swap(a, b);
                    }
                    bytes = lines.join("\n").into_bytes();
                }
            }
            if let Some(module) = parse_module(&context, &bytes, "<fuzz>") {
                parsed += 1;
                if module.as_operation().verify() {
                    verify_module(module.body());
                }
            }
            diagnostics::drain(&context);
        }
    }
    // Some mutations must leave valid IR, or the verifier was never exercised.
    assert!(parsed > 0);
}
