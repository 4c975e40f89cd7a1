"""An FX graph of core ATen ops (aot_autograd's inference graph) as an ``ascend`` graph.

Each placeholder and each lifted constant (``get_attr``) becomes an argument of the
function ``@graph``: parameters and buffers stay torch tensors, passed by reference at
every call, never copied into the IR. Each covered ATen op becomes ``ascend`` ops; any
other op becomes a call of an external function (``@torch_op_N``) whose result types
FX's fake tensors give: the compiler keeps it as a boundary op and the executor runs it
with torch. SymInts keep Dynamo's names (``s0``): the arguments' dims carry them in the
``#ascend.dims`` encoding, and sizes computed from them (views, expands, ranges) are
autofuse shape expressions.
"""

from __future__ import annotations

import math
import operator
import struct
from dataclasses import dataclass, field

import torch

from .symbolic import Unsupported, expr_text

aten = torch.ops.aten

DTYPES = {
    torch.float32: "f32",
    torch.float16: "f16",
    torch.bfloat16: "bf16",
    torch.int64: "i64",
    torch.int32: "i32",
    torch.int16: "i16",
    torch.int8: "i8",
    torch.uint8: "ui8",
    torch.bool: "i1",
}
TORCH_DTYPES = {v: k for k, v in DTYPES.items()}


@dataclass
class Value:
    """A tensor value of the graph: its SSA name, element type and dims (expression
    texts)."""

    name: str
    dtype: torch.dtype
    dims: list[str]

    def type_text(self, encode: bool = False) -> str:
        return tensor_type(self.dtype, self.dims, encode)


def tensor_type(dtype: torch.dtype, dims: list[str], encode: bool) -> str:
    if dtype not in DTYPES:
        raise Unsupported(f"element type {dtype}")
    shape = "".join(f"{d}x" if d.lstrip("-").isdigit() else "?x" for d in dims)
    text = f"tensor<{shape}{DTYPES[dtype]}"
    if encode and any(not d.isdigit() for d in dims):
        quoted = ", ".join(f'"{d}"' for d in dims)
        text += f", #ascend.dims<[{quoted}]>"
    return text + ">"


@dataclass
class ExternCall:
    """An op autofuse does not cover, run by torch between kernels: the FX node's
    target with its arguments, tensors replaced in order by the call's operands."""

    target: object
    args: tuple
    kwargs: dict
    reason: str


@dataclass
class Converted:
    text: str
    # Per MLIR argument: ("input", placeholder index), ("attr", qualified name) or
    # ("host", (node name, dtype)): a host value converted (see `Host`).
    arguments: list[tuple[str, object]]
    # Per FX output: ("value", MLIR result index), ("expr", size text), ("const", v).
    outputs: list[tuple[str, object]]
    externs: dict[str, ExternCall]
    # Symbol -> (MLIR argument index, axis) that binds it.
    bindings: dict[str, tuple[int, int]]
    # Op name -> count, for the report: what became ascend ops and what stayed torch's.
    converted_ops: dict[str, int] = field(default_factory=dict)
    torch_ops: dict[str, str] = field(default_factory=dict)
    # The host computation (`Host`): placeholder name -> index, nodes in order.
    host_inputs: dict[str, int] = field(default_factory=dict)
    host_nodes: list = field(default_factory=list)
    # Conditions on the symbols the conversion assumed (`assert(expr < bound)`), checked
    # per call like autofuse's own guards.
    guards: list[str] = field(default_factory=list)

    def host_values(self, args) -> dict[str, torch.Tensor]:
        """Runs the host computation for the call's `args`: node name -> value."""
        env = {name: args[i] for name, i in self.host_inputs.items()}

        def put(a):
            if isinstance(a, torch.fx.Node):
                return env[a.name]
            if isinstance(a, (list, tuple)):
                return type(a)(put(x) for x in a)
            return a

        for node in self.host_nodes:
            env[node.name] = node.target(*put(node.args), **put(node.kwargs))
        return env


def float_literal(value: float, dtype: torch.dtype) -> str:
    if math.isfinite(value):
        return f"{value:.17e}"
    if dtype == torch.float16:
        bits = struct.unpack("<H", struct.pack("<e", value))[0]
        return f"0x{bits:04X}"
    if dtype == torch.bfloat16:
        bits = struct.unpack("<I", struct.pack("<f", value))[0] >> 16
        return f"0x{bits:04X}"
    bits = struct.unpack("<I", struct.pack("<f", value))[0]
    return f"0x{bits:08X}"


def scalar_literal(value, dtype: torch.dtype) -> str:
    if dtype == torch.bool:
        return "true" if value else "false"
    if dtype.is_floating_point:
        return float_literal(float(value), dtype)
    return str(int(value))


