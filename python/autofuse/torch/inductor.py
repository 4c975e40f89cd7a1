"""``torch.compile(model, backend="autofuse-inductor")``: Inductor's fusion, autofuse's
kernels (route 2).

Inductor (``torch._inductor.compile_fx``) lowers and schedules the graph and decides the
fusion; an autofuse device backend, registered through Inductor's public hooks
(``register_backend_for_device``, ``register_device_op_overrides``), generates the
code. Each fused scheduler node (its nodes' loop bodies, recorded by
``loop_ir.Recorder``) becomes ONE AscGraph (``ascgraph.py``) that autofuse schedules,
tiles and builds as Ascend C for the emulation, bypassing ``--fuse``; Inductor's extern
calls (``mm``, ``addmm``, ``bmm``, convolutions, fallback ops) stay torch calls in its
wrapper. A fused node autofuse cannot express runs with torch (its recorded loop body
evaluated over the whole iteration space), counted in ``report()`` with the reason.

The backend is registered for the device of the graph's tensors (``cpu`` here, where
there is no NPU; ``npu`` with torch_npu) only while our compile runs, and the previous
registration is restored afterwards: ``backend="inductor"`` keeps working in the same
process. On an NPU (or with ``AUTOFUSE_NPU=1``) the kernels launch through the
generated NPU glue (npu.py), as route 1's do.
"""

from __future__ import annotations

import contextlib
import hashlib
import math
import os
import threading
import time
from dataclasses import dataclass, field

import sympy
import torch
from sympy import prod as sympy_product

from . import ascgraph
from .backend import REPORTS, GraphReport, _eager, _on_npu
from .loop_ir import (LoopKernel, Recorder, all_symbols, evaluate, flat_storage, group_vars, index_splits,
                      order_axes_by_store, refine, simplify_indices, unknown_index_heads)

_LOCK = threading.Lock()


@dataclass
class InductorGraph:
    """One Inductor graph compiled by route 2: its recorded kernels, which of them are
    autofuse's (built into one library on first call) and which run with torch."""

    key: str
    report: GraphReport
    kernels: list[LoopKernel] = field(default_factory=list)
    indirect: dict = field(default_factory=dict)
    module: "ascgraph.BuiltModule | None" = None
    built: bool = False
    # Whether the kernels launch through the NPU glue (the graph's tensors are on an
    # NPU, or AUTOFUSE_NPU=1).
    npu: bool = False

    def build(self) -> None:
        if self.built:
            return
        self.built = True
        start = time.perf_counter()
        ours = [k for k in self.kernels if not k.unsupported]
        self.module = ascgraph.build_module(self.key, ours, self.report, npu=self.npu)
        self.report.compile_seconds += time.perf_counter() - start
        for k in ours:
            if self.module is not None and k.name not in self.module.kernels and not k.unsupported:
                why = self.module.plan.get("interpreted", {}).get(k.name, "not built")
                k.unsupported.append(f"autofuse did not build it: {why}")
        for k in self.kernels:
            if k.unsupported:
                self.report.torch_ops[f"kernel {k.name} ({', '.join(k.node_names)})"] = "; ".join(dict.fromkeys(k.unsupported))
        self.report.kernels = len(self.module.kernels) if self.module else 0
        externs = sum(self.report.boundary_ops.values())
        self.report.launches = len(self.kernels) + externs

    def run(self, index: int, tensors: dict[str, torch.Tensor], symbols: dict[str, int]) -> None:
        self.build()
        if index == 0:
            self.report.calls += 1
        kernel = self.kernels[index]
        forced = os.environ.get("AUTOFUSE_INDUCTOR_TORCH", "").split(",")
        if self.module is not None and kernel.name in self.module.kernels and kernel.name not in forced:
            record = self.module.run(kernel, tensors, symbols)
            if os.environ.get("AUTOFUSE_INDUCTOR_CHECK"):
                self.check(kernel, tensors, symbols)
            self.report.kernel_runs += 1
            self.report.gm_read += record.gm_read
            self.report.gm_written += record.gm_written
            self.report.cycles += record.cycles
            return
        self.report.torch_kernel_runs += 1
        evaluate(kernel, tensors, symbols, self.indirect.get(kernel.name, {}))


    def check(self, kernel: LoopKernel, tensors, symbols) -> None:
        """Debugging (``AUTOFUSE_INDUCTOR_CHECK=1``): runs the kernel's loop body
        with torch on copies of its outputs and prints the largest difference."""
        written = {s.buffer for s in kernel.stores if s.buffer not in kernel.removed}
        copies = {n: (_storage_copy(t) if n in written else t) for n, t in tensors.items()}
        evaluate(kernel, copies, symbols, self.indirect.get(kernel.name, {}))
        for n in written:
            # The whole storage from the buffer's start: a kernel must not write
            # outside its buffer's elements either.
            mine, theirs = flat_storage(tensors[n]), flat_storage(copies[n])
            # Elements equal as IEEE values or both NaN (memory neither writes may hold
            # NaN bytes) differ by 0; a NaN on one side only is an infinite difference.
            a, b = mine.double(), theirs.double()
            same = (a == b) | (torch.isnan(a) & torch.isnan(b))
            gap = torch.where(same, torch.zeros_like(a), (a - b).abs().nan_to_num(nan=math.inf))
            diff = gap.max().item() if mine.numel() else 0.0
            print(f"autofuse-inductor check: {self.key} {kernel.name} {n}: max difference {diff:.3e}")


