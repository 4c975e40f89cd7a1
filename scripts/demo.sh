#!/usr/bin/env bash
# The main job: every bundled example graph compiled end to end — symbolic shapes,
# decomposition, lowering to AscIR, fusion, schedule, auto-tiling, Ascend C — built with
# g++ against the CPU emulation of Ascend C (sim/include), run for two shapes of the same
# build, and compared with the reference interpreter. Prints one summary per example
# (kernels, GM bytes measured vs unfused vs minimum, max error, PASS/FAIL) and writes the
# generated Ascend C sources to out/<example>/ (one directory per kernel, with CMake for
# the CANN toolchain). Then one real model exported from PyTorch (ONNX), run against
# onnxruntime's outputs.
#
#   bash scripts/demo.sh                      # every example in examples/
#   bash scripts/demo.sh examples/softmax.mlir
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cargo build --quiet --bin autofuse-opt --bin autofuse-translate --bin autofuse-run
if (($#)); then
  examples=("$@")
else
  examples=(examples/*.mlir)
fi
status=0
for example in "${examples[@]}"; do
  name=$(basename "$example" .mlir)
  echo
  echo "=================================================================="
  awk '/^\/\// && shown++ < 4' "$example"
  # Two shapes of one compiled kernel set: a small one with unaligned tails (every
  # symbol 3), and a larger one whose first symbol (the batch or row count: b, s0) is
  # 301, spread over every core, the others 5 (all at 301 would make the attention-sized
  # examples hundreds of millions of elements). Each example gets exactly its own
  # symbols, those of its entry graph from --list-symbols (autofuse-run refuses unknown
  # and missing ones); a static graph runs once.
  if ! symbols=$(target/debug/autofuse-run "$example" --list-symbols); then
    status=1
    continue
  fi
  shapes=()
  if [[ -n "$symbols" ]]; then
    small="" large=""
    for symbol in $symbols; do
      small+="${small:+,}$symbol=3"
      large+="${large:+,}$symbol=$([[ -z "$large" ]] && echo 301 || echo 5)"
    done
    shapes=(--symbols "$small" --symbols "$large")
  fi
  if ! target/debug/autofuse-run "$example" "${shapes[@]}" --out "out/$name"; then
    status=1
  fi
done
# One real exported model: a tiny LLaMA (grouped-query attention, rotary embeddings)
# from `transformers`, exported by torch's dynamo exporter with dynamic batch and
# sequence (examples/onnx/real/, see scripts/make-real-models.sh). It is imported with
# its shape subgraphs folded to symbols, compiled once, and run at three (batch, seq)
# pairs; the outputs are compared with the interpreter's and with onnxruntime's.
if (($# == 0)); then
  real=examples/onnx/real
  echo
  echo "=================================================================="
  echo "// A real export: $real/llama.dynamo.onnx (torch.onnx.export, dynamo, dynamic batch/seq)"
  runs=()
  for shape in b1s7 b2s16 b3s33; do
    runs+=(--inputs "$real/llama.$shape.input_ids.npy" --expect "$real/llama.dynamo.$shape.output0.npy")
  done
  if ! target/debug/autofuse-run "$real/llama.dynamo.onnx" "${runs[@]}" --out out/llama; then
    status=1
  fi
fi
echo
echo "Generated Ascend C: out/<example>/<kernel>/<kernel>.cpp (+ _tiling.h, _tiling.cpp, CMakeLists.txt)."
exit $status
