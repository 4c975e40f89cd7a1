//! Inputs found by the fuzzer (scripts/fuzz.sh, docs/reliability.md "Fuzzing") that
//! panicked the ONNX importer: each must now import or fail with an error.

use std::path::Path;

#[test]
fn onnx_importer_regressions_do_not_panic() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/regressions/onnx_import");
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).expect("fuzz/regressions/onnx_import exists") {
        let path = entry.expect("a directory entry").path();
        let bytes = std::fs::read(&path).expect("a readable regression input");
        let outcome =
            std::panic::catch_unwind(|| autofuse::onnx::import_bytes(&bytes, None).map(|_| ()));
        assert!(outcome.is_ok(), "{} panics the importer", path.display());
        count += 1;
    }
    assert!(count > 0, "no regression inputs in {}", dir.display());
}