class Converter:
    def __init__(self, gm: torch.fx.GraphModule):
        self.gm = gm
        self.lines: list[str] = []
        self.values: dict[torch.fx.Node, object] = {}
        self.args: list[Value] = []
        self.arguments: list[tuple[str, object]] = []
        self.bindings: dict[str, tuple[int, int]] = {}
        self.externs: dict[str, ExternCall] = {}
        self.extern_decls: list[str] = []
        self.counter = 0
        self.converted_ops: dict[str, int] = {}
        self.torch_ops: dict[str, str] = {}
        self.host_inputs: dict[str, int] = {}
        self.host_nodes: list[torch.fx.Node] = []
        self.host_arguments: dict[tuple, Value] = {}
        self.guards: list[str] = []

    # ---- values and types -------------------------------------------------------

    def fresh(self) -> str:
        self.counter += 1
        return f"%v{self.counter}"

    @staticmethod
    def meta_value(node: torch.fx.Node):
        val = node.meta.get("val")
        if val is None:
            raise Unsupported(f"node {node.name} has no fake value (meta['val'])")
        return val

    def dims_of(self, t: torch.Tensor) -> list[str]:
        return [expr_text(s) for s in t.shape]

    def value(self, arg) -> Value:
        if isinstance(arg, torch.fx.Node):
            v = self.values.get(arg)
            if isinstance(v, Value):
                return v
            raise Unsupported(f"{arg.name} is not a tensor here")
        raise Unsupported(f"a tensor operand that is a {type(arg).__name__}")

    def emit(self, op: str, operands: list[Value], result_dtype, result_dims, attrs: str = "", encode: bool = False) -> Value:
        name = self.fresh()
        ins = ", ".join(v.name for v in operands)
        in_types = ", ".join(v.type_text(True) for v in operands)
        result = Value(name, result_dtype, list(result_dims))
        attr_text = f" {{{attrs}}}" if attrs else ""
        self.lines.append(
            f'    {name} = "{op}"({ins}){attr_text} : ({in_types}) -> {result.type_text(True)}'
        )
        self.converted_ops[op] = self.converted_ops.get(op, 0) + 1
        return result

    def constant(self, value, dtype: torch.dtype) -> Value:
        name = self.fresh()
        ty = tensor_type(dtype, [], False)
        self.lines.append(
            f'    {name} = "ascend.constant"() {{value = dense<{scalar_literal(value, dtype)}> : {ty}}} : () -> {ty}'
        )
        return Value(name, dtype, [])

    def cast(self, v: Value, dtype: torch.dtype) -> Value:
        if v.dtype == dtype:
            return v
        return self.emit("ascend.cast", [v], dtype, v.dims)

    def operand(self, arg, dtype: torch.dtype) -> Value:
        """A tensor operand cast to `dtype`, or a Python scalar as a 0-d constant."""
        if isinstance(arg, torch.fx.Node):
            v = self.values.get(arg)
            if isinstance(v, Value):
                return self.cast(v, dtype)
            if isinstance(v, str):
                # A size (SymInt) as a scalar operand (`arange(n) < n - 2`): its value
                # at each call.
                return self.cast(_size_tensor(self, v), dtype)
        if isinstance(arg, (bool, int, float)):
            return self.constant(arg, dtype)
        raise Unsupported(f"an operand of type {type(arg).__name__}")

    # ---- the graph ----------------------------------------------------------------

    def convert(self) -> Converted:
        placeholder_index = 0
        for node in self.gm.graph.nodes:
            if node.op == "placeholder":
                self.placeholder(node, placeholder_index)
                placeholder_index += 1
            elif node.op == "get_attr":
                self.get_attr(node)
            elif node.op == "call_function":
                self.call_function(node)
            elif node.op == "output":
                return self.finish(node)
            else:
                raise Unsupported(f"FX node kind {node.op} ({node.name})")
        raise Unsupported("the graph has no output")

    def add_argument(self, node: torch.fx.Node, t: torch.Tensor, source) -> None:
        index = len(self.args)
        v = Value(f"%arg{index}", t.dtype, self.dims_of(t))
        for axis, d in enumerate(v.dims):
            if d.isidentifier() and d not in self.bindings:
                self.bindings[d] = (index, axis)
        self.args.append(v)
        self.arguments.append(source)
        self.values[node] = v

    def placeholder(self, node: torch.fx.Node, index: int) -> None:
        val = self.meta_value(node)
        if isinstance(val, torch.Tensor) and val.dtype == torch.float64:
            # Lifted float64 constants (GELU's sqrt(2/pi), attention scales): computed
            # on the host with torch at each call, see `Host`.
            self.host_inputs[node.name] = index
            self.values[node] = Host(node)
        elif isinstance(val, torch.Tensor):
            self.add_argument(node, val, ("input", index))
        elif isinstance(val, (torch.SymInt, int)):
            self.values[node] = expr_text(val)
        else:
            raise Unsupported(f"input {node.name} of type {type(val).__name__}")

    def get_attr(self, node: torch.fx.Node) -> None:
        t = getattr(self.gm, node.target)
        if not isinstance(t, torch.Tensor):
            raise Unsupported(f"attribute {node.target} is not a tensor")
        self.add_argument(node, t, ("attr", node.target))

    def call_function(self, node: torch.fx.Node) -> None:
        val = self.meta_value(node)
        if node.target is operator.getitem:
            source = self.values.get(node.args[0])
            if isinstance(source, tuple):
                self.values[node] = source[node.args[1]]
                return
            raise Unsupported(f"getitem of {node.args[0]}")
        if isinstance(val, (torch.SymInt, int)) and not isinstance(val, bool):
            # Size arithmetic (sym_size, operator.mul of sizes): an expression.
            self.values[node] = expr_text(val)
            return
        if self.on_host(node, val):
            return
        handler = LOWERINGS.get(node.target)
        reason = None
        if handler is not None:
            try:
                result = handler(self, node, *node.args, **node.kwargs)
                self.values[node] = result
                return
            except Unsupported as e:
                reason = str(e)
        self.extern(node, val, reason or f"{node.target} is not covered by autofuse")

    def on_host(self, node: torch.fx.Node, val) -> bool:
        """Float64 arithmetic (autofuse has no float64 type) on host values only: run
        by torch at each call before the kernels, see `Host`."""
        if not (isinstance(val, torch.Tensor) and val.dtype == torch.float64):
            return False
        if node.target in (aten._to_copy.default, torch.ops.prims.convert_element_type.default):
            source = self.values.get(node.args[0])
            if not isinstance(source, Host):
                return False
        operands = [a for a in node.all_input_nodes]
        if not all(isinstance(self.values.get(a), (Host, str)) for a in operands):
            return False
        if val.numel() > 64 or any(not isinstance(d, int) for d in val.shape):
            raise Unsupported(f"{node.target}: float64 tensors (autofuse has no float64 type; only scalar float64 constants are computed on the host)")
        self.host_nodes.append(node)
        self.values[node] = Host(node)
        return True

    def host_argument(self, host: "Host", dtype: torch.dtype) -> Value:
        """A host value converted to `dtype`, as an argument of the graph."""
        key = (host.node.name, dtype)
        if key not in self.host_arguments:
            val = host.node.meta["val"].to(dtype)
            index = len(self.args)
            v = Value(f"%arg{index}", dtype, self.dims_of(val))
            self.args.append(v)
            self.arguments.append(("host", (host.node.name, dtype)))
            self.host_arguments[key] = v
        return self.host_arguments[key]

    def extern(self, node: torch.fx.Node, val, reason: str) -> None:
        """The op as a call of an external function that torch runs."""
        outs = list(val) if isinstance(val, (tuple, list)) else [val]
        if not outs or not all(isinstance(o, torch.Tensor) for o in outs):
            raise Unsupported(f"{node.target}: results that are not tensors ({reason})")
        operands: list[Value] = []

        def take(a):
            if isinstance(a, torch.fx.Node):
                v = self.values.get(a)
                if isinstance(v, Value):
                    operands.append(v)
                    return _Operand(len(operands) - 1)
                if isinstance(v, str):
                    return _Size(v)
                raise Unsupported(f"{node.target}: an argument {a.name} that is not a tensor")
            if isinstance(a, (list, tuple)):
                return type(a)(take(x) for x in a)
            return a

        args = tuple(take(a) for a in node.args)
        kwargs = {k: take(a) for k, a in node.kwargs.items()}
        callee = f"torch_op_{len(self.externs)}"
        self.externs[callee] = ExternCall(node.target, args, kwargs, reason)
        self.torch_ops[str(node.target)] = reason
        in_types = ", ".join(v.type_text(True) for v in operands)
        results = [Value(self.fresh(), o.dtype, self.dims_of(o)) for o in outs]
        out_types = ", ".join(r.type_text(True) for r in results)
        self.extern_decls.append(f"  func.func private @{callee}({in_types}) -> ({out_types})")
        names = ", ".join(r.name for r in results)
        ins = ", ".join(v.name for v in operands)
        self.lines.append(f"    {names} = func.call @{callee}({ins}) : ({in_types}) -> ({out_types})")
        self.values[node] = tuple(results) if isinstance(val, (tuple, list)) else results[0]

    def finish(self, node: torch.fx.Node) -> Converted:
        returned: list[Value] = []
        outputs: list[tuple[str, object]] = []
        for a in node.args[0]:
            v = self.values.get(a) if isinstance(a, torch.fx.Node) else None
            if isinstance(v, Value):
                outputs.append(("value", len(returned)))
                returned.append(v)
            elif isinstance(v, str):
                outputs.append(("expr", v))
            elif a is None or isinstance(a, (int, float, bool)):
                outputs.append(("const", a))
            else:
                raise Unsupported(f"an output that autofuse cannot return: {a}")
        if not returned:
            raise Unsupported("the graph returns no tensor")
        args = ", ".join(f"{v.name}: {v.type_text(True)}" for v in self.args)
        result_types = ", ".join(v.type_text(True) for v in returned)
        body = "\n".join(self.lines)
        ret = ", ".join(v.name for v in returned)
        decls = "\n".join(self.extern_decls)
        text = (
            "module {\n"
            + (decls + "\n" if decls else "")
            + f"  func.func @graph({args}) -> ({result_types}) {{\n"
            + body
            + ("\n" if body else "")
            + f"    return {ret} : {result_types}\n  }}\n}}\n"
        )
        return Converted(text, self.arguments, outputs, self.externs, self.bindings,
                         self.converted_ops, self.torch_ops, self.host_inputs, self.host_nodes, self.guards)


