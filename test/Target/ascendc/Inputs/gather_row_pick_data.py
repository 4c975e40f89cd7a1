"""Inputs and expected outputs of gather-row-pick.mlir as .npy files, picked with
plain Python indexing (ONNX Gather/GatherElements: a negative index counts from the
end of the axis), independently of the compiler. No NumPy needed.

usage: gather_row_pick_data.py OUT_DIR
"""

import random
import struct
import sys
from pathlib import Path

FORMATS = {"f4": ("<f4", "f"), "i8": ("<i8", "q")}


def write(path: Path, kind: str, shape: tuple, values: list) -> None:
    descr, fmt = FORMATS[kind]
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, tuple(shape))
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    data = struct.pack("<%d%s" % (len(values), fmt), *values)
    path.write_bytes(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + data)


def table(rng: random.Random, rows: int, cols: int) -> list:
    # Small multiples of 1/4: exact in f32.
    return [rng.randint(-400, 400) / 4 for _ in range(rows * cols)]


def main() -> None:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(31)
    # GatherElements [3, 5] by [3, 1] along axis 1: one element per row.
    t = table(rng, 3, 5)
    idx = [4, 0, -2]
    write(out / "t.npy", "f4", (3, 5), t)
    write(out / "t_idx.npy", "i8", (3, 1), idx)
    write(out / "t_pick.npy", "f4", (3, 1), [t[r * 5 + (i % 5)] for r, i in enumerate(idx)])
    # Gather [4, 6] by [1] along axis 1: the same column of every row.
    u = table(rng, 4, 6)
    write(out / "u.npy", "f4", (4, 6), u)
    for name, col in (("u_idx", [3]), ("u_neg", [-1])):
        write(out / f"{name}.npy", "i8", (1,), col)
        write(out / f"{name}_pick.npy", "f4", (4, 1), [u[r * 6 + col[0] % 6] for r in range(4)])


if __name__ == "__main__":
    main()
