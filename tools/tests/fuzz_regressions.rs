//! Inputs found by the fuzzer (scripts/fuzz.sh, docs/reliability.md "Fuzzing") that
//! panicked or hung the ONNX importer: each must now import or fail with an error, and
//! finish. The deadline is a hang guard (the hang found walked 2^49 indices of a tensor
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
