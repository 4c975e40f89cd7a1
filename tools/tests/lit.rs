//! Runs the lit suite (`test/`) with the tools built by this `cargo test`, so that
//! `cargo test` covers unit tests and IR tests in one command.

use std::path::PathBuf;
use std::process::Command;

#[test]
fn lit_suite() {
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let opt = PathBuf::from(env!("CARGO_BIN_EXE_autofuse-opt"));
    let bin_dir = opt.parent().expect("the tool has a directory");
    let llvm_bin = std::env::var("LLVM_BIN_DIR").unwrap_or_else(|_| "/usr/lib/llvm-22/bin".into());
    let lit = PathBuf::from(&llvm_bin).join("lit");
    let jobs = std::env::var("LIT_JOBS").unwrap_or_else(|_| "2".into());
    let status = Command::new(&lit)
        .arg("-sv")
        .arg("-j")
        .arg(&jobs)
        .arg(repo.join("test"))
        .env("AUTOFUSE_BIN_DIR", bin_dir)
        .status()
        .unwrap_or_else(|e| panic!("cannot run {}: {e} (run scripts/setup.sh)", lit.display()));
    assert!(status.success(), "lit suite failed");
}
