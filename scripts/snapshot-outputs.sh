#!/usr/bin/env bash
# Writes what the compiler produces for every bundled example into OUT_DIR: the imported
# IR (ONNX models), the IR after the full pipeline with its remarks, the generated Ascend
# C tree, and autofuse-run's JSON report (kernels, GM bytes, PASS per shape; no timings).
# Two snapshots of two builds compare with `diff -r`: a change that must not alter
# behaviour (a refactoring) leaves them byte-identical.
#
#   scripts/snapshot-outputs.sh OUT_DIR [BIN_DIR]     (BIN_DIR defaults to target/debug)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/snapshot-outputs.sh OUT_DIR [BIN_DIR]}
bin=${2:-target/debug}
pipeline=(--infer-symbolic-shapes --decompose --narrow-index-types --lower-to-ascir --fuse --schedule --auto-tiling)
rm -rf "$out"
mkdir -p "$out"
for example in examples/*.mlir examples/layout/*.mlir examples/onnx/*.onnx examples/onnx/real/*.onnx; do
  name=${example#examples/}
  name=${name//\//_}
  dir="$out/$name"
  mkdir -p "$dir"
  input=$example
  if [[ $example == *.onnx ]]; then
    "$bin/autofuse-import-onnx" "$example" -o "$dir/imported.mlir" 2> "$dir/import.stderr"
    input="$dir/imported.mlir"
  fi
  # Locations name the input file: read it from stdin so that both snapshots agree.
  "$bin/autofuse-opt" "${pipeline[@]}" < "$input" > "$dir/pipeline.mlir" 2> "$dir/pipeline.stderr" || echo "exit $?" >> "$dir/pipeline.stderr"
  "$bin/autofuse-translate" --mlir-to-ascendc -o "$dir/ascendc" < "$dir/pipeline.mlir" 2> "$dir/translate.stderr" || true
  "$bin/autofuse-run" "$example" --report-json "$dir/report.json" > /dev/null 2> "$dir/run.stderr" || echo "exit $?" >> "$dir/run.stderr"
  echo "snapshot: $example"
done
