"""Running a compiled graph in process: fused kernels on the Ascend C emulation through
the kernels' shared library (ctypes, called with the tensors' data pointers), every
other op of the compiled graph with torch.

The plan (``plan.json``, written by ``autofuse-run --emit-library``) lists the graph
functions after autofuse's pipeline. A call of a kernel or launch goes to the library's
``af_kernel_run``; a call of an external function (``@torch_op_N``) runs the ATen op the
FX graph held; the remaining ``ascend`` ops (matmul, convolution and ops left unfused)
run by their torch equivalents below.
"""

from __future__ import annotations

import ctypes
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

import torch
import torch.nn.functional as F

from .fx_to_ascend import TORCH_DTYPES, ExternCall, _Operand, _Size
from .symbolic import evaluate


class KernelError(RuntimeError):
    """A kernel the library could not run (no tiling case for these shapes, or the
    emulation failed)."""


@dataclass
class LaunchRecord:
    kernel: str
    gm_read: int
    gm_written: int
    cycles: float


@dataclass
class CallStats:
    """What the last calls ran: kernels on the emulation, ops on torch."""

    launches: list[LaunchRecord] = field(default_factory=list)
    torch_ops: list[str] = field(default_factory=list)


class Library:
    """The kernels' shared library, loaded once per path."""

    _loaded: dict[str, "Library"] = {}

    def __init__(self, path: str):
        self.lib = ctypes.CDLL(path)
        self.lib.af_kernel_run.restype = ctypes.c_int
        self.lib.af_kernel_run.argtypes = [
            ctypes.c_char_p, ctypes.c_char_p, ctypes.c_uint32, ctypes.c_uint32,
            ctypes.POINTER(ctypes.c_int64), ctypes.c_int,
            ctypes.POINTER(ctypes.c_void_p), ctypes.c_int,
            ctypes.POINTER(ctypes.c_void_p), ctypes.c_int,
            ctypes.POINTER(ctypes.c_double),
        ]
        self.lib.af_kernel_output_dims.restype = ctypes.c_int
        self.lib.af_kernel_output_dims.argtypes = [
            ctypes.c_char_p, ctypes.POINTER(ctypes.c_int64), ctypes.c_int, ctypes.POINTER(ctypes.c_int64),
        ]
        self.lib.af_last_error.restype = ctypes.c_char_p

    @classmethod
    def load(cls, path: str) -> "Library":
        if path not in cls._loaded:
            cls._loaded[path] = Library(path)
        return cls._loaded[path]

    def output_dims(self, symbol: str, sym: ctypes.Array, output: int) -> list[int]:
        dims = (ctypes.c_int64 * 16)()
        rank = self.lib.af_kernel_output_dims(symbol.encode(), sym, output, dims)
        if rank < 0:
            raise KernelError(f"{symbol}: no output {output}")
        return [int(dims[i]) for i in range(rank)]

    def run(self, kernel: dict, sym_values: list[int], inputs: list[torch.Tensor], output_dtypes, name: str):
        symbol = kernel["symbol"]
        sym = (ctypes.c_int64 * max(1, len(sym_values)))(*sym_values)
        outputs = [
            torch.empty(self.output_dims(symbol, sym, i), dtype=dt)
            for i, dt in enumerate(output_dtypes)
        ]
        ins = (ctypes.c_void_p * max(1, len(inputs)))(*[t.data_ptr() for t in inputs])
        outs = (ctypes.c_void_p * max(1, len(outputs)))(*[t.data_ptr() for t in outputs])
        stats = (ctypes.c_double * 5)()
        code = self.lib.af_kernel_run(
            symbol.encode(), kernel["chip"].encode(), kernel["cores"], kernel["ub"],
            sym, len(sym_values), ins, len(inputs), outs, len(outputs), stats,
        )
        if code != 0:
            why = self.lib.af_last_error().decode(errors="replace")
            if code == 4:
                why = "no tiling case fits these shapes"
            raise KernelError(f"kernel @{name} ({symbol}): code {code}: {why}")
        return outputs, LaunchRecord(name, int(stats[0]), int(stats[1]), float(stats[3]))


