"""Inputs and expected outputs of gather-row-cache.mlir as .npy files: a [300, 64] f32
table, ids [64, 64] int32 and a [64] scale, with the rows picked and scaled by plain
Python (a negative id counts from the end of the table, as ONNX Gather), independently of
the compiler. No NumPy needed.

  few:    ids (31 * i + j) % 7: every block picks the same 7 rows again and again;
  spread: ids uniform over the 300 rows, a tenth of them negative;
  long:   as spread, ids [64, 512]: a block picks more rows than its cache holds.

usage: row_cache_data.py OUT_DIR
"""

import random
import struct
import sys
from pathlib import Path

FORMATS = {"f4": ("<f4", "f"), "i4": ("<i4", "i")}
ROWS, COLS, B, S = 300, 64, 64, 64


def write(path: Path, kind: str, shape: tuple, values: list) -> None:
    descr, fmt = FORMATS[kind]
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, tuple(shape))
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    data = struct.pack("<%d%s" % (len(values), fmt), *values)
    path.write_bytes(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + data)


def main() -> None:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(7)
    # Small multiples of 1/4: every product below is exact in f32.
    table = [rng.randint(-400, 400) / 4 for _ in range(ROWS * COLS)]
    scale = [rng.randint(-8, 8) / 4 for _ in range(COLS)]
    write(out / "table.npy", "f4", (ROWS, COLS), table)
    write(out / "scale.npy", "f4", (COLS,), scale)
    def spread(count: int) -> list:
        return [rng.randrange(ROWS) - (ROWS if rng.random() < 0.1 else 0) for _ in range(count)]

    ids = {
        "few": (S, [(31 * i + j) % 7 for i in range(B) for j in range(S)]),
        "spread": (S, spread(B * S)),
        "long": (8 * S, spread(B * 8 * S)),
    }
    for name, (seq, picks) in ids.items():
        write(out / f"{name}_ids.npy", "i4", (B, seq), picks)
        rows = [table[(p % ROWS) * COLS : (p % ROWS + 1) * COLS] for p in picks]
        picked = [v * scale[c] for row in rows for c, v in enumerate(row)]
        write(out / f"{name}_out.npy", "f4", (B, seq, COLS), picked)


if __name__ == "__main__":
    main()