@dataclass(frozen=True)
class _Operand:
    """The i-th tensor operand of an external call."""

    index: int


@dataclass(frozen=True)
class _Size:
    """A size expression argument of an external call, evaluated at run time."""

    text: str


def convert(gm: torch.fx.GraphModule) -> Converted:
    return Converter(gm).convert()


# ---- lowerings: one function per ATen op family ------------------------------------


def _result(node) -> torch.Tensor:
    val = node.meta["val"]
    if not isinstance(val, torch.Tensor):
        raise Unsupported(f"{node.target}: a result that is not a tensor")
    return val


def _axis(axis: int, rank: int) -> int:
    return axis + rank if axis < 0 else axis


def _binary(op: str):
    def lower(c: Converter, node, a, b, *rest, alpha=1):
        if rest:
            raise Unsupported(f"{node.target}: extra arguments")
        out = _result(node)
        # Compute in the result's type (torch's promotion already decided it).
        x = c.operand(a, out.dtype)
        y = c.operand(b, out.dtype)
        if alpha != 1:
            y = c.emit("ascend.mul", [y, c.constant(alpha, out.dtype)], out.dtype, y.dims)
        return c.emit(op, [x, y], out.dtype, c.dims_of(out))

    return lower


def _compare(op: str):
    def lower(c: Converter, node, a, b):
        out = _result(node)
        # A Python number or a size (SymInt) takes the tensor operand's type.
        ta, tb = (c.values[v].dtype if isinstance(v, torch.fx.Node) and isinstance(c.values.get(v), Value) else None
                  for v in (a, b))
        if ta is not None and tb is not None:
            common = torch.promote_types(ta, tb)
        else:
            common = ta or tb
        x = c.operand(a, common)
        y = c.operand(b, common)
        return c.emit(op, [x, y], out.dtype, c.dims_of(out))

    return lower


