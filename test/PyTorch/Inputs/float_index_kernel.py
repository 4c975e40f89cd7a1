"""The AscGraph of a recorded kernel adding float index expressions (Inductor writes them
with sympy Floats in Wav2Vec2's feature encoder) to a load: a constant 0.5 and 2.0*z0.
Prints the scalar, the arange's view and the adds, or why the emitter refuses the
kernel."""

import sympy
import torch

from autofuse.torch.ascgraph import kernel_text
from autofuse.torch.loop_ir import LoopKernel, LVal, Store
from autofuse.torch.symbolic import Unsupported

kernel = LoopKernel("k0", [sympy.Integer(8)], 0)
(z0,) = kernel.axis_symbols()
x = LVal("load", ("buf0", z0), torch.float32)
kernel.loads.append(x)
kernel.reads.append("buf0")
total = LVal("call", ("add", x, LVal("index", (sympy.Float(0.5),), torch.float32)), torch.float32)
total = LVal("call", ("add", total, LVal("index", (sympy.Float(2.0) * z0,), torch.float32)), torch.float32)
kernel.stores.append(Store("buf1", z0, total, False))
kernel.storage = {"buf0": (torch.float32, 8), "buf1": (torch.float32, 8)}
try:
    text = kernel_text(kernel, lambda b: kernel.storage[b]).text
    for line in text.splitlines():
        if "ascir.scalar" in line:
            print("scalar", line.split('value = "')[1].split('"')[0])
        elif "ascir.add" in line:
            print("add")
        elif "ascir.arange" in line:
            print("arange", line.split("view = ")[1].split(">")[0])
except Unsupported as why:
    print(f"refused: {why}")