def _storage_copy(t: torch.Tensor) -> torch.Tensor:
    """A copy of `t` with its own copy of the storage it views (its strides kept)."""
    base = flat_storage(t).clone()
    return torch.as_strided(base, t.shape, t.stride())


GRAPHS: dict[str, InductorGraph] = {}
_CURRENT: list[InductorGraph] = []


def _scheduling_class():
    from torch._inductor.codegen.simd import SIMDScheduling
    from torch._inductor.virtualized import V

    class AutofuseScheduling(SIMDScheduling):
        """Inductor's SIMD fusion rules (equal numel and reduction numel), autofuse's
        code: each fused node becomes one recorded kernel and one call in the wrapper."""

        def can_fuse(self, node1, node2):
            if not super().can_fuse(node1, node2):
                return False
            if node1.is_reduction() and node2.is_reduction():
                # Only reductions over one iteration space: mixed-order and nested
                # reductions are not one AscGraph.
                return node1.group[1] == node2.group[1]
            return True

        can_fuse_vertical = can_fuse
        can_fuse_horizontal = can_fuse

        def codegen_template(self, *args, **kwargs):
            raise NotImplementedError("autofuse-inductor has no templates")

        def codegen_sync(self):
            pass

        def flush(self):
            pass

        def ready_to_flush(self):
            return False

        def benchmark_fused_nodes(self, nodes):
            raise NotImplementedError("autofuse-inductor does not benchmark")

        def codegen_combo_kernel(self, *args, **kwargs):
            raise NotImplementedError("autofuse-inductor has no combo kernels")

        def codegen_node(self, node):
            graph = _CURRENT[-1]
            nodes = [n for n in node.get_nodes() if n.__class__.__name__ == "SchedulerNode"]
            kernel = record_kernel(nodes, f"k{len(graph.kernels)}", graph)
            graph.kernels.append(kernel)
            scheduler = V.graph.scheduler
            fused = {n.get_name() for n in nodes}
            for store in kernel.stores:
                name = store.buffer
                if name not in kernel.reads and scheduler.can_buffer_be_removed_through_fusion(name, fused) \
                        and name not in V.graph.get_output_names():
                    kernel.removed.add(name)
                    V.graph.removed_buffers.add(name)
            for n in nodes:
                n.mark_run()
            names = list(dict.fromkeys(kernel.reads + [s.buffer for s in kernel.stores if s.buffer not in kernel.removed]))
            tensors = "{" + ", ".join(f"{n!r}: {n}" for n in names) + "}"
            syms = "{" + ", ".join(f"{s!r}: {s}" for s in all_symbols(kernel)) + "}"
            V.graph.wrapper_code.writeline(
                f"_autofuse_graphs[{graph.key!r}].run({len(graph.kernels) - 1}, {tensors}, {syms})")
            self.free_buffers_in_scheduler()

    return AutofuseScheduling


def record_kernel(nodes, name: str, graph: InductorGraph) -> LoopKernel:
    """Runs each node's loop body with the ``Recorder`` as Inductor's ops handler over
    the kernel's axes (the common refinement of the nodes' ranges, reductions last).
    Where an index takes an axis apart (``ModularIndexing(z, d, m)``, ``FloorDiv(z, d)``:
    a reshape Inductor could not merge away), the axis is split at those points and
    the bodies recorded again, so the indices become affine."""
    from torch._inductor.virtualized import V

    kernel, recorder = _record(nodes, name, graph, [])
    for _ in range(3):
        if kernel.unrunnable:
            break
        splits = index_splits(kernel, list(recorder.numbered.values()))
        if not splits:
            break
        finer, again = _record(nodes, name, graph, splits)
        if finer.unrunnable:
            break
        kernel, recorder = finer, again
        ranges = dict(zip(kernel.axis_symbols(), kernel.axes))
        simplify_indices(kernel, list(recorder.numbered.values()),
                         lambda e: V.graph.sizevars.simplify_with_ranges(e, ranges))
    graph.indirect[name] = dict(recorder.indirect)
    unknown = unknown_index_heads(kernel)
    if unknown and not kernel.unrunnable:
        kernel.unrunnable = f"index functions torch cannot evaluate here: {', '.join(sorted(unknown))}"
    if not kernel.unrunnable:
        order_axes_by_store(kernel, list(recorder.numbered.values()))
    for buffer in kernel.reads + [s.buffer for s in kernel.stores]:
        layout = V.graph.get_buffer(buffer).get_layout()
        kernel.storage[buffer] = (layout.dtype, layout.storage_size())
    return kernel


