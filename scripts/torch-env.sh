#!/usr/bin/env bash
# Makes sure the project-local virtual environment .venv-torch/ holds the pinned
# PyTorch stack the tests of the PyTorch package use (python/, docs/pytorch.md): torch
# (CPU use; PyPI's wheel), transformers for the model families' configs, numpy.
# Installs from PyPI when missing (pip's cache keeps reruns fast); prints the path of
# its python. pip's output goes to a log, not the screen.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.venv-torch
requirements=(torch==2.15.0 transformers==5.25.0 numpy==2.4.6)
log="${TMPDIR:-/tmp}/autofuse-torch-env.log"
if ! "$venv/bin/python" -c "import torch, transformers; assert torch.__version__.split('+')[0] == '2.15.0' and transformers.__version__ == '5.25.0'" 2>/dev/null; then
  echo "torch-env: installing ${requirements[*]} into $venv (a few GB from PyPI; log: $log)" >&2
  python3 -m venv "$venv" >>"$log" 2>&1
  if ! "$venv/bin/pip" install --disable-pip-version-check "${requirements[@]}" >>"$log" 2>&1; then
    tail -n 20 "$log" >&2
    echo "torch-env: error: pip could not install the packages (log: $log)" >&2
    exit 1
  fi
fi
echo "$PWD/$venv/bin/python"