class Plan:
    """A compiled graph: the plan of its module and the library of its kernels."""

    def __init__(self, plan_path: Path, externs: dict[str, ExternCall], library=None):
        self.plan = json.loads(Path(plan_path).read_text())
        # The emulation's library, or another with its `run` (the NPU glue, npu.py).
        self.library = library if library is not None else Library.load(self.plan["library"])
        self.externs = externs
        costs = {k["costs"] for k in self.plan["kernels"].values()}
        if len(costs) == 1:
            # The emulation's chip-model constants, as the runner passes them.
            os.environ["ASCENDC_SIM_COSTS"] = costs.pop()
        self.stats = CallStats()

    def run(self, inputs: list[torch.Tensor], symbols: dict[str, int]) -> list[torch.Tensor]:
        self.stats = CallStats()
        return self.run_graph(self.plan["entry"], inputs, symbols)

    def run_graph(self, name: str, inputs: list[torch.Tensor], symbols: dict[str, int]) -> list[torch.Tensor]:
        graph = self.plan["graphs"][name]
        values: dict[int, torch.Tensor] = dict(zip(graph["arguments"], inputs))
        types = graph["types"]
        # Ops that make tensors (constants, ranges) make them on the host; the graph's
        # values live where its inputs do.
        device = inputs[0].device if inputs else None
        for node in graph["nodes"]:
            operands = [values[v] for v in node["operands"]]
            if node["op"] == "func.call":
                outs = self.call(node["attrs"]["callee"]["symbol"], operands, node, types, symbols)
            else:
                out = run_op(node, operands, types, symbols)
                outs = [out.to(device) if device is not None and out.device != device else out]
            for v, t in zip(node["results"], outs):
                values[v] = t
        return [values[v] for v in graph["outputs"]]

    def call(self, callee: str, operands, node, types, symbols):
        kernel = self.plan["kernels"].get(callee)
        if kernel is not None:
            missing = [s for s in kernel["symbols"] if s not in symbols]
            if missing:
                raise KernelError(f"@{callee}: no value for its symbols {', '.join(missing)} from the graph's inputs")
            sym_values = [symbols[s] for s in kernel["symbols"]]
            dtypes = [TORCH_DTYPES[types[v]["dtype"]] for v in node["results"]]
            contiguous = [t.contiguous() for t in operands]
            outs, record = self.library.run(kernel, sym_values, contiguous, dtypes, callee)
            self.stats.launches.append(record)
            return outs
        if callee in self.externs:
            extern = self.externs[callee]
            self.stats.torch_ops.append(str(extern.target))
            out = run_extern(extern, operands, symbols)
            return list(out) if isinstance(out, (tuple, list)) else [out]
        if callee in self.plan["graphs"]:
            return self.run_graph(callee, operands, symbols)
        why = self.plan["interpreted"].get(callee, "not built")
        raise KernelError(f"@{callee} has no kernel in the library: {why}")


def run_extern(extern: ExternCall, operands, symbols):
    def put(a):
        if isinstance(a, _Operand):
            return operands[a.index]
        if isinstance(a, _Size):
            return evaluate(a.text, symbols)
        if isinstance(a, (list, tuple)):
            return type(a)(put(x) for x in a)
        return a

    args = tuple(put(a) for a in extern.args)
    kwargs = {k: put(a) for k, a in extern.kwargs.items()}
    return extern.target(*args, **kwargs)


def dims_of(ty: dict, symbols: dict[str, int]) -> list[int]:
    return [evaluate(d, symbols) for d in ty["dims"]]


def dense_tensor(attr: dict, ty: dict, symbols) -> torch.Tensor:
    dtype = TORCH_DTYPES[ty["dtype"]]
    values = [float(v) if isinstance(v, str) else v for v in attr["dense"]]
    shape = dims_of(ty, symbols)
    if attr["splat"] or len(values) == 1:
        return torch.full(shape, values[0] if values else 0, dtype=dtype)
    return torch.tensor(values, dtype=torch.float64).to(dtype).reshape(shape)


