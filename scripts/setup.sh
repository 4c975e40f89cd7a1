#!/usr/bin/env bash
# Installs what autofuse needs on Debian 12 (bookworm), only what is missing.
# Idempotent: a second run installs nothing. Needs root or sudo when something is missing.
set -euo pipefail

packages=(
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools libpolly-22-dev libclang-22-dev
  libzstd-dev libz3-dev libxml2-dev zlib1g-dev g++ python3 python3-venv cmake
  # The sanitizer runtimes of the sanitized kernel run (test/Tools/autofuse-run-sanitize.test);
  # gcc 12 pulls them in, they are listed so that nothing depends on that.
  libasan8 libubsan1
  # ps, by the test that no compiler outlives its killed build (autofuse-run-kernel.test).
  procps
  # dot, which draws the --dump-fusion pictures (DOT to SVG; test/Tools/dump-fusion*.test).
  graphviz
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

# The package manager's own output goes to this log, not to the screen; it is printed
# when a step fails.
log="${AUTOFUSE_SETUP_LOG:-${TMPDIR:-/tmp}/autofuse-setup.log}"
: >"$log"

if ((${#missing[@]})); then
  echo "setup: installing ${#missing[@]} missing Debian packages: ${missing[*]} (log: $log)"
  if [[ $(id -u) -eq 0 ]]; then
    apt_get=(apt-get)
  elif command -v sudo >/dev/null 2>&1; then
    apt_get=(sudo apt-get)
  else
    echo "setup: error: these packages are missing and installing them needs root (or sudo): ${missing[*]}" >&2
    exit 1
  fi
  echo "setup: apt-get update"
  if ! DEBIAN_FRONTEND=noninteractive "${apt_get[@]}" update -qq >>"$log" 2>&1; then
    tail -n 20 "$log" >&2
    echo "setup: error: 'apt-get update' failed; check the network or the apt sources (log: $log)" >&2
    exit 1
  fi
  echo "setup: apt-get install (${#missing[@]} packages and their dependencies)"
  if ! DEBIAN_FRONTEND=noninteractive "${apt_get[@]}" install -y -qq --no-install-recommends "${missing[@]}" >>"$log" 2>&1; then
    tail -n 20 "$log" >&2
    echo "setup: error: could not install: ${missing[*]} (LLVM 22 comes from bookworm-security / bookworm-backports; log: $log)" >&2
    exit 1
  fi
  echo "setup: packages installed"
else
  echo "setup: every Debian package is installed"
fi

if ! command -v cargo >/dev/null 2>&1; then
  echo "setup: error: cargo is not on PATH; install the Rust toolchain (rustup) first" >&2
  exit 1
fi
if [[ ! -x /usr/lib/llvm-22/bin/lit || ! -x /usr/lib/llvm-22/bin/FileCheck ]]; then
  echo "setup: error: lit/FileCheck not found in /usr/lib/llvm-22/bin (package llvm-22-tools)" >&2
  exit 1
fi