def _record(nodes, name: str, graph: InductorGraph, extra: list) -> tuple[LoopKernel, Recorder]:
    """One recording of the nodes' bodies over the common refinement of their ranges
    and the `extra` lists of sizes."""
    from torch._inductor.codegen.common import Kernel
    from torch._inductor.virtualized import V

    ranges = [n.get_ranges() for n in nodes]
    kernel = LoopKernel(name, [], 0, node_names=[n.get_name() for n in nodes])
    rnumel = next((sympy_product(r) for _, r in ranges if r), sympy.Integer(1))
    total = next((sympy_product(s) * rnumel for s, r in ranges if r), None)
    # A pointwise node over the outer axes only (an epilogue of the reduction, e.g.
    # rsqrt(var + eps) per row) walks the outer axes; its values have the reduction
    # axes collapsed, as a reduction's result.
    outer_only = [total is not None and not r and sympy.simplify(sympy_product(s) - total) != 0
                  for s, r in ranges]
    axes = refine([list(s) + (list(r) if not o else [rnumel]) for (s, r), o in zip(ranges, outer_only)] + extra)
    if axes is None:
        kernel.unsupported.append(f"loop ranges without a common refinement: {ranges}")
        kernel.unrunnable = kernel.unsupported[-1]
        axes = []
    # The reduction axes: the suffix of the refined axes whose product is the
    # reduction size (a split point of every reduction node's ranges).
    split, product = len(axes), sympy.Integer(1)
    while split > 0 and sympy.simplify(product - rnumel) != 0:
        split -= 1
        product = product * axes[split]
    if sympy.simplify(product - rnumel) != 0:
        kernel.unsupported.append(f"no reduction axes of size {rnumel} in {axes}")
    kernel.axes = axes
    kernel.reduction_axes = len(axes) - split
    zs = kernel.axis_symbols()
    recorder = Recorder(kernel, V.graph.get_dtype)

    class _Holder(Kernel):
        overrides = None

    holder = _Holder(increase_kernel_count=False)
    with V.set_ops_handler(recorder), V.set_kernel_handler(holder):
        for n, (sizes, rsizes) in zip(nodes, ranges):
            try:
                pvars, next_axis = group_vars(list(sizes), kernel.axes, zs, 0)
                rvars, _ = group_vars(list(rsizes), kernel.axes, zs, next_axis)
            except ValueError as e:
                kernel.unsupported.append(str(e))
                kernel.unrunnable = str(e)
                pvars = [sympy.Integer(0)] * len(sizes)
                rvars = [sympy.Integer(0)] * len(rsizes)
            n.codegen([pvars, rvars])
    return kernel, recorder


def _op_overrides_class():
    from torch._inductor.codegen.common import DeviceOpOverrides

    class AutofuseOpOverrides(DeviceOpOverrides):
        """The device op overrides Inductor asks a device for (streams, device
        guards): the emulation has no streams, so each is a no-op line."""

        def import_get_raw_stream_as(self, name: str) -> str:
            return f"def {name}(_device): return None"

        def set_device(self, device_idx) -> str:
            return "pass"

        def synchronize(self) -> str:
            return "pass"

        def device_guard(self, device_idx) -> str:
            return "contextlib.nullcontext()"

    return AutofuseOpOverrides


