"""A recorded Inductor kernel (``loop_ir.LoopKernel``) as one AscGraph, in the hint form
``autofuse-opt --lower-to-ascir`` produces (docs/dialects/ascir.md): a ``func.func``
with ``ascir.axes`` (the kernel's axes), ``ascir.data``/``ascir.load`` per read,
``ascir.broadcast`` per axis a value is widened on, one node per pointwise op or
reduction, ``ascir.store``/``ascir.output`` per written buffer.

Every buffer is passed as its flat storage (a 1-D tensor of the storage's element
count); a load's or store's GM view gives the strides of its index expression, which
must be affine in the axes (Inductor's index after its loop simplification). What is
not (modular or floor-divided loop axes, indirect indices, masked loads, 64-bit integer
arithmetic the vector unit does not have) is reported as the
reason the kernel runs with torch.

All kernels of one Inductor graph are compiled as one module (an entry graph calling
each once) by ``autofuse-run --emit-library --no-fuse --no-group-launches``: autofuse's
schedule, tiling and Ascend C for the emulation, one launch per Inductor kernel.
"""

from __future__ import annotations

import json
import math
import subprocess
from dataclasses import dataclass
from pathlib import Path

import sympy
import torch

from .. import _tools
from .fx_to_ascend import DTYPES
from .loop_ir import LoopKernel, LVal, SympyTorch, all_symbols, flat_storage
from .runtime import KernelError, Library, LaunchRecord
from .symbolic import Unsupported, expr_text

UNARY = {
    "neg": "neg", "abs": "abs", "exp": "exp", "log": "log", "sqrt": "sqrt", "rsqrt": "rsqrt",
    "reciprocal": "reciprocal", "relu": "relu", "sigmoid": "sigmoid", "tanh": "tanh", "erf": "erf",
    "sign": "sign", "floor": "floor", "ceil": "ceil", "round": "round", "sin": "sin", "cos": "cos",
    "square": "square", "logical_not": "logical_not", "isnan": "isnan", "bitwise_not": "bitwise_not",
    "identity": None,
}
BINARY = {
    "add": "add", "sub": "sub", "mul": "mul", "truediv": "div", "div": "div", "pow": "pow",
    "maximum": "maximum", "minimum": "minimum", "floordiv": "floor_div", "eq": "eq", "ne": "ne",
    "lt": "lt", "le": "le", "gt": "gt", "ge": "ge", "logical_and": "logical_and",
    "logical_or": "logical_or", "logical_xor": "logical_xor", "bitwise_and": "bitwise_and",
}
INDUCTOR_BITWISE = {"and_": "bitwise_and", "or_": "bitwise_or", "xor": "bitwise_xor"}
REDUCTIONS = {"sum": "sum", "max": "max", "min": "min", "prod": "prod", "any": "any"}


def exact_divisions(e):
    """`e` with every floor division whose dividend is an exact polynomial multiple of
    its divisor replaced by the quotient: Inductor writes strides of symbolic sizes as
    `FloorDiv(s**2, s)` (BLOOM's ALiBi), affine once divided out."""
    def quotient(d):
        a, b = d.args[0], d.args[1]
        q = sympy.cancel(a / b)
        if sympy.fraction(q)[1] == 1 and q.is_polynomial():
            return q
        return d
    return e.replace(lambda d: type(d).__name__ in ("FloorDiv", "CleanDiv"), quotient)


def text(e) -> str:
    """A sympy size or stride as autofuse expression text (no outer parentheses)."""
    t = expr_text(sympy.expand(sympy.sympify(e)))
    if t.startswith("(") and t.endswith(")") and _balanced(t[1:-1]):
        t = t[1:-1]
    return t


def _balanced(t: str) -> bool:
    depth = 0
    for c in t:
        depth += {"(": 1, ")": -1}.get(c, 0)
        if depth < 0:
            return False
    return depth == 0


def kernel_dtype(dtype: torch.dtype) -> torch.dtype:
    """64-bit integers are computed as int32 inside a kernel (index arithmetic of
    small models) and float64 as float32 (Inductor's promoted scalar constants): the
    vector unit has neither."""
    return {torch.int64: torch.int32, torch.float64: torch.float32}.get(dtype, dtype)


