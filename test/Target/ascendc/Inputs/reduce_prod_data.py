"""Inputs and expected outputs of reduce-prod-rows.mlir as .npy files, computed with
Python floats independently of the compiler. Every input is -2, -1, -0.5, 0.5, 1 or 2
(and a few zeros), so each product (in any order) is an exact power of two in f32 and
f16; a row holds at most 10 factors of 2 or 0.5 in the f16 case, so no partial product
leaves the f16 range. No NumPy needed.

usage: reduce_prod_data.py OUT_DIR
"""

import random
import struct
import sys
from math import prod
from pathlib import Path

FORMATS = {"f4": ("<f4", "f"), "f2": ("<f2", "e"), "i4": ("<i4", "i")}


def write(path: Path, kind: str, shape: tuple, values: list) -> None:
    descr, fmt = FORMATS[kind]
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, tuple(shape))
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    data = struct.pack("<%d%s" % (len(values), fmt), *values)
    path.write_bytes(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + data)


def factors(rng: random.Random, n: int, wide: int) -> list:
    """n values of +-1, with at most `wide` of them +-2 or +-0.5."""
    out = [rng.choice([-1.0, 1.0]) for _ in range(n)]
    for i in rng.sample(range(n), min(wide, n)):
        out[i] = rng.choice([-2.0, 2.0, -0.5, 0.5])
    return out


def neg_prod(values) -> float:
    """The product of the negated values (the graphs negate their input first)."""
    return prod(-v for v in values)


def wrap32(v: int) -> int:
    """v modulo 2^32 as a signed int32 (ONNX/NumPy integer products wrap)."""
    v &= (1 << 32) - 1
    return v - (1 << 32) if v >= 1 << 31 else v


def rows(values: list, width: int) -> list:
    return [values[i : i + width] for i in range(0, len(values), width)]


def main() -> None:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(19)
    # f32 [5, 37]: the innermost axis reduces (37 -> 24 -> 16 -> 8 -> scalar).
    a = [v for _ in range(5) for v in factors(rng, 37, 30)]
    a[2 * 37 + 36] = 0.0  # a zero in the last column of row 2
    write(out / "a.npy", "f4", (5, 37), a)
    write(out / "a_prod.npy", "f4", (5, 1), [neg_prod(r) for r in rows(a, 37)])
    # f16 [4, 20]: 20 -> 16 -> 8 -> scalar.
    h = [v for _ in range(4) for v in factors(rng, 20, 10)]
    write(out / "h.npy", "f2", (4, 20), h)
    write(out / "h_prod.npy", "f2", (4, 1), [neg_prod(r) for r in rows(h, 20)])
    # f32 [3, 4, 9] over axes 0 and 2: rows reduce, then the outer axis combines.
    c = factors(rng, 3 * 4 * 9, 40)
    write(out / "c.npy", "f4", (3, 4, 9), c)
    expect = [neg_prod(c[i * 36 + j * 9 + k] for i in range(3) for k in range(9)) for j in range(4)]
    write(out / "c_prod.npy", "f4", (1, 4, 1), expect)
    # f32 [2, 7]: a row narrower than a block reduces on the scalar unit only.
    s = factors(rng, 14, 6)
    write(out / "s.npy", "f4", (2, 7), s)
    write(out / "s_prod.npy", "f4", (2, 1), [neg_prod(r) for r in rows(s, 7)])
    # int32 [3, 20]: products wrap modulo 2^32 (the tree and the scalar tail alike).
    i = [rng.randint(-1000, 1000) for _ in range(60)]
    write(out / "i.npy", "i4", (3, 20), i)
    write(out / "i_prod.npy", "i4", (3, 1), [wrap32(prod(-v for v in r)) for r in rows(i, 20)])


if __name__ == "__main__":
    main()