@contextlib.contextmanager
def registered_for(device: str):
    """Registers the autofuse scheduling and wrapper for `device` (``cpu``, or ``npu``
    with torch_npu) for the duration of one compile, restoring the registration it had
    afterwards."""
    from torch._inductor.codegen import common
    from torch._inductor.codegen.common import (
        get_device_op_overrides, init_backend_registration, register_backend_for_device,
        register_device_op_overrides,
    )
    from torch._inductor.codegen.wrapper import PythonWrapperCodegen

    init_backend_registration()
    previous = common.device_codegens.get(device)
    if previous is None and device == "cpu":
        raise RuntimeError("Inductor has no cpu backend registered")
    previous_overrides = get_device_op_overrides(device) if previous is not None else None

    class AutofuseWrapper(PythonWrapperCodegen):
        """Inductor's Python wrapper with the autofuse graphs' registry imported."""

        @staticmethod
        def create(is_subgraph, subgraph_name, parent_wrapper, partition_signatures=None):
            if is_subgraph:
                return PythonWrapperCodegen.create(is_subgraph, subgraph_name, parent_wrapper, partition_signatures)
            return AutofuseWrapper()

        def write_header(self):
            super().write_header()
            self.header.writeline("from autofuse.torch.inductor import GRAPHS as _autofuse_graphs")

    register_backend_for_device(device, _scheduling_class(), AutofuseWrapper)
    register_device_op_overrides(device, _op_overrides_class()())
    try:
        yield
    finally:
        if previous is None:
            # A device Inductor had no backend for (an NPU without torch_npu's): its
            # registry entries go, as they were before (Inductor has no unregister).
            common.device_codegens.pop(device, None)
            common.device_op_overrides_dict.pop(device, None)
        else:
            register_device_op_overrides(device, previous_overrides)
            register_backend_for_device(
                device, previous.scheduling, previous.wrapper_codegen, previous.cpp_wrapper_codegen,
                previous.fx_wrapper_codegen)


def autofuse_inductor_backend(gm: torch.fx.GraphModule, example_inputs, **kwargs):
    """The Dynamo backend ``autofuse-inductor``: Inductor's compile_fx with autofuse's
    device backend for the duration of the compile."""
    from torch._inductor import config
    from torch._inductor.compile_fx import compile_fx

    def inner(graph_module, inputs, **kw):
        from torch._inductor.compile_fx import compile_fx_inner

        digest = hashlib.sha256(graph_module.code.encode() + str(len(GRAPHS)).encode()).hexdigest()[:16]
        report = GraphReport(name=f"inductor_{len(REPORTS)}", compiled=True, backend="autofuse-inductor")
        report.fx_ops = sum(1 for n in graph_module.graph.nodes if n.op == "call_function")
        REPORTS.append(report)
        graph = InductorGraph(digest, report, npu=_on_npu(inputs))
        GRAPHS[digest] = graph
        _CURRENT.append(graph)
        try:
            compiled = compile_fx_inner(graph_module, inputs, **kw)
        finally:
            _CURRENT.pop()
        _count_externs(graph_module, report)
        graph.build()
        stuck = [k for k in graph.kernels if k.unsupported and k.unrunnable]
        if stuck:
            # Neither autofuse's kernel nor the torch evaluation of its loop body: the
            # graph runs eagerly, refused now rather than failing at its first call.
            k = stuck[0]
            raise _Refused(f"kernel {k.name} ({', '.join(k.node_names)}): {'; '.join(k.unsupported)}; "
                           f"and {k.unrunnable}", report)
        return compiled

    patches = {
        # Our code generator, not a cached one of another backend's.
        "fx_graph_cache": False, "fx_graph_remote_cache": False, "autotune_local_cache": False,
        "force_disable_caches": True,
        # Kernels write their own outputs (no Inductor in-place buffer reuse) from a
        # Python wrapper.
        "inplace_buffers": False, "cpp_wrapper": False, "max_autotune": False,
        "combo_kernels": False, "freezing": False,
    }
    try:
        device = next((x.device.type for x in example_inputs if isinstance(x, torch.Tensor)), "cpu")
        with _LOCK, registered_for(device), config.patch(patches):
            return compile_fx(gm, example_inputs, inner_compile=inner)
    except _Refused as refused:
        refused.report.compiled = False
        refused.report.reason = f"left to torch (eager): {refused.reason}"
        refused.report.kernels = 0
        return _eager(gm)


class _Refused(Exception):
    """A graph route 2 cannot run: a kernel neither autofuse nor the torch evaluator
    of recorded loop bodies can run."""

    def __init__(self, reason: str, report: GraphReport):
        super().__init__(reason)
        self.reason = reason
        self.report = report


def _count_externs(gm: torch.fx.GraphModule, report: GraphReport) -> None:
    """The ATen ops Inductor leaves as torch calls (extern kernels and fallbacks) are
    not known here in detail; the FX graph's matmuls and convolutions are named."""
    for n in gm.graph.nodes:
        if n.op == "call_function" and any(k in str(n.target) for k in ("mm", "convolution", "addmm", "bmm")):
            key = f"torch:{n.target}"
            report.boundary_ops[key] = report.boundary_ops.get(key, 0) + 1

