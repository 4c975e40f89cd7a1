"""Inputs and expected outputs of small-int-ops.mlir as .npy files, computed with
Python integers (two's complement wrap to the width, division truncating toward zero,
as ONNX/NumPy integer arithmetic), independently of the compiler. No NumPy needed.

usage: small_int_data.py OUT_DIR
"""

import random
import struct
import sys
from pathlib import Path

SHAPE = (3, 50)
N = SHAPE[0] * SHAPE[1]
FORMATS = {"i1": ("|i1", "b"), "u1": ("|u1", "B"), "i2": ("<i2", "h"), "i4": ("<i4", "i"), "i8": ("<i8", "q"), "b1": ("|b1", "?")}


def write(path: Path, kind: str, values: list) -> None:
    descr, fmt = FORMATS[kind]
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%d, %d), }" % (descr, *SHAPE)
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    data = struct.pack("<%d%s" % (len(values), fmt), *values)
    path.write_bytes(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + data)


def wrap(v: int, bits: int, signed: bool) -> int:
    v &= (1 << bits) - 1
    return v - (1 << bits) if signed and v >= 1 << (bits - 1) else v


def trunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def values(rng: random.Random, lo: int, hi: int, edges: list, nonzero: bool = False) -> list:
    out = list(edges) + [rng.randint(lo, hi) for _ in range(N - len(edges))]
    return [v if v != 0 or not nonzero else 1 for v in out]


def main() -> None:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(7)
    # int8: add/sub/mul wrap, div truncates (-128 / -1 wraps to -128), a < b.
    a = values(rng, -128, 127, [127, -128, -128, 100, -7, 7, -128, 0])
    b = values(rng, -128, 127, [1, -1, -1, 100, 2, -2, 1, 5], nonzero=True)
    write(out / "i8_a.npy", "i1", a)
    write(out / "i8_b.npy", "i1", b)
    write(out / "i8_add.npy", "i1", [wrap(x + y, 8, True) for x, y in zip(a, b)])
    write(out / "i8_sub.npy", "i1", [wrap(x - y, 8, True) for x, y in zip(a, b)])
    write(out / "i8_mul.npy", "i1", [wrap(x * y, 8, True) for x, y in zip(a, b)])
    write(out / "i8_div.npy", "i1", [wrap(trunc_div(x, y), 8, True) for x, y in zip(a, b)])
    write(out / "i8_lt.npy", "b1", [x < y for x, y in zip(a, b)])
    write(out / "i8_mod.npy", "i1", [x % y for x, y in zip(a, b)])
    # uint8: add/sub/mul wrap modulo 256, max, a >= b.
    a = values(rng, 0, 255, [255, 0, 200, 16, 255])
    b = values(rng, 0, 255, [1, 1, 100, 16, 255])
    write(out / "u8_a.npy", "u1", a)
    write(out / "u8_b.npy", "u1", b)
    write(out / "u8_add.npy", "u1", [wrap(x + y, 8, False) for x, y in zip(a, b)])
    write(out / "u8_sub.npy", "u1", [wrap(x - y, 8, False) for x, y in zip(a, b)])
    write(out / "u8_mul.npy", "u1", [wrap(x * y, 8, False) for x, y in zip(a, b)])
    write(out / "u8_max.npy", "u1", [max(x, y) for x, y in zip(a, b)])
    write(out / "u8_ge.npy", "b1", [x >= y for x, y in zip(a, b)])
    # int16: mul wraps (products up to 2^30), sub, min, a == b.
    a = values(rng, -32768, 32767, [32767, -32768, 300, -300, 12345, -7])
    b = values(rng, -32768, 32767, [32767, -1, 300, 300, 12345, 2], nonzero=True)
    write(out / "i16_a.npy", "i2", a)
    write(out / "i16_b.npy", "i2", b)
    write(out / "i16_mul.npy", "i2", [wrap(x * y, 16, True) for x, y in zip(a, b)])
    write(out / "i16_sub.npy", "i2", [wrap(x - y, 16, True) for x, y in zip(a, b)])
    write(out / "i16_min.npy", "i2", [min(x, y) for x, y in zip(a, b)])
    write(out / "i16_eq.npy", "b1", [x == y for x, y in zip(a, b)])
    write(out / "i16_floor_div.npy", "i2", [wrap(x // y, 16, True) for x, y in zip(a, b)])
    # int64 / int32 select: every bit pattern moves (values beyond 2^32, negative).
    c = [rng.random() < 0.5 for _ in range(N)]
    x = [rng.randint(-(1 << 52), 1 << 52) for _ in range(N)]
    y = [rng.randint(-(1 << 52), 1 << 52) for _ in range(N)]
    write(out / "c.npy", "b1", c)
    write(out / "x64.npy", "i8", x)
    write(out / "y64.npy", "i8", y)
    write(out / "sel64.npy", "i8", [p if k else q for k, p, q in zip(c, x, y)])
    write(out / "sel64_zero.npy", "i8", [p if k else 0 for k, p in zip(c, x)])
    y32 = [rng.randint(-(1 << 31), (1 << 31) - 1) for _ in range(N)]
    write(out / "y32.npy", "i4", y32)
    write(out / "sel32_const.npy", "i4", [-7 if k else q for k, q in zip(c, y32)])
    write(out / "sel32_const_else.npy", "i4", [q if k else -7 for k, q in zip(c, y32)])
    # int32 -> int8 / uint8 casts wrap (NumPy's astype); int16 -> int32 is exact.
    write(out / "y32_i8.npy", "i1", [wrap(q, 8, True) for q in y32])
    write(out / "y32_u8.npy", "u1", [wrap(q, 8, False) for q in y32])


main()
