#!/usr/bin/env bash
# Runs every test: installs what is missing, then the unit tests and the lit suite
# (the lit suite runs inside `cargo test`, see tools/tests/integration.rs).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
# The Python packages of the tests that write models and check them against onnxruntime
# (the real-size case): the project-local .venv, installed from PyPI when missing.
AUTOFUSE_PYTHON=$(scripts/python-env.sh)
export AUTOFUSE_PYTHON AUTOFUSE_REQUIRE_PYTHON_ENV=1
# torch and transformers for the tests of the PyTorch package (python/, test/PyTorch):
# the project-local .venv-torch, installed from PyPI when missing.
AUTOFUSE_TORCH_PYTHON=$(scripts/torch-env.sh)
export AUTOFUSE_TORCH_PYTHON AUTOFUSE_REQUIRE_TORCH_ENV=1
# The tests check values on small shapes: every emulation driver they build compiles at
# -O0, which halves each compile (tests that emulate large shapes ask for -O1 themselves;
# the vendor path keeps -O1, see stages/runner/src/vendor.rs).
export AUTOFUSE_CXX_OPT=${AUTOFUSE_CXX_OPT:--O0}
echo "test: building the tools (cargo build)"
cargo build --quiet --workspace --bins
echo "test: unit tests and the lit suite (cargo test)"
cargo test --workspace
# Coverage-guided fuzzing, each target for 15 s (docs/reliability.md, "Fuzzing"): fails
# when a target panics, aborts, hangs or exceeds its memory limit.
echo "test: fuzz smoke run (scripts/fuzz.sh smoke)"
scripts/fuzz.sh smoke
# Where the time went: the ten slowest lit tests of this run (lit records each test's
# time in target/lit/.lit_test_times.txt), and the whole command's wall time.
echo "test: the ten slowest lit tests"
# (awk reads the whole list: `head` would close the pipe early, and with pipefail sort's
# SIGPIPE would fail the command after every test passed.)
sort -g -r target/lit/.lit_test_times.txt | awk 'NR <= 10 { printf "  %7.1f s  %s\n", $1, $2 }'
echo "test: all passed in $((SECONDS / 60)) min $((SECONDS % 60)) s"
