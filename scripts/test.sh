#!/usr/bin/env bash
# Runs every test: installs what is missing, then the unit tests and the lit suite
# (the lit suite runs inside `cargo test`, see tools/tests/lit.rs).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
echo "test: building the tools (cargo build)"
cargo build --quiet --workspace --bins
echo "test: unit tests and the lit suite (cargo test)"
cargo test --workspace
