"""Route 2 refuses, when it compiles, a graph with a kernel that neither autofuse nor
the torch evaluation of recorded loop bodies can run: the graph then runs eagerly with
the reason in its report, never failing at its first call.

First the evaluator's heads: the ones Inductor writes in indices evaluate like Python's
integer arithmetic, an unknown head is found. Then a padding (whose masked load autofuse
leaves to torch) compiled with the evaluator made to lack `Add`, as if Inductor had
written an index function it does not know."""

import sys
from pathlib import Path

import sympy
import torch
import torch._dynamo
from torch.utils._sympy.functions import CeilDiv, FloorDiv, ModularIndexing

sys.path.insert(0, str(Path(__file__).resolve().parent))

import autofuse.torch as aft  # noqa: E402
from autofuse.torch import loop_ir  # noqa: E402
from compile_models import against_eager  # noqa: E402

z, s0 = sympy.Symbol("z0", integer=True, nonnegative=True), sympy.Symbol("s0", integer=True, positive=True)
known = [FloorDiv(z, 3) + ModularIndexing(z, 2, s0), CeilDiv(z, 4) * 2, sympy.Max(z - 5, 0)]
for e in known:
    assert not loop_ir.SympyTorch.unknown_heads(e), (e, loop_ir.SympyTorch.unknown_heads(e))
    for zv in range(0, 23):
        env = {"z0": torch.tensor(zv), "s0": 7}
        got = int(loop_ir.SympyTorch(env)(e))
        want = int(e.subs({z: zv, s0: 7}))
        assert got == want, (e, zv, got, want)
weird = sympy.Function("Weird")(z) + 1
print(f"unknown heads: {sorted(loop_ir.SympyTorch.unknown_heads(weird))}")


class Padded(torch.nn.Module):
    def forward(self, x):
        return torch.nn.functional.pad(x, (1, 1)) * 2.0


def inputs(b, s):
    return (torch.randn(b, s, generator=torch.Generator().manual_seed(b * 100 + s)),)


model = Padded().eval()
loop_ir.SympyTorch.FUNCTIONS = loop_ir.SympyTorch.FUNCTIONS - {"Add"}
torch._dynamo.reset()
aft.reset()
compiled = torch.compile(model, backend="autofuse-inductor", dynamic=True)
ok = against_eager("padded", model, compiled, inputs, [(2, 8), (3, 13)])
for r in aft.reports():
    print(f"graph {r.name}: compiled {r.compiled}, kernel runs {r.kernel_runs}: {r.reason}")
sys.exit(0 if ok else 1)
