"""backend="autofuse" on sizes used as scalar operands of tensor ops: a comparison of a
range with the sequence length minus 2, of a tensor with half the length, and a product
with the length (Swin compares with sizes of its dynamic image). Prints the error
against eager at two shapes and the report."""

import sys

import torch

import autofuse.torch as aft


class SizeOperands(torch.nn.Module):
    def forward(self, x):
        n = x.shape[1]
        keep = torch.arange(n) < n - 2
        return torch.where(keep, x, x * n) + (x > n // 2).float()


model = SizeOperands().eval()
compiled = torch.compile(model, backend="autofuse", dynamic=True)
for b, s in [(2, 8), (3, 13)]:
    x = torch.randn(b, s, generator=torch.Generator().manual_seed(b * 100 + s)) * 8
    with torch.no_grad():
        err = float((compiled(x) - model(x)).abs().max())
    print(f"b{b}s{s}: max error {err:.3e}: {'PASS' if err <= 1e-4 else 'FAIL'}")
sys.stdout.write(aft.report())
