#!/usr/bin/env bash
# The fusion-quality benchmark of issue 8 in one command: builds autofuse-run and
# autofuse-bench (release), creates .venv-bench/ with jax[cpu] and torch when missing,
# runs autofuse, XLA and Inductor on bench/quality/graphs/ and writes
# docs/benchmarks/fusion_quality.md and .svg, then the real-models section of the same
# file (below). Extra arguments go to `autofuse-bench fusion-quality` (e.g. --only
# softmax,layer_norm).
#
#   bash bench/quality/run.sh real-models [ARGS]
#
# only (re)writes the real-models section (issue 14: the ONNX exports of
# examples/onnx/real/ against Inductor on the same models): no XLA, no .venv-bench; it
# needs .venv-models/ (scripts/make-real-models.sh) for Inductor, else it uses the
# committed bench/quality/real_models_inductor.json and the section says so. ARGS go to
# `autofuse-bench real-models`.
set -euo pipefail
cd "$(dirname "$0")/../.."

real_models() {
  local args=(--autofuse-run target/release/autofuse-run)
  if ! .venv-models/bin/python -c 'import torch, transformers' >/dev/null 2>&1; then
    echo "real-models: .venv-models/ has no torch/transformers (scripts/make-real-models.sh makes it);" \
      "Inductor's figures are read from the committed bench/quality/real_models_inductor.json"
    args+=(--inductor-json bench/quality/real_models_inductor.json)
  fi
  target/release/autofuse-bench real-models "${args[@]}" --out docs/benchmarks "$@"
}

if [[ ${1:-} == real-models ]]; then
  shift
  cargo build --release -p autofuse-tools --bin autofuse-run
  cargo build --release -p autofuse-bench --bin autofuse-bench
  real_models "$@"
  exit
fi
scripts/setup.sh
cargo build --release -p autofuse-tools --bin autofuse-run
cargo build --release -p autofuse-bench --bin autofuse-bench
target/release/autofuse-bench fusion-quality --out docs/benchmarks "$@"
real_models