@dataclass
class Node:
    ssa: str
    mask: list[bool]
    dtype: torch.dtype


class Emitter:
    """Builds the AscGraph text of one recorded kernel."""

    def __init__(self, kernel: LoopKernel, storage, unit_inner: bool = False):
        self.kernel = kernel
        self.storage = storage
        # `unit_inner`: one more axis of size 1, innermost, along which every GM view
        # is contiguous: a store or load strided along the kernel's innermost axis
        # then moves rows of one element (DataCopyPad with a GM gap; the schedule keeps
        # such a unit axis innermost), where it would be refused.
        self.unit_inner = unit_inner
        self.axes = list(kernel.axes) + ([sympy.Integer(1)] if unit_inner else [])
        self.rank = len(self.axes)
        self.zs = [sympy.Symbol(f"z{i}", integer=True, nonnegative=True) for i in range(self.rank)]
        self.sizes = [text(s) for s in self.axes]
        self.lines: list[str] = []
        self.args: list[tuple[str, str]] = []  # (buffer, type)
        self.outputs: list[tuple[str, str, str]] = []  # (buffer, type, ssa)
        self.values: dict[int, Node] = {}
        self.ops: list[str] = []
        self.host_float32: set[str] = set()
        # Index tables passed as int32, converted on the host (see `indices`).
        self.host_int32: set[str] = set()
        self.widened: dict[tuple, Node] = {}
        self.output_offsets: list = []
        self.count = 0
        self.sched = "[" + ", ".join(str(i) for i in range(self.rank)) + "]"
        # The reduced axes: the kernel's last ones (the unit innermost axis after them).
        self.reduced = range(len(kernel.axes) - kernel.reduction_axes, len(kernel.axes))

    # Text helpers.
    def fresh(self) -> str:
        self.count += 1
        return f"%{self.count - 1}"

    def tensor(self, mask, dtype) -> str:
        if dtype not in DTYPES:
            raise Unsupported(f"element type {dtype}")
        dims = "".join((s if s.isdigit() else "?") + "x" if m else "1x" for s, m in zip(self.sizes, mask))
        return f"tensor<{dims}{DTYPES[dtype]}>"

    def gm_strides(self, coeffs, mask) -> list[str]:
        """A GM view's strides: the index's coefficient per axis it iterates, 0 on the
        others, 1 on the unit innermost axis (rows of one element)."""
        gm = [text(c) if m else "0" for c, m in zip(coeffs, mask)]
        if self.unit_inner:
            gm[-1] = "1"
        return gm

    def view(self, mask, strides=None) -> str:
        reps = [s if m else "1" for s, m in zip(self.sizes, mask)]
        if strides is None:
            strides, acc = [], sympy.Integer(1)
            for size, m in reversed(list(zip(self.axes, mask))):
                strides.append(text(acc) if m else "0")
                if m:
                    acc = acc * size
            strides.reverse()
        axes = ", ".join(str(i) for i in range(self.rank))
        return f'#ascir.view<[{axes}], [{", ".join(f"{chr(34)}{r}{chr(34)}" for r in reps)}], [{", ".join(f"{chr(34)}{s}{chr(34)}" for s in strides)}]>'

    def flat_type(self, buffer: str, host_float32: bool = False, offset=0) -> str:
        dtype, size = self.storage(buffer)
        size = sympy.sympify(size) - sympy.sympify(offset)
        if host_float32 and dtype == torch.float64:
            dtype = torch.float32
        if buffer in self.host_int32:
            dtype = torch.int32
        if dtype not in DTYPES:
            raise Unsupported(f"buffer {buffer} of element type {dtype}")
        size = sympy.sympify(size)
        if size.is_number:
            return f"tensor<{int(size)}x{DTYPES[dtype]}>"
        return f'tensor<?x{DTYPES[dtype]}, #ascend.dims<["{text(size)}"]>>'

    def affine(self, index) -> tuple[list, sympy.Expr]:
        """The strides of an index expression per axis and its constant offset."""
        index = sympy.expand(exact_divisions(sympy.sympify(index)))
        bad = [s for s in index.free_symbols if s.name.startswith("ind")]
        if bad:
            raise Unsupported("an indirect (data-dependent) index")
        coeffs = []
        rest = index
        for z in self.zs:
            c = sympy.expand(index).coeff(z)
            if c.free_symbols & set(self.zs):
                raise Unsupported(f"an index not affine in the loop axes: {index}")
            coeffs.append(c)
            rest = rest - c * z
        rest = sympy.expand(rest)
        # A floor division or modulo of sizes only (`s50//5`, the frame count after a
        # strided convolution) is a symbolic stride or offset like any other; one of
        # an axis is not affine.
        if rest.free_symbols & set(self.zs) or any(
                type(a).__name__ in ("FloorDiv", "ModularIndexing", "Mod", "PythonMod", "CleanDiv")
                and a.free_symbols & set(self.zs)
                for a in sympy.preorder_traversal(index)):
            raise Unsupported(f"an index with floor division or modulo of a loop axis: {index}")
        return coeffs, rest

    # Nodes.
    def emit(self, op: str, operands: list[Node], attrs: str, mask, dtype) -> Node:
        ssa = self.fresh()
        ins = ", ".join(n.ssa for n in operands)
        types = ", ".join(self.tensor(n.mask, n.dtype) for n in operands)
        sep = ", " if attrs else ""
        self.lines.append(
            f'    {ssa} = "ascir.{op}"({ins}) {{{attrs}{sep}sched_axis = {self.sched}, view = {self.view(mask)}}} '
            f': ({types}) -> {self.tensor(mask, dtype)}')
        return Node(ssa, list(mask), dtype)

    def broadcast(self, node: Node, mask) -> Node:
        key = (node.ssa, tuple(mask))
        if key not in self.widened:
            self.widened[key] = self._broadcast(node, mask)
        return self.widened[key]

    def _broadcast(self, node: Node, mask) -> Node:
        for i in range(self.rank):
            if mask[i] and not node.mask[i]:
                widened = list(node.mask)
                widened[i] = True
                node = self.emit("broadcast", [node], "", widened, node.dtype)
        return node

    def cast(self, node: Node, dtype) -> Node:
        if node.dtype == dtype:
            return node
        return self.emit("cast", [node], "", node.mask, dtype)

    def load(self, v: LVal) -> Node:
        name, index = v.args
        indirect = [sym for sym in sympy.sympify(index).free_symbols if sym in self.kernel.indirect]
        if indirect:
            return self.gather(name, sympy.expand(sympy.sympify(index)), indirect)
        return self.cast(self.raw_load(name, index), kernel_dtype(self.storage(name)[0]))

    def gather(self, name: str, index, indirect, ids_table: bool = False) -> Node:
        """An embedding lookup, ``table[ind * row + within]`` with ``ind`` read from
        a tensor: the table as ``[rows, row]`` in GM (its view walks within a row),
        the indices loaded as they are (int64 stays int64: the scalar unit reads it)
        or looked up themselves (`indices`), and one ``ascir.gather`` along the
        table's rows, as ``--lower-to-ascir`` lowers ``ascend.gather``. With
        `ids_table` the table holds indices of another lookup: an int64 table is
        passed as int32 and the gathered ids stay int32."""
        if len(indirect) != 1:
            raise Unsupported("an index reading several index tensors")
        (sym,) = indirect
        computed = self.kernel.indirect[sym]
        source = computed
        while source.op == "cast":
            source = source.args[0]
        if index.coeff(sym).free_symbols & set(self.zs):
            raise Unsupported("an indirect index that is not an embedding lookup")
        row = index.coeff(sym)
        within = sympy.expand(index - row * sym)
        coeffs, offset = self.affine(within)
        dtype, size = self.storage(name)
        if ids_table and dtype == torch.int64:
            self.host_int32.add(name)
            dtype = torch.int32
        rows = sympy.cancel(sympy.sympify(size) / row)
        if sympy.simplify(offset) != 0 or not (rows.is_polynomial() and sympy.fraction(rows)[1] == 1):
            raise Unsupported("an embedding lookup not along whole rows")
        if any(_order(c) >= _order(row) for c in coeffs if c != 0):
            raise Unsupported("an embedding lookup reading across rows")
        # Ids computed in the kernel (RoBERTa's positions: a running count of the
        # tokens that are not padding, plus the padding index) are int32 values.
        ids = self.indices(source) if source.op == "load" else self.value(computed)
        if ids.dtype not in (torch.int32, torch.int64):
            raise Unsupported(f"lookup indices of {ids.dtype}")
        mask = [c != 0 and s != 1 for c, s in zip(coeffs, self.axes)]
        arg = len(self.args)
        table = f"tensor<{_dim(rows)}x{_dim(row)}x{DTYPES[dtype]}>"
        self.args.append((name, table))
        gm = [text(c) if m else "0" for c, m in zip(coeffs, mask)]
        d = self.fresh()
        self.lines.append(
            f'    {d} = "ascir.data"(%arg{arg}) {{index = {arg} : i64, view = {self.view(mask, gm)}}} '
            f': ({table}) -> {self.tensor(mask, dtype)}')
        out = [a or b for a, b in zip(mask, ids.mask)]
        self.ops.append("gather")
        gathered = self.emit("gather", [Node(d, mask, dtype), ids], "axis = 0 : i64", out, dtype)
        return gathered if ids_table else self.cast(gathered, kernel_dtype(dtype))

    def indices(self, source: LVal) -> Node:
        """The ids a lookup reads: loaded as they are, or, when their load is itself
        a lookup (BERT's token types, read from a buffer at the position ids), that
        lookup. Its int64 table goes to the kernel as int32, converted on the host at
        each call (checked to fit): the gather's data may not be int64."""
        name, index = source.args
        inner = [sym for sym in sympy.sympify(index).free_symbols if sym in self.kernel.indirect]
        if not inner:
            return self.raw_load(name, index)
        return self.gather(name, sympy.expand(sympy.sympify(index)), inner, ids_table=True)

    def raw_load(self, name: str, index) -> Node:
        """A load of a buffer in its own element type (float64 read as float32)."""
        coeffs, offset = self.affine(index)
        mask = [c != 0 and s != 1 for c, s in zip(coeffs, self.axes)]
        arg = len(self.args)
        dtype = self.storage(name)[0]
        if dtype == torch.float64:
            # The vector unit has no float64: a float64 input (a lifted scalar such
            # as an attention scale) is passed as float32, converted on the host.
            self.host_float32.add(name)
            dtype = torch.float32
        self.args.append((name, self.flat_type(name, True)))
        gm = self.gm_strides(coeffs, mask)
        d, ssa = self.fresh(), None
        self.lines.append(
            f'    {d} = "ascir.data"(%arg{arg}) {{index = {arg} : i64, view = {self.view(mask, gm)}}} '
            f': ({self.flat_type(name, True)}) -> {self.tensor(mask, dtype)}')
        ssa = self.fresh()
        self.lines.append(
            f'    {ssa} = "ascir.load"({d}) {{offset = "{text(offset)}", sched_axis = {self.sched}, '
            f'view = {self.view(mask)}}} : ({self.tensor(mask, dtype)}) -> {self.tensor(mask, dtype)}')
        return Node(ssa, mask, dtype)

    def constant(self, value, dtype) -> Node:
        dtype = kernel_dtype(dtype)
        if isinstance(value, bool) or dtype == torch.bool:
            # A boolean scalar as a comparison of two float scalars (the kernel's
            # scalars are numbers).
            one = self.constant(1.0 if value else 0.0, torch.float32)
            zero = self.constant(0.0, torch.float32)
            return self.emit("ne", [one, zero], "", one.mask, torch.bool)
        if isinstance(value, float) and not math.isfinite(value) and not dtype.is_floating_point:
            raise Unsupported(f"the constant {value} of {dtype}")
        # repr gives `inf`, `-inf` and `nan` for the non-finite floats (Inductor's
        # isfinite test in a softmax, a -inf fill), which autofuse reads as numbers.
        literal = repr(float(value)) if dtype.is_floating_point else str(int(value))
        mask = [False] * self.rank
        ssa = self.fresh()
        self.lines.append(
            f'    {ssa} = "ascir.scalar"() {{value = "{literal}", sched_axis = {self.sched}, '
            f'view = {self.view(mask)}}} : () -> {self.tensor(mask, dtype)}')
        return Node(ssa, mask, dtype)

    def index(self, expr, dtype) -> Node:
        expr = sympy.sympify(expr)
        if expr.is_number:
            # A constant index expression, maybe a float (Wav2Vec2's 0.0): a scalar.
            return self.constant(float(expr) if kernel_dtype(dtype).is_floating_point else int(expr), dtype)
        # A float index expression (`2.0*z0`) with whole coefficients is the integer one.
        expr = expr.xreplace({f: sympy.Integer(int(f)) for f in expr.atoms(sympy.Float) if float(f).is_integer()})
        if expr.atoms(sympy.Float):
            raise Unsupported(f"an index expression with a fraction: {expr}")
        coeffs, offset = self.affine(expr)
        dtype = kernel_dtype(dtype)
        if dtype not in (torch.int32, torch.float32):
            raise Unsupported(f"an index expression of {dtype}")
        mask = [c != 0 and s != 1 for c, s in zip(coeffs, self.axes)]
        if not any(mask):
            mask = [False] * self.rank
        strides = [text(c) if m else "0" for c, m in zip(coeffs, mask)]
        ssa = self.fresh()
        self.lines.append(
            f'    {ssa} = "ascir.arange"() {{delta = "1", sched_axis = {self.sched}, start = "{text(offset)}", '
            f'view = {self.view(mask, strides)}}} : () -> {self.tensor(mask, dtype)}')
        return Node(ssa, mask, dtype)

    def value(self, v: LVal) -> Node:
        if id(v) not in self.values:
            self.values[id(v)] = self.compute(v)
        return self.values[id(v)]

    def compute(self, v: LVal) -> Node:
        if v.op == "load":
            return self.load(v)
        if v.op == "constant":
            return self.constant(v.args[0], v.dtype)
        if v.op == "index":
            return self.index(v.args[0], v.dtype)
        if v.op == "cast":
            return self.cast(self.value(v.args[0]), kernel_dtype(v.dtype))
        if v.op == "reduce":
            return self.reduce(v)
        if v.op == "call":
            return self.call(v)
        raise Unsupported(f"the op {v.op}")

    def call(self, v: LVal) -> Node:
        name, *args = v.args
        nodes = [self.value(a) for a in args]
        mask = [any(n.mask[i] for n in nodes) for i in range(self.rank)]
        out = kernel_dtype(v.dtype)
        if name in UNARY:
            if UNARY[name] is None:
                return nodes[0]
            self.ops.append(name)
            return self.emit(UNARY[name], [self.broadcast(nodes[0], mask)], "", mask, out)
        # Inductor's `and_`, `or_` and `xor` are Python's &, | and ^: bitwise (logical on
        # bool, e.g. the in-bounds masks of a padded max pool's window).
        name = INDUCTOR_BITWISE.get(name, name)
        if name in ("bitwise_and", "bitwise_or", "bitwise_xor") and all(n.dtype == torch.bool for n in nodes):
            name = "logical_" + name.removeprefix("bitwise_")
        if name in BINARY:
            common = kernel_dtype(torch.promote_types(nodes[0].dtype, nodes[1].dtype))
            a, b = (self.broadcast(self.cast(n, common), mask) for n in nodes)
            self.ops.append(name)
            return self.emit(BINARY[name], [a, b], "", mask, out)
        if name == "where":
            c = self.broadcast(nodes[0], mask)
            a, b = (self.broadcast(self.cast(n, out), mask) for n in nodes[1:])
            self.ops.append("where")
            return self.emit("select", [c, a, b], "", mask, out)
        raise Unsupported(f"the op {name}")

    def reduce(self, v: LVal) -> Node:
        kind, src = v.args[0], self.value(v.args[1])
        src = self.broadcast(src, [m or i in self.reduced for i, m in enumerate(src.mask)])
        out_mask = [m and i not in self.reduced for i, m in enumerate(src.mask)]
        self.ops.append(kind)
        if kind in REDUCTIONS:
            return self.emit(REDUCTIONS[kind], [src], "", out_mask, src.dtype)
        part = v.args[2]
        if kind == "welford_reduce":
            mean = self.emit("mean", [src], "", out_mask, src.dtype)
            if part == 0:
                return mean
            if part == 1:
                d = self.emit("sub", [src, self.broadcast(mean, src.mask)], "", src.mask, src.dtype)
                return self.emit("sum", [self.emit("mul", [d, d], "", src.mask, src.dtype)], "", out_mask, src.dtype)
            count = sympy.Integer(1)
            for s in self.axes[self.reduced.start:self.reduced.stop]:
                count = count * s
            if not count.is_number:
                raise Unsupported("a welford count of symbolic size")
            return self.constant(float(count), src.dtype)
        if kind == "online_softmax_reduce":
            top = self.emit("max", [src], "", out_mask, src.dtype)
            if part == 0:
                return top
            d = self.emit("sub", [src, self.broadcast(top, src.mask)], "", src.mask, src.dtype)
            return self.emit("sum", [self.emit("exp", [d], "", src.mask, src.dtype)], "", out_mask, src.dtype)
        raise Unsupported(f"the reduction {kind}")

    def store(self, buffer: str, index, value: LVal, reduction: bool) -> None:
        coeffs, offset = self.affine(index)
        mask = [c != 0 and s != 1 for c, s in zip(coeffs, self.axes)]
        if reduction and any(mask[i] for i in self.reduced):
            raise Unsupported("a reduction stored along its reduced axes")
        inner = [c for c, m in zip(coeffs, mask) if m]
        if inner and sympy.simplify(inner[-1] - 1) != 0 and not self.unit_inner:
            raise StridedInnermost(f"a store of {buffer} whose innermost axis is strided ({inner[-1]})")
        node = self.value(value)
        if any(m and not t for m, t in zip(node.mask, mask)):
            raise Unsupported(f"a store of {buffer} that writes one element from several iterations")
        dtype = self.storage(buffer)[0]
        node = self.cast(self.broadcast(node, mask), dtype)
        # The store's view is the GM view. Autofuse schedules no store at a non-zero
        # offset: the output is passed from there.
        gm = self.gm_strides(coeffs, mask)
        out_type = self.flat_type(buffer, offset=offset)
        ssa = self.fresh()
        t = self.tensor(mask, dtype)
        self.lines.append(
            f'    {ssa} = "ascir.store"({node.ssa}) {{offset = "0", sched_axis = {self.sched}, '
            f'view = {self.view(mask, gm)}}} : ({t}) -> {t}')
        out = self.fresh()
        index = len(self.outputs)
        self.lines.append(
            f'    {out} = "ascir.output"({ssa}) {{index = {index} : i64, view = {self.view(mask, gm)}}} '
            f': ({t}) -> {out_type}')
        self.outputs.append((buffer, out_type, out))
        self.output_offsets.append(offset)

    def function(self) -> str:
        if self.rank == 0:
            raise Unsupported("a kernel without loop axes (a single element)")
        for s in self.kernel.stores:
            if s.buffer not in self.kernel.removed:
                self.store(s.buffer, s.index, s.value, s.reduction)
        if not self.outputs:
            raise Unsupported("a kernel that writes nothing")
        args = ", ".join(f"%arg{i}: {t}" for i, (_, t) in enumerate(self.args))
        results = ", ".join(t for _, t, _ in self.outputs)
        axes = ", ".join(f'#ascir.axis<{i} : i64, "z{i}", "{s}", "original", []>' for i, s in enumerate(self.sizes))
        ops = ", ".join(f'"{o}"' for o in dict.fromkeys(self.ops)) or '"Store"'
        syms = ", ".join(f'"{s}"' for s in all_symbols(self.kernel))
        head = (f"  func.func @{self.kernel.name}({args}) -> ({results}) attributes {{ascir.axes = [{axes}], "
                f'ascir.form = "hint", ascir.ops = [{ops}], ascir.sizes = [{syms}]}} {{')
        ret = f"    return {', '.join(s for _, _, s in self.outputs)} : {results}"
        return "\n".join([head, *self.lines, ret, "  }"])


