"""Inputs and numpy's expected outputs for ieee-tests.mlir (run with the .venv python: `python Inputs/ieee_tests_data.py Inputs`; writes ieee_tests.*.npy): isnan, isfinite and sign of
a 4x40 f32 tensor holding NaN, +-inf, +-0, subnormals and ordinary values."""
import sys
from pathlib import Path

import numpy as np

out = Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
rng = np.random.default_rng(7)
x = rng.normal(scale=3.0, size=(4, 40)).astype(np.float32)
special = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-45, -1e-45, 3.4e38, -3.4e38, 1.0, -1.0],
                   dtype=np.float32)
x.flat[: special.size] = special
x.flat[100:103] = [np.nan, -np.inf, 0.0]
np.save(out / "ieee_tests.x.npy", x)
np.save(out / "ieee_tests.isnan.npy", np.isnan(x))
np.save(out / "ieee_tests.isfinite.npy", np.isfinite(x))
np.save(out / "ieee_tests.sign.npy", np.sign(x).astype(np.float32))