def _unary(op: str, attrs: str = ""):
    def lower(c: Converter, node, a):
        out = _result(node)
        x = c.operand(a, out.dtype)
        return c.emit(op, [x], out.dtype, c.dims_of(out), attrs)

    return lower


def _reduce(op: str):
    def lower(c: Converter, node, x, dims=None, keepdim=False, *, dtype=None):
        out = _result(node)
        v = c.value(x)
        if dims is None or (isinstance(dims, (list, tuple)) and len(dims) == 0):
            dims = list(range(len(v.dims)))
        if isinstance(dims, int):
            dims = [dims]
        axes = ", ".join(str(_axis(d, len(v.dims))) for d in dims)
        v = c.cast(v, out.dtype) if op not in ("ascend.reduce_any", "ascend.reduce_all") else v
        keep = "true" if keepdim else "false"
        return c.emit(op, [v], out.dtype, c.dims_of(out), f"axes = [{axes}], keep_dims = {keep}")

    return lower


def _identity(c: Converter, node, x, *rest, **kwargs):
    return c.value(x)


@dataclass
class Host:
    """A float64 value computed on the host: float64 inputs and the torch ops over them
    (scalar constants such as GELU's sqrt(2/pi)) run with torch at each call, exactly as
    eager computes them; where the graph converts one to a type autofuse has, the
    converted value becomes an argument of the compiled graph."""

    node: torch.fx.Node


@dataclass
class _Widened:
    """A float value converted to float64, which autofuse has no type for: kept as its
    source until it is converted back (a float32 value survives the round trip exactly,
    and a narrowing from the exact float64 rounds as from the source)."""

    source: Value


def _to_copy(c: Converter, node, x, dtype=None, **kwargs):
    out = _result(node)
    source = c.values.get(x) if isinstance(x, torch.fx.Node) else None
    if isinstance(source, Host):
        return c.host_argument(source, out.dtype)
    if isinstance(source, _Widened):
        if out.dtype == torch.float64:
            return source
        return c.cast(source.source, out.dtype)
    v = c.value(x)
    if out.dtype == torch.float64 and v.dtype.is_floating_point:
        return _Widened(v)
    return c.cast(v, out.dtype)


def _view(c: Converter, node, x, *sizes):
    out = _result(node)
    return c.emit("ascend.reshape", [c.value(x)], out.dtype, c.dims_of(out), encode=True)


def _permute(c: Converter, node, x, perm):
    out = _result(node)
    v = c.value(x)
    perm = [_axis(p, len(v.dims)) for p in perm]
    if perm == list(range(len(perm))):
        return v
    return c.emit("ascend.transpose", [v], out.dtype, c.dims_of(out), f"perm = [{', '.join(map(str, perm))}]")


def _transpose(c: Converter, node, x, d0, d1):
    v = c.value(x)
    rank = len(v.dims)
    perm = list(range(rank))
    a, b = _axis(d0, rank), _axis(d1, rank)
    perm[a], perm[b] = perm[b], perm[a]
    out = _result(node)
    if a == b:
        return v
    return c.emit("ascend.transpose", [v], out.dtype, c.dims_of(out), f"perm = [{', '.join(map(str, perm))}]")


def _expand(c: Converter, node, x, sizes, implicit=False):
    out = _result(node)
    v = c.value(x)
    dims = c.dims_of(out)
    if dims == v.dims:
        return v
    return c.emit("ascend.broadcast_to", [v], out.dtype, dims, encode=True)


def _unsqueeze(c: Converter, node, x, dim):
    out = _result(node)
    rank = len(out.shape)
    return c.emit("ascend.unsqueeze", [c.value(x)], out.dtype, c.dims_of(out), f"axes = [{_axis(dim, rank)}]")


def _squeeze(c: Converter, node, x, dims=None):
    out = _result(node)
    v = c.value(x)
    rank = len(v.dims)
    if dims is None:
        axes = [i for i, d in enumerate(v.dims) if d == "1"]
    else:
        dims = [dims] if isinstance(dims, int) else list(dims)
        axes = [_axis(d, rank) for d in dims if v.dims[_axis(d, rank)] == "1"]
    if not axes:
        return v
    return c.emit("ascend.squeeze", [v], out.dtype, c.dims_of(out), f"axes = [{', '.join(map(str, axes))}]")


def _slice(c: Converter, node, x, dim=0, start=None, end=None, step=1):
    out = _result(node)
    v = c.value(x)
    rank = len(v.dims)
    axis = _axis(dim, rank)
    start_text = "0" if start is None else _size_text(c, start)
    if end is None or (isinstance(end, int) and end >= 2**62):
        end_text = "9223372036854775807"
    else:
        end_text = _size_text(c, end)
    if c.dims_of(out) == v.dims:
        return v
    return c.emit(
        "ascend.slice", [v], out.dtype, c.dims_of(out),
        f'starts = [{_attr_size(start_text)}], ends = [{_attr_size(end_text)}], axes = [{axis}], steps = [{step}]',
    )


def _size_text(c: Converter, value) -> str:
    if isinstance(value, torch.fx.Node):
        v = c.values.get(value)
        if isinstance(v, str):
            return v
        raise Unsupported("a slice bound that is a tensor")
    return expr_text(value)


