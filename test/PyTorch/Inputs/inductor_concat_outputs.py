"""Route 2 on a kernel with two outputs that are parts of one buffer: a normalised
tensor's rotate-half, Inductor's concatenation by two strided stores (buf1 the first
half of each row of the concatenated buffer, buf2 the second half at a storage offset
of 4) fused into one kernel, as in OLMo2's rotary embedding after its q/k RMSNorm.
Prints the error against eager at two shapes and the kernels left to torch."""

import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))

import autofuse.torch as aft  # noqa: E402
from autofuse.torch import inductor  # noqa: E402
from compile_models import max_error  # noqa: E402


class NormedRotateHalf(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(32))

    def forward(self, x):
        b, s, _ = x.shape
        h = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * self.weight
        q = h.view(b, s, 4, 8).transpose(1, 2)
        return torch.cat((-q[..., 4:], q[..., :4]), dim=-1)


torch.manual_seed(0)
model = NormedRotateHalf().eval()
compiled = torch.compile(model, backend="autofuse-inductor", dynamic=True)
for b, s in [(2, 8), (3, 5)]:
    x = torch.randn(b, s, 32)
    with torch.no_grad():
        err = max_error(compiled(x), model(x))
    print(f"b{b}s{s}: max error {err:.3e}: {'PASS' if err <= 1e-4 else 'FAIL'}")
for graph in inductor.GRAPHS.values():
    for k in graph.kernels:
        stores = [st.buffer for st in k.stores if st.buffer not in k.removed]
        print(f"kernel {k.name}: stores {', '.join(stores)}; {'torch' if k.unsupported else 'autofuse'}")
(report,) = aft.reports()
print(f"left to torch {len(report.torch_ops)}, kernel runs {report.kernel_runs}")