def _ints(attr) -> list[int]:
    return [int(a) for a in attr]


def _sizes(attr, symbols) -> list[int]:
    return [a if isinstance(a, int) else evaluate(a, symbols) for a in attr]


def run_op(node: dict, xs: list[torch.Tensor], types: list, symbols: dict[str, int]) -> torch.Tensor:
    """One `ascend` op with torch (the reference semantics of docs/dialects/ascend.md)."""
    op = node["op"].removeprefix("ascend.")
    a = node["attrs"]
    out_ty = types[node["results"][0]]
    out_dtype = TORCH_DTYPES[out_ty["dtype"]]
    if op in UNARY:
        return UNARY[op](xs[0]).to(out_dtype)
    if op in BINARY:
        return BINARY[op](xs[0], xs[1]).to(out_dtype)
    if op.startswith("reduce_"):
        axes = [int(x) for x in a["axes"]]
        keep = bool(a.get("keep_dims", False))
        x = xs[0]
        fn = {"reduce_sum": torch.sum, "reduce_mean": torch.mean, "reduce_max": torch.amax,
              "reduce_min": torch.amin, "reduce_prod": None, "reduce_any": None, "reduce_all": None}[op]
        if fn is not None:
            return fn(x, dim=axes, keepdim=keep).to(out_dtype)
        for axis in sorted(axes, reverse=True):
            x = {"reduce_prod": torch.prod, "reduce_any": torch.any, "reduce_all": torch.all}[op](x, dim=axis, keepdim=keep)
        return x.to(out_dtype)
    if op == "cast":
        return xs[0].to(out_dtype)
    if op in ("reshape", "broadcast_to"):
        shape = dims_of(out_ty, symbols)
        return xs[0].reshape(shape) if op == "reshape" else xs[0].broadcast_to(shape)
    if op == "squeeze":
        x = xs[0]
        for axis in sorted(_ints(a["axes"]), reverse=True):
            x = x.squeeze(axis)
        return x
    if op == "unsqueeze":
        x = xs[0]
        for axis in sorted(_ints(a["axes"])):
            x = x.unsqueeze(axis)
        return x
    if op == "transpose":
        return xs[0].permute(_ints(a["perm"]))
    if op == "concat":
        return torch.cat([xs[0], xs[1]], dim=int(a["axis"]))
    if op == "slice":
        x = xs[0]
        index = [slice(None)] * x.dim()
        for s, e, axis, step in zip(_sizes(a["starts"], symbols), _sizes(a["ends"], symbols), _ints(a["axes"]), _ints(a["steps"])):
            index[axis] = slice(s, e, step)
        return x[tuple(index)]
    if op == "gather":
        axis = int(a["axis"])
        idx = xs[1].long()
        idx = torch.where(idx < 0, idx + xs[0].shape[axis], idx)
        return torch.index_select(xs[0], axis, idx.reshape(-1)).reshape(
            list(xs[0].shape[:axis]) + list(idx.shape) + list(xs[0].shape[axis + 1:]))
    if op == "gather_elements":
        return torch.gather(xs[0], int(a["axis"]), xs[1].long())
    if op == "select":
        return torch.where(xs[0].bool(), xs[1], xs[2]).to(out_dtype)
    if op == "softmax":
        return torch.softmax(xs[0], dim=int(a["axis"]))
    if op == "log_softmax":
        return torch.log_softmax(xs[0], dim=int(a["axis"]))
    if op == "layer_norm":
        axis = int(a["axis"])
        return F.layer_norm(xs[0], xs[0].shape[axis:], xs[1], xs[2], float(a["epsilon"]))
    if op == "rms_norm":
        axis = int(a["axis"])
        dims = list(range(axis, xs[0].dim()))
        x = xs[0].float()
        y = x * torch.rsqrt(x.pow(2).mean(dim=dims, keepdim=True) + float(a["epsilon"]))
        return (y * xs[1].float()).to(out_dtype)
    if op == "gelu":
        return F.gelu(xs[0], approximate=a.get("approximate", "none"))
    if op == "leaky_relu":
        return F.leaky_relu(xs[0], float(a["alpha"]))
    if op == "clip":
        return torch.minimum(torch.maximum(xs[0], xs[1]), xs[2])
    if op == "cumsum":
        x = xs[0]
        axis = int(a["axis"])
        if a.get("reverse"):
            x = x.flip(axis)
        y = torch.cumsum(x, dim=axis).to(out_dtype)
        if a.get("exclusive"):
            y = y - x.to(out_dtype)
        return y.flip(axis) if a.get("reverse") else y
    if op == "matmul":
        lhs, rhs = xs
        if a.get("transpose_a"):
            lhs = lhs.transpose(-1, -2)
        if a.get("transpose_b"):
            rhs = rhs.transpose(-1, -2)
        return torch.matmul(lhs, rhs).to(out_dtype)
    if op == "constant":
        return dense_tensor(a["value"], out_ty, symbols)
    if op == "range":
        n = dims_of(out_ty, symbols)[0]
        start = a["start"]
        start = evaluate(start, symbols) if isinstance(start, str) else start
        return (start + a["delta"] * torch.arange(n, dtype=torch.float64)).to(out_dtype)
    if op == "symbolic_constant":
        values = [v if isinstance(v, int) else evaluate(v, symbols) for v in a["values"]]
        return torch.tensor(values, dtype=out_dtype).reshape(dims_of(out_ty, symbols))
    if op == "conv":
        spatial = xs[0].dim() - 2
        conv = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}.get(spatial)
        if conv is None:
            raise KernelError(f"a {spatial}-D convolution")
        pads = _sizes(a["pads"], symbols)
        begin, end = pads[:spatial], pads[spatial:]
        x = xs[0]
        if begin != end:
            flat = []
            for axis in reversed(range(spatial)):
                flat += [begin[axis], end[axis]]
            x, begin = F.pad(x, flat), [0] * spatial
        return conv(x, xs[1], None, _ints(a["strides"]), begin, _ints(a["dilations"]), int(a["groups"])).to(out_dtype)
    if op == "pad":
        return _pad(xs[0], a, symbols)
    raise KernelError(f"the torch executor has no rule for {node['op']}")


