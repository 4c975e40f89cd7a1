#!/usr/bin/env bash
# Regenerates examples/onnx/real/ (tiny BERT, GPT-2, LLaMA, Qwen2, GPT-NeoX, ViT, Whisper's
# encoder, T5's encoder and BLOOM with random seeded weights, exported by both torch ONNX
# exporters with dynamic batch/seq (batch only for ViT and Whisper), plus inputs and
# onnxruntime outputs, manifest.json), then bench/quality/real_models_inductor.json
# (Inductor's kernels and GM bytes on the same models). Arguments go to the export script
# (e.g. --only bert,llama); --no-inductor skips the Inductor step.
# Creates the project-local venv .venv-models/ (CPU torch, transformers, onnx, onnxruntime,
# onnxscript, numpy) when missing; pip's output goes to .venv-models/setup.log.
# Not needed by the tests: the outputs are committed.
set -euo pipefail
cd "$(dirname "$0")/.."

venv=.venv-models
log=$venv/setup.log
python=${PYTHON:-python3}

if [[ ! -x $venv/bin/python ]]; then
  echo "make-real-models: creating $venv"
  "$python" -m venv "$venv"
fi
py=$venv/bin/python
: >>"$log"

can_import() { "$py" -c "import $1" >/dev/null 2>&1; }
pip_install() { "$py" -m pip install --disable-pip-version-check --retries 1 --timeout 60 "$@" >>"$log" 2>&1; }

if ! can_import torch; then
  echo "make-real-models: installing torch (CPU wheel index when reachable, else PyPI; log: $log)"
  if ! pip_install torch --index-url https://download.pytorch.org/whl/cpu; then
    echo "make-real-models: the CPU wheel index is not reachable; installing torch from PyPI"
    pip_install torch
  fi
fi
for module_package in transformers:transformers onnx:onnx onnxruntime:onnxruntime onnxscript:onnxscript numpy:numpy; do
  module=${module_package%%:*}
  package=${module_package#*:}
  if ! can_import "$module"; then
    echo "make-real-models: installing $package (log: $log)"
    pip_install "$package"
  fi
done
echo "make-real-models: $("$py" -c 'import torch, transformers, onnx, onnxruntime, onnxscript, numpy; print("torch", torch.__version__, "transformers", transformers.__version__, "onnx", onnx.__version__, "onnxruntime", onnxruntime.__version__, "onnxscript", onnxscript.__version__, "numpy", numpy.__version__)')"

inductor=1
args=()
for a in "$@"; do
  if [[ $a == --no-inductor ]]; then inductor=0; else args+=("$a"); fi
done

echo "make-real-models: exporting examples/onnx/real/"
"$py" examples/onnx/export_real_models.py "${args[@]}"
if ((inductor)); then
  echo "make-real-models: measuring Inductor on the same models (bench/quality/real_models_inductor.json)"
  "$py" bench/quality/real_models_inductor.py
fi
