#!/usr/bin/env bash
# Regenerates the IRDL file and the dialect/pass references from the catalogue and the
# pass registry (test/Tools/generated-docs.test fails until this is run after a change).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --quiet --bin autofuse-opt
opt=target/debug/autofuse-opt
for d in ascend ascir tiling; do
  $opt --emit-irdl=$d -o dialects/$d/$d.irdl.mlir
done
$opt --emit-pass-docs -o docs/passes.md
for d in ascend ascir tiling; do
  $opt --emit-dialect-docs=$d -o docs/dialects/$d.md
done
