//! Inputs found by the fuzzer (scripts/fuzz.sh, docs/reliability.md "Fuzzing") that
//! panicked or hung the ONNX importer or the MLIR pipeline: each must now succeed or
//! fail with an error, and finish. The deadline is a hang guard (the hang found walked 2^49 indices of a tensor
//! without elements), generous enough for any machine, not a speed target.

use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

const HANG_DEADLINE: Duration = Duration::from_secs(120);

#[test]
fn onnx_importer_regressions_neither_panic_nor_hang() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/regressions/onnx_import");
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).expect("fuzz/regressions/onnx_import exists") {
        let path = entry.expect("a directory entry").path();
        let bytes = std::fs::read(&path).expect("a readable regression input");
        let (done, finished) = mpsc::channel();
        std::thread::spawn(move || {
            let outcome =
                std::panic::catch_unwind(|| autofuse::onnx::import_bytes(&bytes, None).map(|_| ()));
            let _ = done.send(outcome.is_ok());
        });
        match finished.recv_timeout(HANG_DEADLINE) {
            Ok(no_panic) => assert!(no_panic, "{} panics the importer", path.display()),
            Err(_) => panic!(
                "{} hangs the importer (> {HANG_DEADLINE:?})",
                path.display()
            ),
        }
        count += 1;
    }
    assert!(count >= 2, "regression inputs missing in {}", dir.display());
}

/// MLIR inputs that panicked the pipeline (`fuzz/regressions/mlir_pipeline`): each runs
/// through what the `mlir_pipeline` target runs (`autofuse-opt` with the pass pipeline,
/// then `autofuse-translate --mlir-to-ascendc` when it succeeds); each tool must finish
/// with 0 or a diagnosed 1, never a panic (101) or a signal.
#[test]
fn mlir_pipeline_regressions_neither_panic_nor_hang() {
    use std::process::Command;
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/regressions/mlir_pipeline");
    let scratch = Path::new(env!("CARGO_TARGET_TMPDIR")).join("fuzz-regressions-mlir");
    std::fs::create_dir_all(&scratch).expect("a scratch directory");
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).expect("fuzz/regressions/mlir_pipeline exists") {
        let path = entry.expect("a directory entry").path();
        let lowered = scratch.join("lowered.mlir");
        let opt = Command::new(env!("CARGO_BIN_EXE_autofuse-opt"))
            .arg(&path)
            .args([
                "--infer-symbolic-shapes",
                "--decompose",
                "--lower-to-ascir",
                "--fuse",
                "--schedule",
                "--auto-tiling",
                "-o",
            ])
            .arg(&lowered)
            .output()
            .expect("autofuse-opt runs");
        if ended_without_panic("autofuse-opt", &path, &opt) {
            let translate = Command::new(env!("CARGO_BIN_EXE_autofuse-translate"))
                .arg(&lowered)
                .args(["--mlir-to-ascendc", "-o"])
                .arg(scratch.join("kernels"))
                .output()
                .expect("autofuse-translate runs");
            ended_without_panic("autofuse-translate", &path, &translate);
        }
        count += 1;
    }
    assert!(count >= 1, "regression inputs missing in {}", dir.display());
}

/// Fails the test unless `tool` on `input` exited with 0 or a diagnosed 1 (not a panic's
/// 101, not a signal); whether it succeeded.
fn ended_without_panic(tool: &str, input: &Path, output: &std::process::Output) -> bool {
    let code = output.status.code();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        matches!(code, Some(0 | 1)) && !stderr.contains("panicked"),
        "{tool} on {} ended with {code:?}: {stderr}",
        input.display()
    );
    code == Some(0)
}