def _dim(e) -> str:
    e = sympy.sympify(e)
    if not e.is_number:
        raise Unsupported(f"an embedding table of symbolic size {e}")
    return str(int(e))


def _order(e) -> float:
    e = sympy.sympify(e)
    return float(e.subs({sym: 97 for sym in e.free_symbols}))


class StridedInnermost(Unsupported):
    """A view strided along the kernel's innermost axis: the emitter with a unit
    innermost axis may express it."""


def kernel_text(kernel: LoopKernel, storage, unit_inner: bool = False) -> Emitter:
    """The AscGraph of `kernel` (raises ``Unsupported`` with the reason)."""
    e = Emitter(kernel, storage, unit_inner)
    e.text = e.function()
    return e


def module_text(emitters: list[Emitter]) -> str:
    """One module: an entry graph calling each kernel once, then the kernels."""
    args, calls, ret_types, rets = [], [], [], []
    for e in emitters:
        first = len(args)
        args += [t for _, t in e.args]
        names = ", ".join(f"%arg{first + i}" for i in range(len(e.args)))
        types = ", ".join(t for _, t in e.args)
        outs = [t for _, t, _ in e.outputs]
        r = f"%r{len(calls)}"
        calls.append(f"    {r}:{len(outs)} = call @{e.kernel.name}({names}) : ({types}) -> ({', '.join(outs)})"
                     if len(outs) > 1 else
                     f"    {r} = call @{e.kernel.name}({names}) : ({types}) -> {outs[0]}")
        for i, t in enumerate(outs):
            rets.append(f"{r}#{i}" if len(outs) > 1 else r)
            ret_types.append(t)
    head = f"  func.func @graph({', '.join(f'%arg{i}: {t}' for i, t in enumerate(args))}) -> ({', '.join(ret_types)}) {{"
    body = [head, *calls, f"    return {', '.join(rets)} : {', '.join(ret_types)}", "  }"]
    return "module {\n" + "\n".join(body + [e.text for e in emitters]) + "\n}\n"


