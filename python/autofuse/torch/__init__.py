"""PyTorch through ``torch.compile``: importing this module registers the backends
``autofuse`` (autofuse's fusion of the core-ATen graph) and ``autofuse-inductor``
(Inductor's fusion, each fused node one autofuse kernel).

    import autofuse.torch
    compiled = torch.compile(model, backend="autofuse", dynamic=True)

``report()`` says what each compiled graph became (kernels, boundary ops, ops left to
torch with their reasons, GM bytes and chip-model cycles of the kernels run);
``compare(model, *inputs)`` puts autofuse's fusion beside Inductor's on the same model.
"""

from __future__ import annotations

from torch._dynamo import register_backend

from .backend import REPORTS, GraphReport, autofuse_backend
from .compare import compare

from .inductor import autofuse_inductor_backend

register_backend(name="autofuse")(autofuse_backend)
register_backend(name="autofuse-inductor")(autofuse_inductor_backend)


def reports() -> list[GraphReport]:
    """One record per FX graph compiled since the process started (or `reset()`)."""
    return list(REPORTS)


def reset() -> None:
    """Forgets the reports and Dynamo's graph-break counts."""
    from torch._dynamo.utils import counters

    REPORTS.clear()
    counters["graph_break"].clear()


def report() -> str:
    """A table per compiled graph: what autofuse made of it and what its calls ran."""
    lines = []
    for r in REPORTS:
        status = "compiled" if r.compiled else f"runs on torch: {r.reason}"
        lines.append(f"graph {r.name}: {r.fx_ops} ATen ops, {status}")
        if r.compiled:
            boundary = ", ".join(f"{k} x{v}" for k, v in sorted(r.boundary_ops.items())) or "none"
            lines.append(f"  kernels {r.kernels}, launches per call {r.launches}, boundary ops: {boundary}")
            if r.target == "npu":
                lines.append("  kernels launch through the NPU glue library (npu.py)")
            for op, why in sorted(r.torch_ops.items()):
                lines.append(f"  left to torch: {op}: {why}")
            if r.backend == "autofuse-inductor":
                lines.append(f"  Inductor kernels run with torch: {r.torch_kernel_runs} runs; AscGraphs: {r.mlir_path}")
            lines.append(
                f"  calls {r.calls} ({r.fallback_calls} on torch), kernel runs {r.kernel_runs}, "
                f"GM read {r.gm_read} B, written {r.gm_written} B, chip-model cycles {r.cycles:.0f}, "
                f"compile {r.compile_seconds:.1f} s"
            )
            for why in r.fallback_reasons:
                lines.append(f"  a call ran on torch: {why}")
    breaks = graph_breaks()
    for reason, count in sorted(breaks.items()):
        lines.append(f"Dynamo graph break x{count}: {reason}")
    return "\n".join(lines) + ("\n" if lines else "")


def graph_breaks() -> dict[str, int]:
    """Dynamo's graph breaks since the last reset, by reason (each part of a broken
    graph is compiled on its own)."""
    from torch._dynamo.utils import counters

    return {str(reason).splitlines()[0]: n for reason, n in counters["graph_break"].items()}
