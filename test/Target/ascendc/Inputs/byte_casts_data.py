"""Inputs and numpy's expected outputs for byte-casts.mlir (run with the .venv python:
`python Inputs/byte_casts_data.py Inputs`): f32 -> uint8/int8 casts truncate toward zero
and saturate to the byte's range, NaN gives 0 (ascend.cast's semantics)."""
import sys
from pathlib import Path

import numpy as np

out = Path(sys.argv[1])
rng = np.random.default_rng(3)
x = rng.uniform(-400, 400, size=(4, 40)).astype(np.float32)
x.flat[:12] = [np.nan, np.inf, -np.inf, 0.0, -0.0, 0.99, -0.99, 255.9, 256.0, -128.9, 127.99, -129.0]
np.save(out / "byte_casts.x.npy", x)


def saturate(v, lo, hi):
    finite = np.nan_to_num(v, nan=0.0, posinf=1e30, neginf=-1e30)
    return np.clip(np.trunc(finite), lo, hi)


np.save(out / "byte_casts.u8.npy", saturate(x, 0, 255).astype(np.uint8))
np.save(out / "byte_casts.i8.npy", saturate(x, -128, 127).astype(np.int8))