class BuiltModule:
    """The kernels of one Inductor graph, built as one library on the emulation."""

    def __init__(self, plan_path: Path, emitters: dict[str, Emitter], npu=None):
        self.plan = json.loads(plan_path.read_text())
        self.library = Library.load(self.plan["library"])
        # The NPU glue of the same kernels (npu.NpuLibrary), when they launch on an NPU.
        self.npu = npu
        self.emitters = emitters
        self.kernels = {name for name in emitters if name in self.plan["kernels"]}

    def run(self, kernel: LoopKernel, tensors: dict[str, torch.Tensor], symbols: dict[str, int]) -> LaunchRecord:
        import ctypes

        e = self.emitters[kernel.name]
        entry = self.plan["kernels"][kernel.name]
        sym_values = [int(symbols[s]) for s in entry["symbols"]]
        sym = (ctypes.c_int64 * max(1, len(sym_values)))(*sym_values)
        ins = [tensors[b].float() if b in e.host_float32 else _int32_table(b, tensors[b]) if b in e.host_int32
               else tensors[b] for b, _ in e.args]
        outs = [tensors[b] for b, _, _ in e.outputs]
        offsets = [int(SympyTorch(symbols)(sympy.sympify(o))) for o in e.output_offsets]
        in_ptrs = (ctypes.c_void_p * max(1, len(ins)))(*[t.data_ptr() for t in ins])
        out_addresses = [t.data_ptr() + o * t.element_size() for t, o in zip(outs, offsets)]
        if self.npu is not None:
            device = (ins + outs)[0].device
            self.npu.launch(entry["symbol"], sym_values, device, [t.data_ptr() for t in ins], out_addresses,
                            kernel.name)
            # The device counts no bytes for us.
            return LaunchRecord(kernel.name, 0, 0, 0.0)
        out_ptrs = (ctypes.c_void_p * max(1, len(outs)))(*out_addresses)
        stats = (ctypes.c_double * 5)()
        lib = self.library.lib
        code = lib.af_kernel_run(entry["symbol"].encode(), entry["chip"].encode(), entry["cores"], entry["ub"],
                                 sym, len(sym_values), in_ptrs, len(ins), out_ptrs, len(outs), stats)
        if code != 0:
            raise KernelError(f"kernel {kernel.name}: code {code}: {lib.af_last_error().decode(errors='replace')}")
        return LaunchRecord(kernel.name, int(stats[0]), int(stats[1]), float(stats[3]))


