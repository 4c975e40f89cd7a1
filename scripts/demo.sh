#!/usr/bin/env bash
# The main job: the demo pipeline on a bundled example graph, printing the IR after
# every stage.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cargo build --quiet --bin autofuse-opt
example=${1:-examples/softmax.mlir}
echo "== input: $example"
cat "$example"
echo "== pipeline (IR after each pass on stderr)"
target/debug/autofuse-opt "$example" --mlir-print-ir-after-all \
  --pass-pipeline='builtin.module(infer-symbolic-shapes,decompose,lower-to-ascir)'
