"""Inputs and numpy's expected outputs for i64-casts.mlir (run with the .venv python:
`python Inputs/i64_casts_data.py Inputs`; writes i64_casts.*.npy): int64 -> f32 and
int64 -> bool casts of values whose low 32 bits are zero (2^32, -2^40), the int64
extremes, 0, +-1 and ordinary ids."""
import sys
from pathlib import Path

import numpy as np

out = Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
rng = np.random.default_rng(5)
x = rng.integers(-1000, 1000, size=(3, 40), dtype=np.int64)
special = [0, 1, -1, 2**32, -(2**40), 2**63 - 1, -(2**63), 2**31, -(2**31) - 1, 0, 2**53 + 1]
x.flat[: len(special)] = special
x[2, 20:] = 0
np.save(out / "i64_casts.x.npy", x)
np.save(out / "i64_casts.f32.npy", x.astype(np.float32))
np.save(out / "i64_casts.bool.npy", x != 0)
