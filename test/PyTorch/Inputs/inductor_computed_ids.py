"""Route 2 on RoBERTa's position lookup: the position ids are computed from the token
ids (a running count of the tokens that are not padding, times the mask, plus the
padding index), and the lookup reads them as they are computed in the kernel, not
from a buffer. The last three tokens of the first row are padding. Prints the error
against eager at two shapes and the report."""

import sys

import torch

import autofuse.torch as aft

class Positions(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.word = torch.nn.Embedding(128, 16, padding_idx=1)
        self.position = torch.nn.Embedding(66, 16, padding_idx=1)
        self.norm = torch.nn.LayerNorm(16)

    def forward(self, ids):
        mask = ids.ne(1).int()
        positions = (torch.cumsum(mask, dim=1).type_as(mask) * mask).long() + 1
        return self.norm(self.word(ids) + self.position(positions))

torch.manual_seed(0)
m = Positions().eval()
c = torch.compile(m, backend="autofuse-inductor", dynamic=True)
for b, s in [(2, 8), (3, 13)]:
    ids = torch.randint(0, 128, (b, s), generator=torch.Generator().manual_seed(b * 100 + s))
    ids[0, -3:] = 1
    with torch.no_grad():
        err = float((c(ids) - m(ids)).abs().max())
    print(f"b{b}s{s}: max error {err:.3e}: {'PASS' if err <= 1e-4 else 'FAIL'}")
sys.stdout.write(aft.report())
