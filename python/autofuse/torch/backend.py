"""``torch.compile(model, backend="autofuse")``: Dynamo's graph, after aot_autograd's
core-ATen decomposition (inference), compiled by autofuse's whole pipeline.

One compile per FX graph serves every shape Dynamo's guards allow (``dynamic=True``):
the graph's SymInts are autofuse's symbols, each call binds them from its inputs'
sizes, and autofuse's own guards (equalities it assumed while compiling) are checked
per call. A graph autofuse cannot take runs as FX's own code, with the reason in
``report()``; a call whose shapes break autofuse's guards or have no tiling runs the
same way, noted.
"""

from __future__ import annotations

import hashlib
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

import torch

from . import fx_to_ascend
from .fx_to_ascend import Converted
from .npu import NpuBuildError, NpuLibrary, build_glue
from .runtime import KernelError, Plan
from .symbolic import Unsupported, evaluate
from .. import _tools


@dataclass
class GraphReport:
    """What autofuse made of one FX graph."""

    name: str
    compiled: bool
    reason: str = ""
    fx_ops: int = 0
    ascend_ops: dict[str, int] = field(default_factory=dict)
    torch_ops: dict[str, str] = field(default_factory=dict)
    kernels: int = 0
    launches: int = 0
    boundary_ops: dict[str, int] = field(default_factory=dict)
    compile_seconds: float = 0.0
    calls: int = 0
    fallback_calls: int = 0
    fallback_reasons: list[str] = field(default_factory=list)
    kernel_runs: int = 0
    # Route 2 (backend="autofuse-inductor"): runs of Inductor kernels autofuse could
    # not express, run with torch (their reasons are in torch_ops).
    torch_kernel_runs: int = 0
    backend: str = "autofuse"
    gm_read: int = 0
    gm_written: int = 0
    cycles: float = 0.0
    mlir_path: str = ""
    plan_path: str = ""
    # Where the kernels run: "emulation" (in process, on the CPU) or "npu" (the glue).
    target: str = "emulation"


REPORTS: list[GraphReport] = []

# Ops outside kernels that change only a contiguous tensor's shape, never its bytes.
VIEW_OPS = ("ascend.reshape", "ascend.squeeze", "ascend.unsqueeze")


def _work_dir() -> Path:
    base = os.environ.get("AUTOFUSE_TORCH_DIR")
    if base:
        return Path(base)
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "autofuse" / "torch"


GUARD = re.compile(r"^(assert|expect)\((.*)\)$")
RELATIONS = ("==", "!=", ">=", "<=", ">", "<")


def guard_holds(text: str, symbols: dict[str, int]) -> bool:
    """Whether one of autofuse's guards (``assert(s0 == s2)``) holds for `symbols`; a
    guard it cannot read counts as broken (the call then runs on torch)."""
    m = GUARD.match(text.strip())
    if not m:
        return False
    body = m.group(2)
    for rel in RELATIONS:
        if rel in body:
            lhs, rhs = body.split(rel, 1)
            try:
                a, b = evaluate(lhs, symbols), evaluate(rhs, symbols)
            except (KeyError, ValueError, ZeroDivisionError):
                return False
            return {"==": a == b, "!=": a != b, ">=": a >= b, "<=": a <= b, ">": a > b, "<": a < b}[rel]
    return False


class CompiledGraph:
    def __init__(self, gm: torch.fx.GraphModule, converted: Converted, plan: Plan, report: GraphReport):
        self.gm = gm
        self.converted = converted
        self.plan = plan
        self.report = report
        self.guards = plan.plan["guards"].get(plan.plan["entry"], []) + converted.guards

    def __call__(self, *args):
        self.report.calls += 1
        tensors = []
        host = self.converted.host_values(args) if self.converted.host_nodes or self.converted.host_inputs else {}
        # Values computed on the host go where the graph's tensors are (an NPU's kernels
        # read device memory).
        device = next((a.device for a in args if isinstance(a, torch.Tensor)), torch.device("cpu"))
        for kind, source in self.converted.arguments:
            if kind == "input":
                tensors.append(args[source])
            elif kind == "host":
                name, dtype = source
                tensors.append(host[name].to(device=device, dtype=dtype))
            else:
                tensors.append(getattr(self.gm, source))
        symbols = {s: int(tensors[i].shape[axis]) for s, (i, axis) in self.converted.bindings.items()}
        broken = [g for g in self.guards if not guard_holds(g, symbols)]
        if broken:
            return self._fallback(args, f"autofuse's guard {broken[0]} fails for {symbols}")
        try:
            results = self.plan.run(tensors, symbols)
        except KernelError as e:
            return self._fallback(args, str(e))
        stats = self.plan.stats
        self.report.kernel_runs += len(stats.launches)
        self.report.gm_read += sum(r.gm_read for r in stats.launches)
        self.report.gm_written += sum(r.gm_written for r in stats.launches)
        self.report.cycles += sum(r.cycles for r in stats.launches)
        outputs = []
        for kind, v in self.converted.outputs:
            if kind == "value":
                outputs.append(results[v])
            elif kind == "expr":
                outputs.append(evaluate(v, symbols))
            else:
                outputs.append(v)
        return outputs

    def _fallback(self, args, reason: str):
        self.report.fallback_calls += 1
        if reason not in self.report.fallback_reasons:
            self.report.fallback_reasons.append(reason)
        with torch.no_grad():
            return self.gm(*args)