def _attr_size(text: str) -> str:
    return text if text.lstrip("-").isdigit() else f'"{text}"'


def _select(c: Converter, node, x, dim, index):
    out = _result(node)
    v = c.value(x)
    rank = len(v.dims)
    axis = _axis(dim, rank)
    if not isinstance(index, int):
        raise Unsupported("select at a symbolic index")
    if index < 0:
        start, end = f"({v.dims[axis]} - {-index})", f"({v.dims[axis]} - {-index - 1})"
    else:
        start, end = str(index), str(index + 1)
    dims = list(v.dims)
    dims[axis] = "1"
    sliced = c.emit("ascend.slice", [v], v.dtype, dims,
                    f"starts = [{_attr_size(start)}], ends = [{_attr_size(end)}], axes = [{axis}], steps = [1]")
    return c.emit("ascend.squeeze", [sliced], out.dtype, c.dims_of(out), f"axes = [{axis}]")


def _cat(c: Converter, node, tensors, dim=0):
    out = _result(node)
    values = [c.cast(c.value(t), out.dtype) for t in tensors]
    values = [v for v in values if "0" not in v.dims] or values[:1]
    rank = len(out.shape)
    axis = _axis(dim, rank)
    acc = values[0]
    for v in values[1:]:
        dims = list(acc.dims)
        dims[axis] = f"({acc.dims[axis]} + {v.dims[axis]})"
        acc = c.emit("ascend.concat", [acc, v], out.dtype, dims, f"axis = {axis}")
    return acc


def _mm(c: Converter, node, a, b):
    out = _result(node)
    return c.emit("ascend.matmul", [c.operand(a, out.dtype), c.operand(b, out.dtype)], out.dtype,
                  c.dims_of(out), "transpose_a = false, transpose_b = false")


def _addmm(c: Converter, node, bias, a, b, *, beta=1, alpha=1):
    if beta != 1 or alpha != 1:
        raise Unsupported("addmm with beta or alpha")
    out = _result(node)
    product = c.emit("ascend.matmul", [c.operand(a, out.dtype), c.operand(b, out.dtype)], out.dtype,
                     c.dims_of(out), "transpose_a = false, transpose_b = false")
    return c.emit("ascend.add", [product, c.operand(bias, out.dtype)], out.dtype, c.dims_of(out))


def _softmax(op: str):
    def lower(c: Converter, node, x, dim, half_to_float=False):
        out = _result(node)
        v = c.cast(c.value(x), out.dtype)
        return c.emit(op, [v], out.dtype, c.dims_of(out), f"axis = {_axis(dim, len(v.dims))}")

    return lower


def _layer_norm(c: Converter, node, x, normalized_shape, weight, bias, eps):
    outs = node.meta["val"]
    y = outs[0]
    v = c.value(x)
    axis = len(v.dims) - len(normalized_shape)
    norm_dims = v.dims[axis:]
    gamma = c.value(weight) if weight is not None else _splat(c, 1.0, v.dtype, norm_dims)
    beta = c.value(bias) if bias is not None else _splat(c, 0.0, v.dtype, norm_dims)
    result = c.emit("ascend.layer_norm", [v, gamma, beta], y.dtype, c.dims_of(y),
                    f"axis = {axis}, epsilon = {float_literal(float(eps), torch.float32)} : f32")
    # Mean and rstd (training outputs) are not produced; using them falls back.
    return (result, _Missing("native_layer_norm's mean"), _Missing("native_layer_norm's rstd"))


@dataclass
class _Missing:
    what: str


def _splat(c: Converter, value: float, dtype, dims: list[str]) -> Value:
    scalar = c.constant(value, dtype)
    if not dims:
        return scalar
    return c.emit("ascend.broadcast_to", [scalar], dtype, dims, encode=True)


def _gelu(c: Converter, node, x, *, approximate="none"):
    out = _result(node)
    return c.emit("ascend.gelu", [c.operand(x, out.dtype)], out.dtype, c.dims_of(out), f'approximate = "{approximate}"')


def _where(c: Converter, node, cond, a, b):
    out = _result(node)
    return c.emit("ascend.select", [c.operand(cond, torch.bool), c.operand(a, out.dtype), c.operand(b, out.dtype)],
                  out.dtype, c.dims_of(out))


def _masked_fill(c: Converter, node, x, mask, value):
    out = _result(node)
    return c.emit("ascend.select", [c.operand(mask, torch.bool), c.operand(value, out.dtype), c.operand(x, out.dtype)],
                  out.dtype, c.dims_of(out))


def _embedding(c: Converter, node, weight, indices, *rest):
    out = _result(node)
    return c.emit("ascend.gather", [c.value(weight), c.value(indices)], out.dtype, c.dims_of(out), "axis = 0")


def _index_select(c: Converter, node, x, dim, index):
    out = _result(node)
    v = c.value(x)
    return c.emit("ascend.gather", [v, c.value(index)], out.dtype, c.dims_of(out), f"axis = {_axis(dim, len(v.dims))}")


def _gather(c: Converter, node, x, dim, index, *, sparse_grad=False):
    out = _result(node)
    v = c.value(x)
    return c.emit("ascend.gather_elements", [v, c.value(index)], out.dtype, c.dims_of(out),
                  f"axis = {_axis(dim, len(v.dims))}")


def _full(c: Converter, node, size, value, **kwargs):
    out = _result(node)
    return _splat(c, value, out.dtype, c.dims_of(out))


def _scalar_tensor(c: Converter, node, value, **kwargs):
    out = _result(node)
    return c.constant(value, out.dtype)


