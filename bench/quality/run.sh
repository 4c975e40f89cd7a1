#!/usr/bin/env bash
# The fusion-quality benchmark of issue 8 in one command: builds autofuse-run and
# autofuse-bench (release), creates .venv-bench/ with jax[cpu] and torch when missing,
# runs autofuse, XLA and Inductor on bench/quality/graphs/ and writes
# docs/benchmarks/fusion_quality.md and .svg. Extra arguments go to
# `autofuse-bench fusion-quality` (e.g. --only softmax,layer_norm).
set -euo pipefail
cd "$(dirname "$0")/../.."
scripts/setup.sh
cargo build --release -p autofuse-tools --bin autofuse-run
cargo build --release -p autofuse-bench --bin autofuse-bench
target/release/autofuse-bench fusion-quality --out docs/benchmarks "$@"