def _int32_table(name: str, t: torch.Tensor) -> torch.Tensor:
    """An int64 table of indices as int32 (its flat storage, as the kernel indexes it);
    a value int32 cannot hold is an error, never a wrapped index."""
    flat = flat_storage(t)
    if flat.numel() and (flat.min() < -2**31 or flat.max() >= 2**31):
        raise KernelError(f"index table {name} holds values outside int32")
    return flat.to(torch.int32)


def check_kernel(work: Path, e: Emitter) -> str | None:
    """Schedules and tiles one kernel alone (``autofuse-opt``); the first diagnostic
    line when autofuse cannot, else None."""
    path = work / f"{e.kernel.name}.mlir"
    path.write_text(module_text([e]))
    cmd = [str(_tools.tool("autofuse-opt")), str(path), "--infer-symbolic-shapes", "--schedule", "--auto-tiling",
           "-o", "/dev/null"]
    done = subprocess.run(cmd, capture_output=True, text=True, env=_tools._environment())
    if done.returncode != 0:
        lines = [ln for ln in (done.stderr or done.stdout).splitlines() if "error" in ln] or ["failed"]
        return "autofuse: " + lines[0].strip()
    # A kernel the schedule refuses stays in hint form with a remark (not an error):
    # the module build would leave it to torch.
    refused = [ln for ln in done.stderr.splitlines() if "stays in hint form" in ln]
    if refused:
        return "autofuse: " + refused[0].split("remark: ", 1)[-1].strip()
    return None


