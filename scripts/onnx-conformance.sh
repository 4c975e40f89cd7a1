#!/usr/bin/env bash
# ONNX backend node conformance: creates the project-local virtual environment .venv/
# with the pinned onnx, numpy and onnxruntime (scripts/python-env.sh) if it is missing, builds the tools, and runs
# scripts/onnx_conformance.py, which rewrites docs/onnx-conformance.md. Extra arguments
# go to the runner (e.g. --filter=softmax -v, --no-report).
# Exit code: 0 when every applicable case passes, 1 otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."

python=$(scripts/python-env.sh)

if [[ -z "${AUTOFUSE_BIN_DIR:-}" ]]; then
  cargo build --quiet --workspace --bins
  AUTOFUSE_BIN_DIR=target/debug
fi
exec "$python" scripts/onnx_conformance.py --bin-dir="$AUTOFUSE_BIN_DIR" "$@"
