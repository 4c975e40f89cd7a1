#!/usr/bin/env bash
# Runs the benchmark suite and writes the tables and plots into docs/benchmarks/.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cargo build --release --bin autofuse-opt --bin autofuse-bench
target/release/autofuse-bench compile-speed --opt target/release/autofuse-opt --out docs/benchmarks "$@"