def _arange(c: Converter, node, start, end=None, step=1, **kwargs):
    out = _result(node)
    if end is None:
        start, end = 0, start
    if not isinstance(step, (int, float)) or step == 0:
        raise Unsupported("arange with a symbolic step")
    start_attr = _range_attr(c, start, out.dtype)
    delta_attr = scalar_literal(step, out.dtype) + (" : f32" if out.dtype.is_floating_point else " : i64")
    return c.emit("ascend.range", [], out.dtype, c.dims_of(out), f"start = {start_attr}, delta = {delta_attr}",
                  encode=True)


def _range_attr(c: Converter, start, dtype) -> str:
    if isinstance(start, torch.fx.Node):
        return f'"{_size_text(c, start)}"'
    if dtype.is_floating_point:
        return float_literal(float(start), torch.float32) + " : f32"
    return f"{int(start)} : i64"


def _cumsum(c: Converter, node, x, dim, *, dtype=None):
    out = _result(node)
    v = c.cast(c.value(x), out.dtype)
    return c.emit("ascend.cumsum", [v], out.dtype, c.dims_of(out),
                  f"axis = {_axis(dim, len(v.dims))}, exclusive = false, reverse = false")


def _clamp(c: Converter, node, x, lo=None, hi=None):
    out = _result(node)
    v = c.operand(x, out.dtype)
    if lo is not None:
        v = c.emit("ascend.maximum", [v, c.operand(lo, out.dtype)], out.dtype, c.dims_of(out))
    if hi is not None:
        v = c.emit("ascend.minimum", [v, c.operand(hi, out.dtype)], out.dtype, c.dims_of(out))
    return v


def _leaky_relu(c: Converter, node, x, slope=0.01):
    out = _result(node)
    return c.emit("ascend.leaky_relu", [c.operand(x, out.dtype)], out.dtype, c.dims_of(out),
                  f"alpha = {float_literal(float(slope), torch.float32)} : f32")


def _pow_scalar(c: Converter, node, x, exponent):
    out = _result(node)
    v = c.operand(x, out.dtype)
    if exponent == 2:
        return c.emit("ascend.square", [v], out.dtype, c.dims_of(out))
    if exponent == 0.5:
        return c.emit("ascend.sqrt", [v], out.dtype, c.dims_of(out))
    if exponent == 1:
        return v
    return c.emit("ascend.pow", [v, c.constant(exponent, out.dtype)], out.dtype, c.dims_of(out))


def _div_mode(c: Converter, node, a, b, *, rounding_mode=None):
    out = _result(node)
    if rounding_mode is None:
        return _binary("ascend.div")(c, node, a, b)
    if rounding_mode == "floor":
        return c.emit("ascend.floor_div", [c.operand(a, out.dtype), c.operand(b, out.dtype)], out.dtype, c.dims_of(out))
    raise Unsupported(f"division with rounding mode {rounding_mode}")


def _bitwise(logical: str, bitwise: str):
    def lower(c: Converter, node, a, b):
        out = _result(node)
        op = logical if out.dtype == torch.bool else bitwise
        if op is None:
            raise Unsupported(f"{node.target} on {out.dtype}")
        return c.emit(op, [c.operand(a, out.dtype), c.operand(b, out.dtype)], out.dtype, c.dims_of(out))

    return lower


def _split(c: Converter, node, x, sizes, dim=0):
    outs = node.meta["val"]
    v = c.value(x)
    axis = _axis(dim, len(v.dims))
    results = []
    start = "0"
    for out in outs:
        dims = c.dims_of(out)
        end = dims[axis] if start == "0" else f"({start} + {dims[axis]})"
        if dims == v.dims:
            results.append(v)
        else:
            results.append(c.emit(
                "ascend.slice", [v], out.dtype, dims,
                f"starts = [{_attr_size(start)}], ends = [{_attr_size(end)}], axes = [{axis}], steps = [1]",
            ))
        start = end
    return tuple(results)


def _index(c: Converter, node, x, indices):
    """x[..., i0, i1, ..., ...]: index tensors on adjacent axes (the others None) as one
    gather. One index tensor gathers along its axis; several (the mask functions of
    transformers index a padding mask by broadcast batch and position indices) gather
    along the flattened indexed axes at the flat index sum(i_j * stride_j), each i_j
    first wrapped like torch's negative indices. Torch puts the broadcast index dims
    where the indexed axes were, which is what the gather does."""
    present = [(i, t) for i, t in enumerate(indices) if t is not None]
    if not present:
        raise Unsupported("indexing without an index tensor")
    out = _result(node)
    v = c.value(x)
    for _, t in present:
        if c.value(t).dtype == torch.bool:
            raise Unsupported("indexing by a boolean mask (a data-dependent shape)")
    if len(present) == 1:
        axis, index = present[0]
        return c.emit("ascend.gather", [v, c.value(index)], out.dtype, c.dims_of(out), f"axis = {axis}")
    axes = [a for a, _ in present]
    first = axes[0]
    if axes != list(range(first, first + len(axes))):
        raise Unsupported("advanced indexing with index tensors on axes that are not adjacent")
    shape = c.meta_value(x).shape
    merged = math.prod(shape[a] for a in axes)
    # A valid flat index is below `merged`: int32 holds it (the vector unit computes no
    # 64-bit products) while `merged` < 2^31, checked per call where it is symbolic.
    if isinstance(merged, int):
        if merged >= 2**31:
            raise Unsupported("advanced indexing of more than 2^31 elements")
    else:
        c.guards.append(f"assert({expr_text(merged)} < 2147483648)")
    flat, flat_shape = None, None
    for j, (axis, t) in enumerate(present):
        idx = c.cast(c.value(t), torch.int32)
        idx_shape = c.meta_value(t).shape
        size = _size_tensor(c, shape[axis])
        # Torch's index in [-size, size) wrapped to [0, size).
        negative = c.emit("ascend.lt", [idx, c.constant(0, torch.int32)], torch.bool, idx.dims)
        shifted = c.emit("ascend.add", [idx, size], torch.int32, idx.dims)
        wrapped = c.emit("ascend.select", [negative, shifted, idx], torch.int32, idx.dims)
        stride = math.prod(shape[a] for a in axes[j + 1:])
        term = wrapped
        if j + 1 < len(axes):
            term = c.emit("ascend.mul", [wrapped, _size_tensor(c, stride)], torch.int32, idx.dims)
        if flat is None:
            flat, flat_shape = term, idx_shape
        else:
            flat_shape = torch.broadcast_shapes(flat_shape, idx_shape)
            flat = c.emit("ascend.add", [flat, term], torch.int32, [expr_text(d) for d in flat_shape])
    source_shape = list(shape[:first]) + [merged] + list(shape[axes[-1] + 1:])
    source = c.emit("ascend.reshape", [v], v.dtype, [expr_text(d) for d in source_shape], encode=True)
    return c.emit("ascend.gather", [source, flat], out.dtype, c.dims_of(out), f"axis = {first}")


