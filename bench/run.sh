#!/usr/bin/env bash
# Runs the whole benchmark suite of issue 8 and writes the tables and plots into
# docs/benchmarks/: compile speed and scaling, fusion quality against XLA (jax on CPU)
# and PyTorch Inductor (creates .venv-bench/ with both on first use) plus its real-models
# section (the ONNX exports of examples/onnx/real/ against Inductor on the same models, in
# .venv-models/; `bash bench/quality/run.sh real-models` redoes only that), kernel quality under
# the chip model with the emulated fused/unfused ratio, and the criterion micro-benchmarks.
# Extra arguments go to `autofuse-bench compile-speed` (e.g. --sizes 10,100,1000).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cargo build --release --bin autofuse-opt --bin autofuse-run --bin autofuse-bench
target/release/autofuse-bench compile-speed --opt target/release/autofuse-opt --out docs/benchmarks "$@"
bash bench/quality/run.sh
target/release/autofuse-bench kernel-quality --out docs/benchmarks
cargo bench -p autofuse-bench --bench hot_paths -- --quick 2>/dev/null | tee docs/benchmarks/micro_latest.txt
# Compile time against XLA on the same generated graphs (needs .venv-bench from above).
.venv-bench/bin/python bench/quality/xla_compile.py target/release/autofuse-opt docs/benchmarks/xla_compile.md 100 1000 10000
# Real-size models: compile cost against weight bytes, runs at hidden 64 to 4096.
bash bench/real_size.sh
# The longer test variants (lit feature `long-tests`), kept out of the test command.
AUTOFUSE_LONG_TESTS=1 cargo test -p autofuse-tools --test integration
