"""Inputs and expected outputs of byte-broadcast.mlir as .npy files: 1-byte values
repeated along the broadcast axes with plain Python lists, independently of the
compiler. No NumPy needed.

usage: byte_broadcast_data.py OUT_DIR
"""

import random
import struct
import sys
from pathlib import Path

FORMATS = {"u1": ("|u1", "B"), "i1": ("|i1", "b")}


def write(path: Path, kind: str, shape: tuple, values: list) -> None:
    descr, fmt = FORMATS[kind]
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, tuple(shape))
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    data = struct.pack("<%d%s" % (len(values), fmt), *values)
    path.write_bytes(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + data)


def main() -> None:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(23)
    # ui8 [5, 1] -> [5, 40]: each row's value splatted over the row (0 and 255 included).
    col = [0, 255, 1, 128, rng.randint(0, 255)]
    write(out / "col.npy", "u1", (5, 1), col)
    write(out / "col_b.npy", "u1", (5, 40), [v for v in col for _ in range(40)])
    # i8 [1, 40] -> [6, 40]: one row copied to every row.
    row = [rng.randint(-128, 127) for _ in range(40)]
    row[0], row[39] = -128, 127
    write(out / "row.npy", "i1", (1, 40), row)
    write(out / "row_b.npy", "i1", (6, 40), row * 6)
    # ui8 [1, 1] -> [3, 33]: a scalar.
    write(out / "one.npy", "u1", (1, 1), [201])
    write(out / "one_b.npy", "u1", (3, 33), [201] * 99)
    # ui8 [3, 1, 40] -> [3, 4, 40]: a middle axis (rows copied).
    mid = [rng.randint(0, 255) for _ in range(120)]
    write(out / "mid.npy", "u1", (3, 1, 40), mid)
    write(out / "mid_b.npy", "u1", (3, 4, 40), [v for i in range(3) for _ in range(4) for v in mid[i * 40 : i * 40 + 40]])


if __name__ == "__main__":
    main()
