# lit configuration of the autofuse test suite (LLVM 22 lit + FileCheck).
#
# Tools are taken from AUTOFUSE_BIN_DIR (set by `cargo test`, see tools/tests/lit.rs),
# falling back to target/debug. Features: `cann` when a CANN toolchain is installed
# (ASCEND_HOME_PATH set and its bisheng/ccec compiler present).

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
config.substitutions.append(("%sim_cxx", f"{cxx} -std=c++20 -O1 -Wall -Wextra -I{sim_include}"))

ascend_home = os.environ.get("ASCEND_HOME_PATH")
if ascend_home and (shutil.which("bisheng") or os.path.isdir(os.path.join(ascend_home, "compiler"))):
    config.available_features.add("cann")