def compile_fx(gm: torch.fx.GraphModule, example_inputs, name: str = "graph"):
    """The fw_compiler of the ``autofuse`` backend: an FX graph of core ATen ops to a
    callable running autofuse's kernels."""
    report = GraphReport(name=f"{name}_{len(REPORTS)}", compiled=False)
    report.fx_ops = sum(1 for n in gm.graph.nodes if n.op == "call_function")
    REPORTS.append(report)
    start = time.perf_counter()
    try:
        converted = fx_to_ascend.convert(gm)
    except Unsupported as e:
        report.reason = f"not converted: {e}"
        return _eager(gm)
    report.ascend_ops = converted.converted_ops
    report.torch_ops = converted.torch_ops
    text = converted.text
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    work = _work_dir() / digest
    work.mkdir(parents=True, exist_ok=True)
    mlir = work / "graph.mlir"
    mlir.write_text(text)
    report.mlir_path = str(mlir)
    try:
        _tools.emit_library(mlir, work / "build")
        library = None
        if _on_npu(example_inputs):
            library = NpuLibrary.load(str(build_glue(work / "build" / "npu", work / "npu-builds")))
            report.target = "npu"
        plan = Plan(work / "build" / "plan.json", converted.externs, library)
    except (_tools.ToolError, NpuBuildError) as e:
        report.reason = f"autofuse failed: {e}"
        return _eager(gm)
    report.plan_path = str(work / "build" / "plan.json")
    report.compile_seconds = time.perf_counter() - start
    report.compiled = True
    entry = plan.plan["graphs"][plan.plan["entry"]]
    for node in entry["nodes"]:
        if node["op"] == "func.call":
            callee = node["attrs"]["callee"]["symbol"]
            if callee in plan.plan["kernels"]:
                report.kernels += 1
            elif callee in converted.externs:
                key = f"torch:{converted.externs[callee].target}"
                report.boundary_ops[key] = report.boundary_ops.get(key, 0) + 1
        elif node["op"] not in ("ascend.constant", "ascend.parameter", "ascend.symbolic_constant"):
            report.boundary_ops[node["op"]] = report.boundary_ops.get(node["op"], 0) + 1
    # Reshapes and squeezes are views of contiguous tensors: no launch on a device.
    report.launches = report.kernels + sum(
        n for op, n in report.boundary_ops.items() if op not in VIEW_OPS
    )
    return CompiledGraph(gm, converted, plan, report)


def _on_npu(example_inputs) -> bool:
    """Whether the kernels launch through the NPU glue: the graph's tensors are on an
    NPU, or ``AUTOFUSE_NPU=1`` asks for the glue on any device (the tests run an
    emulated glue on the CPU)."""
    if os.environ.get("AUTOFUSE_NPU") == "1":
        return True
    return any(isinstance(x, torch.Tensor) and x.device.type == "npu" for x in example_inputs)


def _eager(gm: torch.fx.GraphModule):
    def run(*args):
        with torch.no_grad():
            return gm(*args)

    return run


def autofuse_backend(gm: torch.fx.GraphModule, example_inputs, **kwargs):
    """The Dynamo backend: aot_autograd with the core-ATen decompositions, inference."""
    from torch._dynamo.backends.common import aot_autograd
    from torch._decomp import core_aten_decompositions

    decompositions = core_aten_decompositions()
    # Keep the composite ops autofuse lowers whole (their kernels are better than the
    # decomposed forms, and the executor has their reference semantics).
    for keep in (torch.ops.aten.gelu.default, torch.ops.aten.native_layer_norm.default,
                 torch.ops.aten._softmax.default, torch.ops.aten._log_softmax.default,
                 torch.ops.aten.silu.default):
        decompositions.pop(keep, None)
    backend = aot_autograd(fw_compiler=compile_fx, decompositions=decompositions)
    return backend(gm, example_inputs)