def _pad(x, a, symbols):
    pads = _sizes(a["pads"], symbols)
    rank = x.dim()
    torch_pads = []
    for axis in reversed(range(rank)):
        torch_pads += [pads[axis], pads[axis + rank]]
    mode = a.get("mode", "constant")
    if mode == "constant":
        return F.pad(x, torch_pads, value=float(a.get("value", 0.0)))
    return F.pad(x, torch_pads, mode={"edge": "replicate", "reflect": "reflect", "wrap": "circular"}[mode])


UNARY = {
    "abs": torch.abs, "neg": torch.neg, "exp": torch.exp, "log": torch.log, "sqrt": torch.sqrt,
    "rsqrt": torch.rsqrt, "reciprocal": torch.reciprocal, "relu": torch.relu, "sigmoid": torch.sigmoid,
    "tanh": torch.tanh, "erf": torch.erf, "sign": torch.sign, "floor": torch.floor, "ceil": torch.ceil,
    "round": torch.round, "sin": torch.sin, "cos": torch.cos, "square": torch.square,
    "logical_not": torch.logical_not, "isnan": torch.isnan, "isfinite": torch.isfinite,
    "bitwise_not": torch.bitwise_not, "silu": F.silu, "swish": F.silu,
}

BINARY = {
    "add": torch.add, "sub": torch.sub, "mul": torch.mul, "div": torch.div, "pow": torch.pow,
    "maximum": torch.maximum, "minimum": torch.minimum,
    "floor_div": lambda x, y: torch.div(x, y, rounding_mode="floor"),
    "mod": torch.remainder, "logical_and": torch.logical_and, "logical_or": torch.logical_or,
    "logical_xor": torch.logical_xor, "bitwise_and": torch.bitwise_and,
    "eq": torch.eq, "ne": torch.ne, "lt": torch.lt, "le": torch.le, "gt": torch.gt, "ge": torch.ge,
}