def _size_tensor(c: Converter, size) -> Value:
    """A size (an int, a SymInt or its expression text) as a 0-d int32 tensor (sizes
    below 2^31, see `_index`)."""
    if isinstance(size, int):
        return c.constant(size, torch.int32)
    name = c.fresh()
    text = size if isinstance(size, str) else expr_text(size)
    c.lines.append(
        f'    {name} = "ascend.symbolic_constant"() {{values = ["{text}"]}} : () -> tensor<i64>'
    )
    return c.cast(Value(name, torch.int64, []), torch.int32)


def _full_like(c: Converter, node, x, value, **kwargs):
    out = _result(node)
    return _splat(c, value, out.dtype, c.dims_of(out))


def _convolution(c: Converter, node, x, w, bias, stride, padding, dilation, transposed, output_padding, groups):
    """aten.convolution (not transposed) as `ascend.conv` (a cube boundary op) plus the
    bias broadcast over the spatial axes."""
    if transposed:
        raise Unsupported("transposed convolution")
    out = _result(node)
    xv, wv = c.operand(x, out.dtype), c.operand(w, out.dtype)
    spatial = len(out.shape) - 2
    pads = [_attr_size(expr_text(p)) for p in padding] * 2
    attrs = (f"strides = [{', '.join(str(int(s)) for s in stride)}], "
             f"dilations = [{', '.join(str(int(d)) for d in dilation)}], "
             f"pads = [{', '.join(pads)}], groups = {int(groups)}")
    y = c.emit("ascend.conv", [xv, wv], out.dtype, c.dims_of(out), attrs)
    if bias is None:
        return y
    b = c.operand(bias, out.dtype)
    channels = b.dims[0]
    b = c.emit("ascend.reshape", [b], out.dtype, [channels] + ["1"] * spatial, encode=True)
    return c.emit("ascend.add", [y, b], out.dtype, c.dims_of(out))


def _batch_norm_inference(c: Converter, node, x, weight, bias, running_mean, running_var, momentum, eps):
    """aten._native_batch_norm_legit_no_training (eval batch norm) as per-channel
    elementwise ops: y = x * scale + shift, scale = weight * rsqrt(var + eps), shift =
    bias - mean * scale, the [C] factors reshaped to [C, 1, ...] (channels on axis 1).
    Torch would run it as a call between kernels; as ops it fuses with its neighbours
    (the convolution's bias, the ReLU after it). The saved mean and rstd (training
    outputs, empty here) are not produced; using them falls back."""
    y = node.meta["val"][0]
    v = c.cast(c.value(x), y.dtype)
    channels = v.dims[1]

    def per_channel(arg, default: float) -> Value:
        return c.operand(arg, y.dtype) if arg is not None else _splat(c, default, y.dtype, [channels])

    mean, var = per_channel(running_mean, 0.0), per_channel(running_var, 1.0)
    shifted_var = c.emit("ascend.add", [var, c.constant(float(eps), y.dtype)], y.dtype, [channels])
    inv_std = c.emit("ascend.rsqrt", [shifted_var], y.dtype, [channels])
    scale = c.emit("ascend.mul", [inv_std, per_channel(weight, 1.0)], y.dtype, [channels])
    scaled_mean = c.emit("ascend.mul", [mean, scale], y.dtype, [channels])
    shift = c.emit("ascend.sub", [per_channel(bias, 0.0), scaled_mean], y.dtype, [channels])
    spatial = ["1"] * (len(v.dims) - 2)
    scale = c.emit("ascend.reshape", [scale], y.dtype, [channels] + spatial, encode=True)
    shift = c.emit("ascend.reshape", [shift], y.dtype, [channels] + spatial, encode=True)
    scaled = c.emit("ascend.mul", [v, scale], y.dtype, c.dims_of(y))
    result = c.emit("ascend.add", [scaled, shift], y.dtype, c.dims_of(y))
    return (result, _Missing("batch norm's saved mean"), _Missing("batch norm's saved rstd"))


