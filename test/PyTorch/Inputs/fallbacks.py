"""What autofuse cannot take runs on torch, with a reason, and gives eager's result:
an element type autofuse has no type for (float64 tensors), a data-dependent shape
(boolean-mask indexing, which Dynamo splits the graph at), and an op autofuse does not
cover inside a compiled graph (torch runs it between the kernels)."""

import sys

import torch
import torch._dynamo

import autofuse.torch as aft


def check(name, model, *args):
    torch._dynamo.reset()
    aft.reset()
    compiled = torch.compile(model, backend="autofuse", dynamic=True)
    with torch.no_grad():
        want = model(*args)
        got = compiled(*args)
    same = torch.equal(got, want) or torch.allclose(got, want, rtol=1e-5, atol=1e-6)
    print(f"{name}: {'same as eager' if same else 'DIFFERENT from eager'}")
    sys.stdout.write(aft.report())
    return same


def main():
    ok = True
    ok &= check("float64", lambda x: torch.exp(x) * 2.0 + x, torch.randn(4, 8, dtype=torch.float64))
    ok &= check("mask-indexing", lambda x: torch.relu(x[x > 0]).sum() + x.mean(), torch.randn(5, 7))
    ok &= check("uncovered-op", lambda x: torch.exp(torch.flip(x, [1])) + 1.0, torch.randn(3, 6))
    print("== PASS" if ok else "== FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
