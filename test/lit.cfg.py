# lit configuration of the autofuse test suite (LLVM 22 lit + FileCheck).
#
# Tools are taken from AUTOFUSE_BIN_DIR (set by `cargo test`, see tools/tests/lit.rs),
# falling back to target/debug. Features: `cann` when a CANN toolchain is installed
# (ASCEND_HOME_PATH set and its bisheng/ccec compiler present); `vendor-headers` when
# the vendor's Ascend C headers are found ($AUTOFUSE_VENDOR_HEADERS, else
# ../shared/vendor/cann-8.1.RC1 next to the repository, where CI has them), with
# %vendor_headers their root and %vendor_env an `AUTOFUSE_VENDOR_HEADERS=<root>`
# prefix that makes autofuse-run check every kernel on the vendor path too (empty
# without the headers) and %vendor_env_long the same for the rest of the vendor matrix
# (empty unless AUTOFUSE_LONG_TESTS=1); `long-tests` when AUTOFUSE_LONG_TESTS=1 (the
# longer variants, which the benchmarks command runs).

import os
import shutil

import lit.formats

config.name = "autofuse"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".mlir", ".cpp", ".test"]
config.excludes = ["lit.cfg.py", "Inputs", "Output"]
config.test_source_root = os.path.dirname(__file__)
repo_root = os.path.dirname(config.test_source_root)
config.test_exec_root = os.path.join(repo_root, "target", "lit")

llvm_bin = os.environ.get("LLVM_BIN_DIR", "/usr/lib/llvm-22/bin")
bin_dir = os.environ.get("AUTOFUSE_BIN_DIR", os.path.join(repo_root, "target", "debug"))

config.environment["PATH"] = os.pathsep.join([bin_dir, llvm_bin, config.environment.get("PATH", os.environ.get("PATH", ""))])
config.environment["FILECHECK_OPTS"] = "-enable-var-scope --allow-unused-prefixes=false"
for var in ["HOME", "TMPDIR", "ASCEND_HOME_PATH", "AUTOFUSE_CACHE_DIR"]:
    if var in os.environ:
        config.environment[var] = os.environ[var]

config.substitutions.append(("%autofuse-opt", os.path.join(bin_dir, "autofuse-opt")))
config.substitutions.append(("%autofuse-translate", os.path.join(bin_dir, "autofuse-translate")))
config.substitutions.append(("%autofuse-import-onnx", os.path.join(bin_dir, "autofuse-import-onnx")))
config.substitutions.append(("%autofuse-run", os.path.join(bin_dir, "autofuse-run")))
config.substitutions.append(("%repo", repo_root))
sim_include = os.path.join(repo_root, "sim", "include")
cxx = os.environ.get("CXX", "g++")
# The tests check values, not emulation speed: their emulation C++ (the Sim tests'
# programs and every sim driver autofuse-run builds, AUTOFUSE_CXX_OPT) compiles at -O0,
# which halves each compile. A test that emulates large shapes sets -O1 itself; an
# AUTOFUSE_CXX_OPT of the caller's wins. The vendor path stays at -O1 (its API code over
# the ISA model runs many times slower unoptimised; AUTOFUSE_VENDOR_CXX_OPT).
cxx_opt = os.environ.get("AUTOFUSE_CXX_OPT") or "-O0"
config.environment["AUTOFUSE_CXX_OPT"] = cxx_opt
config.substitutions.append(("%sim_cxx", f"{cxx} -std=c++20 {cxx_opt} -Wall -Wextra -I{sim_include}"))

# The project's Python environment (scripts/python-env.sh: onnx, numpy, onnxruntime) for
# tests that write models and take onnxruntime as their reference: feature
# `python-onnxruntime`, substitution %python. scripts/test.sh creates it and sets
# AUTOFUSE_REQUIRE_PYTHON_ENV=1, so the test command never skips those tests silently.
import subprocess
python = os.environ.get("AUTOFUSE_PYTHON") or os.path.join(repo_root, ".venv", "bin", "python")
python_ok = os.path.exists(python) and subprocess.run(
    [python, "-c", "import onnx, numpy, onnxruntime"], capture_output=True).returncode == 0
if python_ok:
    config.available_features.add("python-onnxruntime")
    config.substitutions.append(("%python", python))
elif os.environ.get("AUTOFUSE_REQUIRE_PYTHON_ENV") == "1":
    lit_config.fatal(f"{python} cannot import onnx, numpy and onnxruntime (run scripts/python-env.sh)")
for var in ["AUTOFUSE_PYTHON", "AUTOFUSE_REQUIRE_PYTHON_ENV"]:
    if var in os.environ:
        config.environment[var] = os.environ[var]

