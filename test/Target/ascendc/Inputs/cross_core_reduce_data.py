"""Inputs and numpy's expected outputs for cross-core-reduce.mlir (run with the .venv
python: `python Inputs/cross_core_reduce_data.py Inputs`): the column sum, column max
and column mean (over the outer axis) of -x, for a tall x (600 x 16, the cross-core
case under the test's 16 KiB UB and 8 cores) and a short one (5 x 16, one tile)."""
import sys
from pathlib import Path

import numpy as np

out = Path(sys.argv[1])
rng = np.random.default_rng(18)
for rows in (600, 5):
    x = rng.uniform(-1.0, 1.0, size=(rows, 16)).astype(np.float32)
    n = -x.astype(np.float64)
    np.save(out / f"cross_core.x{rows}.npy", x)
    np.save(out / f"cross_core.sum{rows}.npy", n.sum(axis=0, keepdims=True).astype(np.float32))
    np.save(out / f"cross_core.max{rows}.npy", n.max(axis=0, keepdims=True).astype(np.float32))
    np.save(out / f"cross_core.mean{rows}.npy", n.mean(axis=0).astype(np.float32))
