#!/usr/bin/env bash
# Makes sure the project-local virtual environment .venv/ holds the pinned Python packages
# the tests and benchmarks use (onnx and numpy to write models, onnxruntime as the
# independent reference of generated models), installing them from PyPI when missing;
# prints the path of its python. pip's output goes to a log, not the screen.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.venv
requirements=(onnx==1.23.2 numpy==2.4.6 protobuf==7.36.2 ml_dtypes==0.6.0 typing_extensions==4.16.0 onnxruntime==1.32.0)
log="${TMPDIR:-/tmp}/autofuse-python-env.log"
if ! "$venv/bin/python" -c "import onnx, numpy, onnxruntime; assert onnx.__version__ == '1.23.2' and onnxruntime.__version__ == '1.32.0'" 2>/dev/null; then
  echo "python-env: installing ${requirements[*]} into $venv (log: $log)" >&2
  python3 -m venv "$venv" >>"$log" 2>&1
  if ! "$venv/bin/pip" install --disable-pip-version-check "${requirements[@]}" >>"$log" 2>&1; then
    tail -n 20 "$log" >&2
    echo "python-env: error: pip could not install the packages (log: $log)" >&2
    exit 1
  fi
fi
echo "$PWD/$venv/bin/python"