def _checked_kernel(work: Path, k: LoopKernel, unit_inner: bool):
    """The emitter of `k` and None, or None and why autofuse cannot build it; and
    whether the reason is a view strided along the innermost axis."""
    try:
        e = kernel_text(k, lambda b, k=k: k.storage[b], unit_inner)
    except StridedInnermost as why:
        return None, str(why), True
    except Unsupported as why:
        return None, str(why), False
    problem = check_kernel(work, e)
    if problem:
        return None, problem, any(m in problem for m in ("not contiguous along the innermost axis",
                                                         "loads transpose the innermost axis"))
    return e, None, False


def build_module(key: str, kernels: list[LoopKernel], report, npu: bool = False) -> BuiltModule | None:
    """The AscGraph of each kernel, checked alone, then all that pass built as one
    library (and, with `npu`, as the NPU glue of the same kernels, npu.py). Kernels that
    fail get their reason in `kernel.unsupported`."""
    from .backend import _work_dir
    from .npu import NpuBuildError, NpuLibrary, build_glue

    work = _work_dir() / f"inductor-{key}"
    work.mkdir(parents=True, exist_ok=True)
    emitters: dict[str, Emitter] = {}
    for k in kernels:
        e, problem, strided = _checked_kernel(work, k, unit_inner=False)
        if strided:
            # Strided along the innermost axis: rows of one element.
            e, problem, _ = _checked_kernel(work, k, unit_inner=True)
        if problem:
            k.unsupported.append(problem)
            continue
        emitters[k.name] = e
    if not emitters:
        return None
    text_ = module_text(list(emitters.values()))
    mlir = work / "graph.mlir"
    mlir.write_text(text_)
    report.mlir_path = str(mlir)
    try:
        _tools.emit_library(mlir, work / "build", ["--no-fuse", "--no-group-launches"])
    except _tools.ToolError as e:
        for k in kernels:
            if k.name in emitters:
                k.unsupported.append(f"autofuse failed on the module: {str(e).splitlines()[0]}")
        return None
    report.plan_path = str(work / "build" / "plan.json")
    glue = None
    if npu:
        try:
            glue = NpuLibrary.load(str(build_glue(work / "build" / "npu", work / "npu-builds")))
        except NpuBuildError as e:
            for k in kernels:
                if k.name in emitters:
                    k.unsupported.append(f"the NPU glue did not build: {str(e).splitlines()[0]}")
            return None
        report.target = "npu"
    return BuiltModule(work / "build" / "plan.json", emitters, glue)

