"""aten.index.Tensor with several index tensors through backend="autofuse": the mask
pattern of transformers' mask functions (a padding mask indexed by broadcast batch and
position aranges), negative indices with a trailing axis, and index tensors on axes
that are not adjacent (left to torch, with the reason). Each against eager, at two
shapes where the shape is dynamic."""

from __future__ import annotations

import sys

import torch

import autofuse.torch as aft


class PaddingMask(torch.nn.Module):
    def forward(self, mask, x):
        batch = torch.arange(x.shape[0]).view(-1, 1, 1, 1)
        kv = torch.arange(x.shape[1]).view(1, 1, 1, -1)
        return x.unsqueeze(1).unsqueeze(1) * mask[batch, kv]


class Negative(torch.nn.Module):
    def forward(self, t, i, j):
        return t[:, i, j] * 2.0


class Apart(torch.nn.Module):
    def forward(self, t, i, j):
        return t[i, :, j] + 1.0


def check(name, model, calls) -> bool:
    torch._dynamo.reset()
    aft.reset()
    compiled = torch.compile(model, backend="autofuse", dynamic=True)
    ok = True
    for args in calls:
        with torch.no_grad():
            want, got = model(*args), compiled(*args)
        same = want.shape == got.shape and torch.equal(want, got)
        ok &= same
        print(f"{name} {list(args[-1].shape)}: {'same as eager' if same else 'DIFFERENT'}")
    sys.stdout.write(aft.report())
    return ok


def main() -> int:
    torch.manual_seed(0)
    ok = check("padding-mask", PaddingMask(),
               [((torch.rand(b, s) > 0.3).float(), torch.randn(b, s)) for b, s in [(2, 8), (3, 13)]])
    t = torch.randn(2, 5, 7, 3)
    ok &= check("negative", Negative(), [(t, torch.tensor([[0, -1], [2, 4]]), torch.tensor([-2, 6]))])
    ok &= check("apart", Apart(), [(torch.randn(4, 3, 6), torch.tensor([1, -1]), torch.tensor([0, 5]))])
    print("== PASS" if ok else "== FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
