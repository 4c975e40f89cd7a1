"""Route 2 on kernels with infinite constants: a softmax of scores times a float
scaling (Dynamo makes the float an input, and Inductor's softmax then tests the scaled
scores with isfinite, `abs(x) != inf`) and a masked fill with -inf. Inputs hold +inf
and a row of -inf (a NaN row out). Prints whether every output equals eager's (NaN
where eager has NaN) at two shapes, and the kernels left to torch."""

import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))

import autofuse.torch as aft  # noqa: E402


def attend(scores, scaling):
    return torch.softmax((scores * scaling).masked_fill(scores > 2.0, float("-inf")), dim=-1)


class ScaledSoftmax(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.scaling = 8 ** -0.5

    def forward(self, scores):
        return attend(scores, self.scaling) * 2.0


model = ScaledSoftmax().eval()
compiled = torch.compile(model, backend="autofuse-inductor", dynamic=True)
for b, s in [(2, 8), (3, 5)]:
    g = torch.Generator().manual_seed(b * 100 + s)
    x = torch.randn(b, s, s, generator=g)
    x[0, 0, 1] = float("inf")
    x[0, 1, :] = float("-inf")
    with torch.no_grad():
        got, want = compiled(x), model(x)
    same = (got - want).abs().le(1e-5) | (got.isnan() & want.isnan())
    print(f"b{b}s{s}: NaN rows {int(want.isnan().any(-1).sum())}, equal to eager {bool(same.all())}")
for r in aft.reports():
    print(f"kernels {r.kernels}, kernel runs {r.kernel_runs}, left to torch {len(r.torch_ops)}")
    for op, why in r.torch_ops.items():
        print(f"left to torch: {op}: {why}")