LOWERINGS = {
    aten._native_batch_norm_legit_no_training.default: _batch_norm_inference,
    aten.full_like.default: _full_like,
    aten.convolution.default: _convolution,
    aten.bitwise_and.Tensor: _bitwise("ascend.logical_and", "ascend.bitwise_and"),
    aten.bitwise_or.Tensor: _bitwise("ascend.logical_or", None),
    aten.split_with_sizes.default: _split,
    aten.split.Tensor: _split,
    aten.index.Tensor: _index,
    aten.add.Tensor: _binary("ascend.add"),
    aten.add.Scalar: _binary("ascend.add"),
    aten.sub.Tensor: _binary("ascend.sub"),
    aten.sub.Scalar: _binary("ascend.sub"),
    aten.mul.Tensor: _binary("ascend.mul"),
    aten.mul.Scalar: _binary("ascend.mul"),
    aten.div.Tensor: _binary("ascend.div"),
    aten.div.Scalar: _binary("ascend.div"),
    aten.div.Tensor_mode: _div_mode,
    aten.maximum.default: _binary("ascend.maximum"),
    aten.minimum.default: _binary("ascend.minimum"),
    aten.pow.Tensor_Tensor: _binary("ascend.pow"),
    aten.pow.Tensor_Scalar: _pow_scalar,
    aten.remainder.Tensor: _binary("ascend.mod"),
    aten.remainder.Scalar: _binary("ascend.mod"),
    aten.logical_and.default: _compare("ascend.logical_and"),
    aten.logical_or.default: _compare("ascend.logical_or"),
    aten.eq.Tensor: _compare("ascend.eq"),
    aten.eq.Scalar: _compare("ascend.eq"),
    aten.ne.Tensor: _compare("ascend.ne"),
    aten.ne.Scalar: _compare("ascend.ne"),
    aten.lt.Tensor: _compare("ascend.lt"),
    aten.lt.Scalar: _compare("ascend.lt"),
    aten.le.Tensor: _compare("ascend.le"),
    aten.le.Scalar: _compare("ascend.le"),
    aten.gt.Tensor: _compare("ascend.gt"),
    aten.gt.Scalar: _compare("ascend.gt"),
    aten.ge.Tensor: _compare("ascend.ge"),
    aten.ge.Scalar: _compare("ascend.ge"),
    aten.neg.default: _unary("ascend.neg"),
    aten.abs.default: _unary("ascend.abs"),
    aten.exp.default: _unary("ascend.exp"),
    aten.log.default: _unary("ascend.log"),
    aten.sqrt.default: _unary("ascend.sqrt"),
    aten.rsqrt.default: _unary("ascend.rsqrt"),
    aten.reciprocal.default: _unary("ascend.reciprocal"),
    aten.relu.default: _unary("ascend.relu"),
    aten.sigmoid.default: _unary("ascend.sigmoid"),
    aten.tanh.default: _unary("ascend.tanh"),
    aten.erf.default: _unary("ascend.erf"),
    aten.sin.default: _unary("ascend.sin"),
    aten.cos.default: _unary("ascend.cos"),
    aten.floor.default: _unary("ascend.floor"),
    aten.ceil.default: _unary("ascend.ceil"),
    aten.round.default: _unary("ascend.round"),
    aten.sign.default: _unary("ascend.sign"),
    aten.silu.default: _unary("ascend.silu"),
    aten.logical_not.default: _unary("ascend.logical_not"),
    aten.bitwise_not.default: _unary("ascend.bitwise_not"),
    aten.isnan.default: _unary("ascend.isnan"),
    aten.gelu.default: _gelu,
    aten.leaky_relu.default: _leaky_relu,
    aten.where.self: _where,
    aten.masked_fill.Scalar: _masked_fill,
    aten.masked_fill.Tensor: _masked_fill,
    aten.clamp.default: _clamp,
    aten.clamp.Tensor: _clamp,
    aten.sum.dim_IntList: _reduce("ascend.reduce_sum"),
    aten.sum.default: _reduce("ascend.reduce_sum"),
    aten.mean.dim: _reduce("ascend.reduce_mean"),
    aten.mean.default: _reduce("ascend.reduce_mean"),
    aten.amax.default: _reduce("ascend.reduce_max"),
    aten.amin.default: _reduce("ascend.reduce_min"),
    aten.any.dim: _reduce("ascend.reduce_any"),
    aten._softmax.default: _softmax("ascend.softmax"),
    aten._log_softmax.default: _softmax("ascend.log_softmax"),
    aten.native_layer_norm.default: _layer_norm,
    aten.mm.default: _mm,
    aten.bmm.default: _mm,
    aten.addmm.default: _addmm,
    aten.view.default: _view,
    aten._unsafe_view.default: _view,
    aten.reshape.default: _view,
    aten.permute.default: _permute,
    aten.transpose.int: _transpose,
    aten.expand.default: _expand,
    aten.unsqueeze.default: _unsqueeze,
    aten.squeeze.dim: _squeeze,
    aten.squeeze.dims: _squeeze,
    aten.squeeze.default: _squeeze,
    aten.slice.Tensor: _slice,
    aten.select.int: _select,
    aten.cat.default: _cat,
    aten.clone.default: _identity,
    aten.alias.default: _identity,
    aten.detach.default: _identity,
    aten.lift_fresh_copy.default: _identity,
    aten._to_copy.default: _to_copy,
    torch.ops.prims.convert_element_type.default: _to_copy,
    aten.embedding.default: _embedding,
    aten.index_select.default: _index_select,
    aten.gather.default: _gather,
    aten.full.default: _full,
    aten.scalar_tensor.default: _scalar_tensor,
    aten.arange.start_step: _arange,
    aten.arange.start: _arange,
    aten.arange.default: _arange,
    aten.cumsum.default: _cumsum,
}
