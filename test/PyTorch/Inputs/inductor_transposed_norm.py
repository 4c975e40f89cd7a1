"""Route 2 on a LayerNorm over the channels of a convolution's output: the conv writes
[batch, channels, frames], the norm reduces over channels, so every reducing kernel
loads its rows strided along the reduced (innermost) axis (Wav2Vec2's feature
projection, Whisper's encoder). The length is dynamic (frames n//5 - 1). Prints the
error against eager at two lengths and the report."""

import sys

import torch

import autofuse.torch as aft


class ChannelNorm(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv1d(1, 16, 10, stride=5, bias=False)
        self.norm = torch.nn.LayerNorm(16)

    def forward(self, x):
        h = torch.nn.functional.gelu(self.conv(x[:, None]))
        return self.norm(h.transpose(1, 2))


torch.manual_seed(0)
model = ChannelNorm().eval()
compiled = torch.compile(model, backend="autofuse-inductor", dynamic=True)
for b, n in [(2, 400), (3, 230)]:
    x = torch.randn(b, n, generator=torch.Generator().manual_seed(b * 100 + n))
    with torch.no_grad():
        err = float((compiled(x) - model(x)).abs().max())
    print(f"b{b}n{n}: max error {err:.3e}: {'PASS' if err <= 1e-4 else 'FAIL'}")
sys.stdout.write(aft.report())
