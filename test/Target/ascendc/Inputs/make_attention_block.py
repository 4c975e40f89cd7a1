"""Inputs and independently computed outputs of attention-block.mlir (numpy, float64).

Run from this directory: ../../../../.venv/bin/python make_attention_block.py
"""

import numpy as np

rng = np.random.default_rng(19)
b, h, s, d = 2, 2, 8, 16
q = rng.standard_normal((b, h, s, d)).astype(np.float32)
k = rng.standard_normal((b, h, s, d)).astype(np.float32)
v = rng.standard_normal((b, h, s, d)).astype(np.float32)
# Causal additive mask: 0 on and below the diagonal, -inf above.
mask = np.where(np.tril(np.ones((s, s), dtype=bool)), 0.0, -np.inf).astype(np.float32)

scores = (q.astype(np.float64) @ np.swapaxes(k.astype(np.float64), -1, -2)) * 0.25 + mask
scores -= scores.max(axis=-1, keepdims=True)
p = np.exp(scores)
p /= p.sum(axis=-1, keepdims=True)
out = p @ v.astype(np.float64)

for name, value in [("q", q), ("k", k), ("v", v), ("mask", mask), ("out", out.astype(np.float32))]:
    np.save(f"attention_block.{name}.npy", value)

# f16 matmul whose products overflow f16 (300 * 300 = 90000 > 65504) but whose sums do
# not: accumulated in f32 as the cube does, [[3, 603]]; in f16 column 0 is inf - inf.
a16 = np.array([[300, 300, 1, 2]], dtype=np.float16)
b16 = np.array([[300, 1], [-300, 1], [1, 1], [1, 1]], dtype=np.float16)
np.save("matmul_f16.a.npy", a16)
np.save("matmul_f16.b.npy", b16)
np.save("matmul_f16.out.npy", (a16.astype(np.float64) @ b16.astype(np.float64)).astype(np.float16))

# Key counts for clamped_lengths.mlir: in range, and far beyond i32 both ways (the
# narrowed mask must still compare as int64 does).
np.save("clamped_lengths.n.npy", np.array([3, 2**40 + 7, -(2**62)], dtype=np.int64))
