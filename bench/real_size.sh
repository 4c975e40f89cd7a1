#!/usr/bin/env bash
# The real-size benchmark (bench/real_size.py): compile cost and runs of LLaMA-pattern
# models from hidden 64 to 4096 and a 7B-shaped model; rewrites docs/benchmarks/real_size.md.
# Creates the project-local .venv with onnx, numpy and onnxruntime if missing
# (scripts/python-env.sh). Generated models go to target/real-size/ (several GB while
# it runs; the weight files are removed at the end).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
python=$(scripts/python-env.sh)
cargo build --release --quiet --bin autofuse-opt --bin autofuse-run --bin autofuse-import-onnx --bin autofuse-translate
exec "$python" bench/real_size.py "$@"
