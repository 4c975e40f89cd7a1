"""Inputs and numpy's expected outputs for pow-mod.mlir (run with the .venv python:
`python Inputs/pow_mod_data.py Inputs`; writes pow_mod.*.npy): np.power and np.mod of f32
and f16 tensors with a tensor exponent / divisor, holding the cases their forms must get
right (integral and fractional exponents of either sign, negative bases, 0, 1 and -1,
0^0, exponents past the product path's bound; remainders of both signs, divisors of
+-inf, quotients near integers)."""
import sys
from pathlib import Path

import numpy as np

out = Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
rng = np.random.default_rng(11)

# pow: bases in [-3, 3], exponents integral in [-6, 6] or fractional in [-2.5, 2.5].
base = rng.uniform(-3.0, 3.0, size=(4, 40)).astype(np.float32)
exponent = rng.integers(-6, 7, size=(4, 40)).astype(np.float32)
fractional = rng.uniform(-2.5, 2.5, size=(4, 40)).astype(np.float32)
exponent[1] = fractional[1]
# Integral bases with integral exponents must be exact (2^5 = 32).
base[2, :20] = rng.integers(-3, 4, size=20).astype(np.float32)
special = [(0.0, 0.0), (0.0, 2.0), (0.0, -1.0), (1.0, 7.5), (-1.0, 5.0), (-1.0, 4.0),
           (-2.0, 0.5), (2.0, 5.0), (3.0, 6.0), (-2.0, 3.0), (1.5, 33.0), (-1.25, 35.0),
           (0.9, 40.0), (2.0, -3.0), (-2.0, -3.0), (np.nan, 0.0), (4.0, 0.5)]
for k, (x, y) in enumerate(special):
    base[3, k], exponent[3, k] = x, y
with np.errstate(all="ignore"):
    power = np.power(base, exponent)
np.save(out / "pow_mod.base.npy", base)
np.save(out / "pow_mod.exponent.npy", exponent)
np.save(out / "pow_mod.pow.npy", power.astype(np.float32))
base16 = base.astype(np.float16)
exponent16 = exponent.astype(np.float16)
with np.errstate(all="ignore"):
    power16 = np.power(base16.astype(np.float32), exponent16.astype(np.float32)).astype(np.float16)
np.save(out / "pow_mod.pow16.npy", power16)

# mod: dividends in [-10, 10], divisors of either sign away from 0.
dividend = rng.uniform(-10.0, 10.0, size=(4, 40)).astype(np.float32)
divisor = (rng.uniform(0.5, 4.0, size=(4, 40)) * rng.choice([-1.0, 1.0], size=(4, 40))).astype(np.float32)
pairs = [(0.0, -2.0), (-3.0, np.inf), (3.0, np.inf), (-1.0, -np.inf), (1.0, -np.inf),
         (0.3, 0.1), (-0.3, 0.1), (6.0, 3.0), (-6.0, 3.0), (7.5, -2.5), (5.0, 8.0)]
for k, (x, y) in enumerate(pairs):
    dividend[3, k], divisor[3, k] = x, y
np.save(out / "pow_mod.dividend.npy", dividend)
np.save(out / "pow_mod.divisor.npy", divisor)
np.save(out / "pow_mod.mod.npy", np.mod(dividend, divisor).astype(np.float32))
np.save(out / "pow_mod.mod16.npy",
        np.mod(dividend.astype(np.float16), divisor.astype(np.float16)).astype(np.float16))
