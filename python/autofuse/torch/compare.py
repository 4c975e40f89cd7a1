"""`compare(model, *inputs)`: autofuse's fusion and Inductor's on the same model, side by
side, kernel by kernel, with the calls per forward each makes (fused kernels plus the
ops each leaves outside its kernels: Inductor's extern calls such as matmuls, autofuse's
boundary ops) and whether both match eager."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import torch
import torch._dynamo

from . import backend as af_backend


@dataclass
class Side:
    name: str
    kernels: list[str] = field(default_factory=list)
    outside: dict[str, int] = field(default_factory=dict)
    max_error: float = 0.0

    @property
    def calls(self) -> int:
        return len(self.kernels) + sum(self.outside.values())


def _max_error(got, want) -> float:
    got, want = got.double(), want.double()
    if got.shape != want.shape:
        return float("inf")
    same = (got == want) | (torch.isnan(got) & torch.isnan(want))
    finite = torch.isfinite(want) & torch.isfinite(got)
    if not bool(torch.all(same | finite)):
        return float("inf")
    if finite.sum() == 0:
        return 0.0
    return float(((got - want).abs() / want.abs().clamp(min=1.0))[finite].max())


def _first_tensor(out):
    if isinstance(out, torch.Tensor):
        return out
    if isinstance(out, (tuple, list)):
        return _first_tensor(out[0])
    for key in ("logits", "last_hidden_state"):
        if hasattr(out, key):
            return getattr(out, key)
    raise TypeError(f"cannot compare an output of type {type(out).__name__}")


def _autofuse_side(model, inputs, want) -> Side:
    side = Side("autofuse")
    torch._dynamo.reset()
    start = len(af_backend.REPORTS)
    compiled = torch.compile(model, backend="autofuse", dynamic=True)
    with torch.no_grad():
        got = _first_tensor(compiled(*inputs))
    side.max_error = _max_error(got, want)
    for r in af_backend.REPORTS[start:]:
        if not r.compiled:
            key = f"graph on torch ({r.reason[:60]})"
            side.outside[key] = side.outside.get(key, 0) + 1
            continue
        plan = json.loads(Path(r.plan_path).read_text())
        for node in plan["graphs"][plan["entry"]]["nodes"]:
            if node["op"] == "func.call" and node["attrs"]["callee"]["symbol"] in plan["kernels"]:
                side.kernels.append(node["attrs"]["callee"]["symbol"])
        for op, n in r.boundary_ops.items():
            if op not in af_backend.VIEW_OPS:
                side.outside[op] = side.outside.get(op, 0) + n
    return side


KERNEL_DEF = re.compile(r"^(cpp_fused_\w+|triton_\w+) = async_compile\.", re.M)
KERNEL_CALL = re.compile(r"^\s+(cpp_fused_\w+|triton_\w+)\(", re.M)
EXTERN_CALL = re.compile(r"(extern_kernels\.\w+|aten\.\w+(?:\.\w+)?)\(")


def _inductor_side(model, inputs, want) -> Side:
    from torch._inductor.utils import run_and_get_code

    side = Side("inductor")
    torch._dynamo.reset()
    compiled = torch.compile(model, backend="inductor", dynamic=True)
    with torch.no_grad():
        out, sources = run_and_get_code(compiled, *inputs)
    side.max_error = _max_error(_first_tensor(out), want)
    for code in sources:
        call = code[code.find("def call("):] if "def call(" in code else code
        side.kernels += KERNEL_CALL.findall(call)
        for name in EXTERN_CALL.findall(call):
            side.outside[name] = side.outside.get(name, 0) + 1
    return side


def compare(model, *inputs) -> str:
    """Compiles `model` with both backends, runs both on `inputs` against eager and
    returns the side-by-side table (also printed)."""
    with torch.no_grad():
        want = _first_tensor(model(*inputs))
    ours = _autofuse_side(model, inputs, want)
    theirs = _inductor_side(model, inputs, want)
    lines = [f"{'':24} {'autofuse':>10} {'inductor':>10}"]
    lines.append(f"{'fused kernels':24} {len(ours.kernels):>10} {len(theirs.kernels):>10}")
    lines.append(f"{'ops outside kernels':24} {sum(ours.outside.values()):>10} {sum(theirs.outside.values()):>10}")
    lines.append(f"{'calls per forward':24} {ours.calls:>10} {theirs.calls:>10}")
    lines.append(f"{'max error vs eager':24} {ours.max_error:>10.2e} {theirs.max_error:>10.2e}")
    lines.append("kernel by kernel (in call order):")
    for i in range(max(len(ours.kernels), len(theirs.kernels))):
        a = ours.kernels[i] if i < len(ours.kernels) else ""
        b = theirs.kernels[i] if i < len(theirs.kernels) else ""
        lines.append(f"  {i:3} {a:40} {b}")
    for side in (ours, theirs):
        outside = ", ".join(f"{k} x{v}" for k, v in sorted(side.outside.items())) or "none"
        lines.append(f"{side.name} outside kernels: {outside}")
    text = "\n".join(lines) + "\n"
    print(text, end="")
    return text
