"""torch.compile(backend="autofuse", then "autofuse-inductor") with the kernels launched
through the generated NPU glue library (AUTOFUSE_NPU=1), built by npu_emulated_build.py with the kernels on the
emulation: the glue's host tiling, workspace sizing, argument order and the Python NPU
runtime (npu.py) run for real; outputs are compared with eager at two shapes."""

from __future__ import annotations

import ctypes
import os
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).parent))
from compile_models import against_eager, block_model, vit_model  # noqa: E402

import autofuse.torch as aft  # noqa: E402
from autofuse.torch.npu import NpuLibrary  # noqa: E402


def run(name: str, backend: str = "autofuse") -> bool:
    model, inputs = vit_model() if name == "vit" else block_model(name)
    torch._dynamo.reset()
    aft.reset()
    compiled = torch.compile(model, backend=backend, dynamic=True)
    print(f"backend {backend}")
    ok = against_eager(name, model, compiled, inputs, [(2, 8), (3, 13)])
    reports = aft.reports()
    targets = sorted({r.target for r in reports if r.compiled})
    runs = sum(r.kernel_runs for r in reports)
    fallbacks = sum(r.fallback_calls for r in reports)
    print(f"{name}: targets {targets}, kernel runs {runs}, calls on torch {fallbacks}")
    sys.stdout.write(aft.report())
    return ok and targets == ["npu"] and runs > 0 and fallbacks == 0


def misuse() -> bool:
    """The glue's C interface refuses what it cannot do, with a reason."""
    (path,) = list(NpuLibrary._loaded)[-1:]
    lib = NpuLibrary.load(path).lib
    buffers = (ctypes.c_void_p * 1)()
    code = lib.af_npu_launch(b"afk_no_such_kernel", None, 1, buffers, 0, None, None)
    print(f"unknown kernel: code {code}: {lib.af_npu_last_error().decode()}")
    name = next(iter(NpuLibrary.load(path).tilings))[0].encode()
    code = lib.af_npu_launch(name, None, 1, buffers, 1, None, None)
    print(f"wrong buffer count: code {code}: {lib.af_npu_last_error().decode()}")
    size, block, ws = ctypes.c_uint64(), ctypes.c_uint32(), ctypes.c_uint64()
    sym = (ctypes.c_int64 * 4)(2, 8, 0, 0)
    code = lib.af_npu_tiling(name, sym, 0, 0, None, 0, ctypes.byref(size), ctypes.byref(block), ctypes.byref(ws))
    print(f"wrong symbol count: code {code}: {lib.af_npu_last_error().decode()}")
    return True


def main() -> int:
    assert os.environ.get("AUTOFUSE_NPU") == "1", "run with AUTOFUSE_NPU=1"
    ok = all([run("mlp"), run("attention")])
    misuse()
    # Route 2: Inductor's fused nodes, each launched through the glue into its part of
    # Inductor's buffers (output addresses at the store's offset; ViT's class token and
    # patch embeddings are stored by two kernels into one buffer).
    ok &= all([run(name, "autofuse-inductor") for name in ("mlp", "attention", "vit")])
    print("== PASS" if ok else "== FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
