#!/usr/bin/env bash
# ONNX backend node conformance: creates the project-local virtual environment .venv/
# with the pinned onnx and numpy (from PyPI) if it is missing, builds the tools, and runs
# scripts/onnx_conformance.py, which rewrites docs/onnx-conformance.md. Extra arguments
# go to the runner (e.g. --filter=softmax -v, --no-report).
# Exit code: 0 when every applicable case passes, 1 otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."

venv=.venv
requirements=(onnx==1.23.2 numpy==2.4.6 protobuf==7.36.2 ml_dtypes==0.6.0 typing_extensions==4.16.0)
if ! "$venv/bin/python" -c "import onnx, numpy; assert onnx.__version__ == '1.23.2'" 2>/dev/null; then
  echo "onnx-conformance: creating $venv with ${requirements[*]}"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "${requirements[@]}"
fi

if [[ -z "${AUTOFUSE_BIN_DIR:-}" ]]; then
  cargo build --quiet --workspace --bins
  AUTOFUSE_BIN_DIR=target/debug
fi
exec "$venv/bin/python" scripts/onnx_conformance.py --bin-dir="$AUTOFUSE_BIN_DIR" "$@"