# The PyTorch environment (scripts/torch-env.sh: torch, transformers) for the tests of the
# PyTorch package (python/): feature `torch`, substitution %torch_python (with the
# package on PYTHONPATH and this build's tools in AUTOFUSE_BIN_DIR). scripts/test.sh
# creates it and sets AUTOFUSE_REQUIRE_TORCH_ENV=1, so those tests never skip silently.
torch_python = os.environ.get("AUTOFUSE_TORCH_PYTHON") or os.path.join(repo_root, ".venv-torch", "bin", "python")
torch_ok = os.path.exists(torch_python) and subprocess.run(
    [torch_python, "-c", "import torch, transformers"], capture_output=True).returncode == 0
if torch_ok:
    config.available_features.add("torch")
    config.substitutions.append(("%torch_python_bare", torch_python))
    config.substitutions.append(("%torch_python", f"env PYTHONPATH={os.path.join(repo_root, 'python')} "
                                 f"AUTOFUSE_BIN_DIR={bin_dir} {torch_python}"))
    config.substitutions.append(("%bin_dir", bin_dir))
elif os.environ.get("AUTOFUSE_REQUIRE_TORCH_ENV") == "1":
    lit_config.fatal(f"{torch_python} cannot import torch and transformers (run scripts/torch-env.sh)")
for var in ["AUTOFUSE_TORCH_PYTHON", "AUTOFUSE_REQUIRE_TORCH_ENV"]:
    if var in os.environ:
        config.environment[var] = os.environ[var]

long_tests = os.environ.get("AUTOFUSE_LONG_TESTS") == "1"
if long_tests:
    config.available_features.add("long-tests")

ascend_home = os.environ.get("ASCEND_HOME_PATH")
if ascend_home and (shutil.which("bisheng") or os.path.isdir(os.path.join(ascend_home, "compiler"))):
    config.available_features.add("cann")

vendor_root = os.environ.get("AUTOFUSE_VENDOR_HEADERS") or os.path.join(
    os.path.dirname(repo_root), "shared", "vendor", "cann-8.1.RC1")
# The places below ROOT that stages/runner/src/vendor.rs (candidates) looks at.
vendor_candidates = [vendor_root, os.path.join(vendor_root, "ascendc", "include")]
for base in [vendor_root, os.path.join(vendor_root, "latest")]:
    vendor_candidates += [os.path.join(base, a, "ascendc", "include") for a in ("aarch64-linux", "x86_64-linux", "compiler", "tools")]
    vendor_candidates.append(os.path.join(base, "ascendc", "include"))
vendor_include = next((c for c in vendor_candidates
                       if os.path.isfile(os.path.join(c, "basic_api", "kernel_operator.h"))
                       and os.path.isdir(os.path.join(c, "highlevel_api"))), None)
vendor_found = vendor_include is not None
if os.environ.get("AUTOFUSE_VENDOR_HEADERS") and not vendor_found:
    lit_config.fatal(f"AUTOFUSE_VENDOR_HEADERS={vendor_root} holds no Ascend C headers (basic_api/kernel_operator.h)")
if vendor_found:
    config.available_features.add("vendor-headers")
    config.substitutions.append(("%vendor_headers", vendor_root))
    config.substitutions.append(("%vendor_env_long", f"AUTOFUSE_VENDOR_HEADERS={vendor_root}" if long_tests else ""))
    config.substitutions.append(("%vendor_env", f"AUTOFUSE_VENDOR_HEADERS={vendor_root}"))
    # g++ in the vendor headers' CPU-debug configuration over sim/vendor (what
    # autofuse-run's vendor path uses, stages/runner/src/vendor.rs).
    inc = vendor_include
    b, h = os.path.join(inc, "basic_api"), os.path.join(inc, "highlevel_api")
    dirs = [os.path.join(repo_root, "sim", "vendor", "include"), b, os.path.join(b, "impl"), os.path.join(b, "interface"),
            os.path.join(b, "impl", "dav_c220"), h, os.path.join(h, "impl"), os.path.join(h, "lib")]
    config.substitutions.append(("%vendor_cxx", f"{cxx} -std=c++17 -O1 -w -DASCENDC_CPU_DEBUG=1 -D__CCE_AICORE__=220 "
                                 f"-D__DAV_C220_VEC__=1 -DAF_VENDOR_PATH=1 " + " ".join("-I" + d for d in dirs)
                                 + " -include af_vendor_launch.h"))
else:
    config.substitutions.append(("%vendor_headers", "/nonexistent-vendor-headers"))
    config.substitutions.append(("%vendor_env_long", ""))
    config.substitutions.append(("%vendor_env", ""))
