"""The NPU path: the compiled graph's kernels built by CANN and launched on the current
NPU stream through the generated glue library (``autofuse-run --emit-library`` writes
its sources to ``<build>/npu``; ``stages/runner/src/npu.rs``).

Per kernel call: the glue's host tiling (``af_npu_tiling``) for the call's symbol
values gives the tiling data, the block dim and the workspace bytes; the tiling data
goes to a device buffer through torch (ordered on the current stream, and kept per
symbol values, so a shape seen before costs no copy); the workspace and the outputs
are torch tensors on the inputs' device (torch's caching allocator); the launch
(``af_npu_launch``) goes to the raw ACL stream of torch_npu's current stream, taken
with the call that first drains torch_npu's task queue, so the kernel is ordered after
every torch op issued before it.

Building the glue needs CANN (``ASCEND_HOME_PATH``, from ``<CANN>/set_env.sh``) and
CMake; ``AUTOFUSE_NPU_BUILD`` names another builder (a command taking the tree and the
library path to write; the tests build the glue with the kernels on the emulation).
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import shlex
import subprocess
from pathlib import Path

import torch

from .runtime import KernelError, LaunchRecord

GLUE_NAME = "libautofuse_npu_glue.so"


class NpuBuildError(RuntimeError):
    """The glue library could not be built (no CANN, or the build failed)."""


def tree_digest(tree: Path) -> str:
    """A digest of every file of `tree` (names and contents)."""
    h = hashlib.sha256()
    for path in sorted(p for p in tree.rglob("*") if p.is_file()):
        h.update(str(path.relative_to(tree)).encode() + b"\0")
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def build_glue(tree: Path, builds: Path) -> Path:
    """Builds the glue library of the NPU tree `tree` under `builds`, once per content
    of the tree (a later compile of the same graph reuses it), and returns its path."""
    build = builds / tree_digest(tree)
    target = build / "lib" / GLUE_NAME
    if target.is_file():
        return target
    builder = os.environ.get("AUTOFUSE_NPU_BUILD")
    if builder:
        cmds = [shlex.split(builder) + [str(tree), str(target)]]
    else:
        if not os.environ.get("ASCEND_HOME_PATH"):
            raise NpuBuildError(
                "building the NPU kernels needs CANN: source <CANN>/set_env.sh (ASCEND_HOME_PATH is not set)"
            )
        cmds = [
            ["cmake", "-S", str(tree), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release"],
            ["cmake", "--build", str(build), "--target", "autofuse_npu_glue", "-j", str(os.cpu_count() or 2)],
        ]
    for cmd in cmds:
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            log = (done.stderr or done.stdout).strip().splitlines()[-20:]
            raise NpuBuildError(f"{' '.join(cmd)} failed:\n" + "\n".join(log))
    if not target.is_file():
        raise NpuBuildError(f"the build wrote no {target}")
    return target


def raw_stream(device: torch.device) -> int:
    """The ACL stream of the current torch stream on `device`, after torch_npu's task
    queue has drained (0 off the NPU: the emulated glue ignores it)."""
    if device.type != "npu":
        return 0
    from torch._dynamo.device_interface import get_interface_for_device

    return int(get_interface_for_device("npu").get_raw_stream(device.index or 0))


class NpuLibrary:
    """The glue library of one compiled graph, loaded once per path; ``run`` has the
    emulation library's signature (``runtime.Library.run``)."""

    _loaded: dict[str, "NpuLibrary"] = {}

    def __init__(self, path: str):
        self.lib = ctypes.CDLL(path)
        lib = self.lib
        lib.af_npu_tiling.restype = ctypes.c_int
        lib.af_npu_tiling.argtypes = [
            ctypes.c_char_p, ctypes.POINTER(ctypes.c_int64), ctypes.c_int, ctypes.c_uint32,
            ctypes.c_void_p, ctypes.c_uint64, ctypes.POINTER(ctypes.c_uint64),
            ctypes.POINTER(ctypes.c_uint32), ctypes.POINTER(ctypes.c_uint64),
        ]
        lib.af_npu_launch.restype = ctypes.c_int
        lib.af_npu_launch.argtypes = [
            ctypes.c_char_p, ctypes.c_void_p, ctypes.c_uint32, ctypes.POINTER(ctypes.c_void_p),
            ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p,
        ]
        lib.af_npu_output_dims.restype = ctypes.c_int
        lib.af_npu_output_dims.argtypes = [
            ctypes.c_char_p, ctypes.POINTER(ctypes.c_int64), ctypes.c_int, ctypes.POINTER(ctypes.c_int64),
        ]
        lib.af_npu_last_error.restype = ctypes.c_char_p
        # (kernel, symbol values, device) -> (tiling on the device, block dim, workspace bytes)
        self.tilings: dict[tuple, tuple[torch.Tensor, int, int]] = {}

    @classmethod
    def load(cls, path: str) -> "NpuLibrary":
        if path not in cls._loaded:
            cls._loaded[path] = NpuLibrary(path)
        return cls._loaded[path]

    def _error(self) -> str:
        return self.lib.af_npu_last_error().decode(errors="replace")

    def tiling(self, symbol: str, sym_values: list[int], device: torch.device):
        key = (symbol, tuple(sym_values), str(device))
        if key not in self.tilings:
            sym = (ctypes.c_int64 * max(1, len(sym_values)))(*sym_values)
            host = (ctypes.c_uint8 * 65536)()
            size, block_dim, workspace = ctypes.c_uint64(), ctypes.c_uint32(), ctypes.c_uint64()
            code = self.lib.af_npu_tiling(
                symbol.encode(), sym, len(sym_values), 0, ctypes.cast(host, ctypes.c_void_p), len(host),
                ctypes.byref(size), ctypes.byref(block_dim), ctypes.byref(workspace),
            )
            if code != 0:
                raise KernelError(f"{symbol}: tiling: code {code}: {self._error()}")
            data = torch.frombuffer(bytearray(bytes(host)[: size.value]), dtype=torch.uint8)
            self.tilings[key] = (data.to(device), int(block_dim.value), int(workspace.value))
        return self.tilings[key]

    def output_dims(self, symbol: str, sym_values: list[int], output: int) -> list[int]:
        sym = (ctypes.c_int64 * max(1, len(sym_values)))(*sym_values)
        dims = (ctypes.c_int64 * 16)()
        rank = self.lib.af_npu_output_dims(symbol.encode(), sym, output, dims)
        if rank < 0:
            raise KernelError(f"{symbol}: no output {output}")
        return [int(dims[i]) for i in range(rank)]

    def run(self, kernel: dict, sym_values: list[int], inputs: list[torch.Tensor], output_dtypes, name: str):
        symbol = kernel["symbol"]
        device = inputs[0].device if inputs else torch.device("cpu")
        outputs = [
            torch.empty(self.output_dims(symbol, sym_values, i), dtype=dt, device=device)
            for i, dt in enumerate(output_dtypes)
        ]
        self.launch(symbol, sym_values, device, [t.data_ptr() for t in inputs],
                    [t.data_ptr() for t in outputs], name)
        # The device counts no bytes for us; the chip model's figures are the emulation's.
        return outputs, LaunchRecord(name, 0, 0, 0.0)

    def launch(self, symbol: str, sym_values: list[int], device: torch.device, inputs: list[int],
               outputs: list[int], name: str) -> None:
        """Launches kernel `symbol` on `device`'s current stream with device addresses of
        its inputs and outputs (route 2 passes addresses inside Inductor's buffers)."""
        tiling, block_dim, workspace_bytes = self.tiling(symbol, sym_values, device)
        # An empty workspace still gets a valid address.
        workspace = torch.empty(max(1, workspace_bytes), dtype=torch.uint8, device=device)
        buffers = list(inputs) + list(outputs)
        array = (ctypes.c_void_p * max(1, len(buffers)))(*buffers)
        code = self.lib.af_npu_launch(
            symbol.encode(), ctypes.c_void_p(raw_stream(device)), block_dim, array, len(buffers),
            ctypes.c_void_p(workspace.data_ptr()), ctypes.c_void_p(tiling.data_ptr()),
        )
        if code != 0:
            raise KernelError(f"kernel @{name} ({symbol}): code {code}: {self._error()}")
