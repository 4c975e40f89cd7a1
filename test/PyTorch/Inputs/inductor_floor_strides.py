"""Route 2 on kernels whose strides are floor divisions of a size: after a strided
convolution over a dynamic length n the frame count is n//5 - 1, so the conv output's
rows are `n//5 - 1` apart (Wav2Vec2's feature encoder). A slice of the frames, doubled,
and a GELU are pointwise kernels over that layout. Prints the error against eager at two
lengths and every kernel left to torch with its reason."""

import torch

import autofuse.torch as aft


class StridedFrames(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv1d(1, 16, 10, stride=5, bias=False)

    def forward(self, x):
        h = self.conv(x[:, None])
        return torch.nn.functional.gelu(h[:, :, 1:] * 2.0)


torch.manual_seed(0)
model = StridedFrames().eval()
compiled = torch.compile(model, backend="autofuse-inductor", dynamic=True)
for b, n in [(2, 400), (3, 230)]:
    x = torch.randn(b, n)
    with torch.no_grad():
        err = float((compiled(x) - model(x)).abs().max())
    print(f"b{b}n{n}: max error {err:.3e}: {'PASS' if err <= 1e-4 else 'FAIL'}")
for r in aft.reports():
    print(f"kernels {r.kernels}, kernel runs {r.kernel_runs}, left to torch {len(r.torch_ops)}")
    for op, why in r.torch_ops.items():
        print(f"left to torch: {op}: {why}")
