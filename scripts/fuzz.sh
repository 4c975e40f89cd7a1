#!/usr/bin/env bash
# Coverage-guided fuzzing of autofuse with libFuzzer (the libfuzzer-sys crate), on stable
# Rust: the targets in fuzz/fuzz_targets are built with LLVM's SanitizerCoverage passes
# (inline 8-bit counters, PC table, compare tracing) into target/fuzz. See
# docs/reliability.md, "Fuzzing".
#
#   scripts/fuzz.sh smoke              each target for 15 s (AUTOFUSE_FUZZ_SMOKE_SECONDS);
#                                      exit 1 when a target crashes, aborts, times out or
#                                      exceeds its memory limit
#   scripts/fuzz.sh long [seconds]     each target for `seconds` (default 600), then the
#                                      figures: execs, corpus, coverage, crashes
#   scripts/fuzz.sh run TARGET SECONDS one target
#   scripts/fuzz.sh repro TARGET FILE  runs one input (a crash artifact or a regression)
#   scripts/fuzz.sh build              only builds the targets
#
# Corpora grow in target/fuzz/corpus/<target> (seeded from the repository's tests and
# examples), crashing inputs land in target/fuzz/artifacts/<target>, logs in
# target/fuzz/logs. The build's output goes to target/fuzz/build.log.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=$root/target/fuzz
targets=(symbolic_expr npy_reader mlir_pipeline onnx_import)
mkdir -p "$out/logs"

build() {
  local host
  host=$(rustc -vV | sed -n 's/^host: //p')
  # Coverage instrumentation through stable rustc flags (what cargo-fuzz passes, minus
  # its nightly-only sanitizer flags); --target keeps the flags off build scripts and
  # proc macros.
  local flags="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4"
  flags+=" -Cllvm-args=-sanitizer-coverage-inline-8bit-counters"
  flags+=" -Cllvm-args=-sanitizer-coverage-pc-table"
  flags+=" -Cllvm-args=-sanitizer-coverage-trace-compares --cfg fuzzing"
  echo "fuzz: building the fuzz targets (log: $out/build.log)"
  if ! (cd fuzz && RUSTFLAGS="$flags" cargo build --release --bins --target "$host" \
      --target-dir "$out" >"$out/build.log" 2>&1); then
    tail -n 30 "$out/build.log" >&2
    echo "fuzz: error: building the fuzz targets failed (log: $out/build.log)" >&2
    exit 1
  fi
  bin=$out/$host/release
}

# The seed inputs of a target, linked into target/fuzz/seeds/<target>.
seeds() {
  local target=$1 dir=$out/seeds/$1
  rm -rf "$dir"
  mkdir -p "$dir"
  local files=()
  case $target in
    symbolic_expr) files=(fuzz/seeds/symbolic_expr/*) ;;
    npy_reader) mapfile -t files < <(find examples test -name '*.npy' -size -64k) ;;
    mlir_pipeline) mapfile -t files < <(find test examples -name '*.mlir' -size -16k) ;;
    onnx_import) mapfile -t files < <(find examples/onnx test/Import/onnx/Inputs -name '*.onnx' -size -256k) ;;
  esac
  files+=(fuzz/regressions/"$target"/*)
  local f
  for f in "${files[@]}"; do
    [[ -f $f ]] && cp "$f" "$dir/$(echo "$f" | tr '/' '_')"
  done
  return 0
}

# libFuzzer's options of a target: a time limit per input, a memory limit, and an input
# size limit that fits the seeds.
options() {
  local opts=(-timeout=20 -rss_limit_mb=2048 -malloc_limit_mb=2048 -print_final_stats=1)
  case $1 in
    symbolic_expr) opts+=(-max_len=256) ;;
    npy_reader) opts+=(-max_len=4096) ;;
    mlir_pipeline) opts+=(-max_len=16384) ;;
    onnx_import) opts+=(-max_len=262144) ;;
  esac
  echo "${opts[@]}"
}

# Runs one target for $2 seconds; prints one line of figures; returns its exit status.
run() {
  local target=$1 seconds=$2
  local corpus=$out/corpus/$target artifacts=$out/artifacts/$target/ log=$out/logs/$target.log
  mkdir -p "$corpus" "$artifacts"
  seeds "$target"
  local status=0
  # shellcheck disable=SC2046
  "$bin/$target" $(options "$target") -max_total_time="$seconds" \
    -artifact_prefix="$artifacts" "$corpus" "$out/seeds/$target" >"$log" 2>&1 || status=$?
  local execs cov ft corp
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1 | cut -d' ' -f2)
  ft=$(grep -o 'ft: [0-9]*' "$log" | tail -n 1 | cut -d' ' -f2)
  corp=$(grep -o 'corp: [0-9]*/[0-9]*[a-zA-Z]*' "$log" | tail -n 1 | cut -d' ' -f2)
  printf 'fuzz: %-14s %5ss  execs %-9s cov %-6s ft %-7s corpus %-12s %s\n' "$target" \
    "$seconds" "${execs:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}" \
    "$([[ $status == 0 ]] && echo ok || echo "FAILED (exit $status, log: $log)")"
  if [[ $status != 0 ]]; then
    grep -E '^(==[0-9]+== ERROR|thread .* panicked|SUMMARY|artifact_prefix|Test unit written)' "$log" | head -n 8 >&2 || true
  fi
  return "$status"
}

mode=${1:-smoke}
case $mode in
  build) build ;;
  smoke | long)
    if [[ $mode == smoke ]]; then
      seconds=${AUTOFUSE_FUZZ_SMOKE_SECONDS:-15}
    else
      seconds=${2:-600}
    fi
    build
    failed=0
    for t in "${targets[@]}"; do
      run "$t" "$seconds" || failed=1
    done
    if [[ $mode == long ]]; then
      for t in "${targets[@]}"; do
        n=$(find "$out/artifacts/$t" -type f | wc -l)
        echo "fuzz: $t: $(find "$out/corpus/$t" -type f | wc -l) corpus files, $n crash artifacts in $out/artifacts/$t"
      done
    fi
    exit "$failed"
    ;;
  run)
    build
    run "$2" "$3"
    ;;
  repro)
    build
    "$bin/$2" $(options "$2") "$3"
    ;;
  *)
    echo "usage: scripts/fuzz.sh smoke | long [seconds] | run TARGET SECONDS | repro TARGET FILE | build" >&2
    exit 2
    ;;
esac
