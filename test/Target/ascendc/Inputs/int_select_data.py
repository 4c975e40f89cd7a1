"""Inputs and expected outputs of int-select-scalars.mlir as .npy files, computed with
Python integers independently of the compiler. No NumPy needed.

usage: int_select_data.py OUT_DIR
"""

import random
import struct
import sys
from pathlib import Path

SHAPE = (3, 50)
N = SHAPE[0] * SHAPE[1]
FORMATS = {"i4": ("<i4", "i"), "i8": ("<i8", "q"), "b1": ("|b1", "?")}
I32_MIN, I32_MAX = -(1 << 31), (1 << 31) - 1


def write(path: Path, kind: str, values: list) -> None:
    descr, fmt = FORMATS[kind]
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%d, %d), }" % (descr, *SHAPE)
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    data = struct.pack("<%d%s" % (len(values), fmt), *values)
    path.write_bytes(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + data)


def main() -> None:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(19)
    c = [rng.random() < 0.5 for _ in range(N)]
    write(out / "c.npy", "b1", c)
    # Both branches scalars: the int32 extremes, -1/0, and (int64) -1/0 and 5/INT32_MIN.
    write(out / "two32_ext.npy", "i4", [I32_MAX if k else I32_MIN for k in c])
    write(out / "two32_m1.npy", "i4", [-1 if k else 0 for k in c])
    write(out / "two64_m1.npy", "i8", [-1 if k else 0 for k in c])
    write(out / "two64_5.npy", "i8", [5 if k else I32_MIN for k in c])
    # A scalar branch also read by `k - y` (not absorbed): a Duplicate tile of int32.
    y = [rng.randint(-(1 << 20), 1 << 20) for _ in range(N)]
    write(out / "y32.npy", "i4", y)
    write(out / "shared_sel.npy", "i4", [q if k else 9 for k, q in zip(c, y)])
    write(out / "shared_sub.npy", "i4", [9 - q for q in y])
    # The sign mask of int64 values beyond 2^32 (x < 0 ? -1 : 0), as BitShift's
    # decomposition builds it: the 0 constant is narrowed for the compare and copied
    # as an i64 constant for the select.
    x = [rng.randint(-(1 << 52), 1 << 52) for _ in range(N - 4)] + [0, -1, 1 << 40, -(1 << 40)]
    write(out / "x64.npy", "i8", x)
    write(out / "sign64.npy", "i8", [-1 if q < 0 else 0 for q in x])


main()
