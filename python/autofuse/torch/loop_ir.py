"""Inductor's loop bodies, recorded: what ``backend="autofuse-inductor"`` turns into
AscGraphs (``ascgraph.py``) or, where it cannot, runs with torch (``evaluate`` below).

A fused scheduler node of Inductor is a list of ``SchedulerNode``s whose loop bodies
(``LoopBody``) call the ops handler: ``load(name, index)``, pointwise ops,
``reduction``, ``store``/``store_reduction``. The ``Recorder`` is that handler: each
call becomes an ``LVal`` (an SSA value of the recorded kernel) and every index
expression is a sympy expression over the kernel's axis symbols ``z0, z1, ...`` and
Inductor's size symbols (``s0, s1, ...``). The kernel's axes are the common refinement
of its nodes' loop ranges (the reduction axes last), so every node's loop variables
are sums of axis symbols times constant or symbolic strides.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import sympy
import torch

COMPARES = {"eq", "ne", "lt", "le", "gt", "ge", "isnan", "isinf", "logical_and", "logical_or",
            "logical_not", "logical_xor", "signbit"}


@dataclass(eq=False)
class LVal:
    """One value of a recorded kernel: ``op`` with its operands (``LVal``s, numbers,
    sympy expressions or names), its element type, and whether the kernel's reduction
    axes are collapsed in it (a reduction's result)."""

    op: str
    args: tuple
    dtype: torch.dtype
    reduced: bool = False
    attrs: dict = field(default_factory=dict)


@dataclass
class Store:
    buffer: str
    index: sympy.Expr
    value: LVal
    reduction: bool


@dataclass
class LoopKernel:
    """One fused scheduler node, recorded: the axes (sizes, the last ``reduction_axes``
    of them reduced), the values and stores in program order, and what it reads."""

    name: str
    axes: list[sympy.Expr]
    reduction_axes: int
    stores: list[Store] = field(default_factory=list)
    loads: list[LVal] = field(default_factory=list)
    reads: list[str] = field(default_factory=list)
    unsupported: list[str] = field(default_factory=list)
    node_names: list[str] = field(default_factory=list)
    removed: set = field(default_factory=set)
    exprs: list = field(default_factory=list)
    storage: dict = field(default_factory=dict)
    unrunnable: str = ""
    indirect: dict = field(default_factory=dict)

    def axis_symbols(self) -> list[sympy.Symbol]:
        return [sympy.Symbol(f"z{i}", integer=True, nonnegative=True) for i in range(len(self.axes))]


def refine(range_lists: list[list[sympy.Expr]]) -> list[sympy.Expr] | None:
    """The common refinement of several lists of loop sizes with equal products: the
    coarsest list of which each is a grouping of consecutive entries, or None when
    a size of one does not divide a size of another (symbolic sizes must divide
    exactly as polynomials)."""
    result = [sympy.sympify(s) for s in range_lists[0] if s != 1]
    for other in range_lists[1:]:
        b = [sympy.sympify(s) for s in other if s != 1]
        a, merged = list(result), []
        i = j = 0
        while i < len(a) and j < len(b):
            x, y = a[i], b[j]
            if sympy.simplify(x - y) == 0:
                merged.append(x)
                i += 1
                j += 1
                continue
            q = _exact_quotient(x, y)
            if q is not None:
                merged.append(y)
                a[i] = q
                j += 1
                continue
            q = _exact_quotient(y, x)
            if q is not None:
                merged.append(x)
                b[j] = q
                i += 1
                continue
            return None
        if i != len(a) or j != len(b):
            return None
        result = merged
    return result


def _exact_quotient(x: sympy.Expr, y: sympy.Expr) -> sympy.Expr | None:
    """x / y when y divides x exactly (no denominator left), else None. A floor division
    of a size (`s69//4`, the side of a strided image) is an opaque factor: sympy answers
    None, not True, to is_polynomial() for it, which is no reason to refuse."""
    q = sympy.cancel(x / y)
    if sympy.fraction(q)[1] != 1 or q.is_polynomial() is False:
        return None
    return q


def group_vars(sizes: list[sympy.Expr], axes: list[sympy.Expr], axis_syms, start: int):
    """Each of a node's loop variables (of `sizes`) as an expression of consecutive
    kernel axes from `start`: v = sum z_k * (product of the later axes of its group).
    Returns the expressions and the next free axis."""
    exprs, k = [], start
    for size in sizes:
        if size == 1:
            exprs.append(sympy.Integer(0))
            continue
        group, product = [], sympy.Integer(1)
        while sympy.simplify(product - size) != 0:
            if k >= len(axes):
                raise ValueError(f"loop size {size} does not match the kernel axes {axes}")
            group.append(k)
            product = product * axes[k]
            k += 1
        expr, stride = sympy.Integer(0), sympy.Integer(1)
        for a in reversed(group):
            expr = expr + axis_syms[a] * stride
            stride = stride * axes[a]
        exprs.append(expr)
    return exprs, k


class Recorder:
    """The ops handler Inductor's loop bodies call: records every op as an ``LVal``.
    Ops the AscGraph generator cannot take are still recorded (the torch evaluator runs
    them); the generator names them."""

    def __init__(self, kernel: LoopKernel, buffer_dtype):
        self.kernel = kernel
        self.buffer_dtype = buffer_dtype
        self.stored: dict[str, tuple[sympy.Expr, LVal]] = {}
        self.indirect: dict[sympy.Symbol, LVal] = {}
        # Value numbering: the nodes of a fused kernel re-read and recompute what
        # their producers computed (Inductor inlines pointwise producers); one value
        # each in the AscGraph.
        self.numbered: dict[tuple, LVal] = {}

    def _number(self, v: LVal) -> LVal:
        key = (v.op, v.dtype, v.reduced, tuple(sorted(v.attrs.items())), tuple(id(a) if isinstance(a, LVal) else (type(a).__name__, a) for a in v.args))
        try:
            return self.numbered.setdefault(key, v)
        except TypeError:
            return v

    # Memory.
    def load(self, name: str, index):
        index = sympy.sympify(index)
        if name in self.stored and self.stored[name][0] == index:
            return self.stored[name][1]
        if name in self.stored:
            self.kernel.unsupported.append(f"reads {name} at another index than the kernel stored it")
        # A load after a store to the same buffer is another value than one before it.
        version = sum(1 for st in self.kernel.stores if st.buffer == name)
        v = self._number(LVal("load", (name, index), self.buffer_dtype(name), attrs={"version": version}))
        if v not in self.kernel.loads:
            self.kernel.loads.append(v)
        if name not in self.kernel.reads:
            self.kernel.reads.append(name)
        return v

    def store(self, name, index, value, mode=None):
        if mode is not None:
            self.kernel.unsupported.append(f"a store with mode {mode}")
        index = sympy.sympify(index)
        value = self._value(value, self.buffer_dtype(name))
        self.stored[name] = (index, value)
        self.kernel.stores.append(Store(name, index, value, False))

    def store_reduction(self, name, index, value):
        index = sympy.sympify(index)
        value = self._value(value, self.buffer_dtype(name))
        self.stored[name] = (index, value)
        self.kernel.stores.append(Store(name, index, value, True))

    def reduction(self, dtype, src_dtype, reduction_type, value):
        if reduction_type in ("welford_reduce", "online_softmax_reduce"):
            parts = 3 if reduction_type == "welford_reduce" else 2
            return tuple(LVal("reduce", (reduction_type, value, i), dtype, True) for i in range(parts))
        return LVal("reduce", (reduction_type, value), dtype, True)

    # Values.
    def constant(self, value, dtype):
        return self._number(LVal("constant", (value,), dtype))

    def index_expr(self, expr, dtype):
        expr = sympy.sympify(expr)
        self.kernel.exprs.append(expr)
        return self._number(LVal("index", (expr,), dtype))

    def to_dtype(self, x, dtype, src_dtype=None, use_compute_types=True):
        x = self._value(x, dtype)
        return self._number(LVal("cast", (x,), dtype, x.reduced))

    def to_dtype_bitcast(self, x, dtype, src_dtype):
        self.kernel.unsupported.append("a bitcast")
        return LVal("bitcast", (x,), dtype, x.reduced)

    def indirect_indexing(self, x, size, check=True, wrap_neg=True):
        sym = sympy.Symbol(f"ind{len(self.indirect)}", integer=True)
        self.indirect[sym] = x
        self.kernel.indirect[sym] = x
        return sym

    def masked(self, mask, body, other):
        self.kernel.unsupported.append("a masked load (padding or concatenation)")
        result = body()
        other = self._value(other, result.dtype)
        return self._op("where", (mask, result, other))

    def where(self, cond, a, b):
        return self._op("where", (cond, a, b))

    def check_bounds(self, expr, size, lower, upper):
        return None

    def _value(self, x, dtype) -> LVal:
        if isinstance(x, LVal):
            return x
        return LVal("constant", (x,), dtype)

    def _op(self, name, args):
        vals = [a for a in args if isinstance(a, LVal)]
        if name in COMPARES:
            dtype = torch.bool
        elif name == "where":
            dtype = (args[1] if isinstance(args[1], LVal) else args[2]).dtype
        else:
            dtype = vals[0].dtype
            for v in vals[1:]:
                dtype = torch.promote_types(dtype, v.dtype)
        ref = vals[0] if vals else None
        args = tuple(self._value(a, ref.dtype if ref else dtype) for a in args)
        if name == "where":
            args = (args[0], self._value(args[1], dtype), self._value(args[2], dtype))
        return self._number(LVal("call", (name, *args), dtype, any(v.reduced for v in vals)))

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)

        def op(*args, **kwargs):
            return self._op(name, args)

        return op


# ----------------------------------------------------------------------------------
# Running a recorded kernel with torch (the fallback of a kernel autofuse cannot take).


TORCH_OPS = {
    "add": torch.add, "sub": torch.sub, "mul": torch.mul, "truediv": torch.true_divide,
    "div": torch.true_divide, "floordiv": lambda a, b: torch.div(a, b, rounding_mode="floor"),
    "mod": torch.fmod, "remainder": torch.remainder, "neg": torch.neg, "abs": torch.abs,
    "exp": torch.exp, "exp2": torch.exp2, "expm1": torch.expm1, "log": torch.log,
    "log1p": torch.log1p, "log2": torch.log2, "sqrt": torch.sqrt, "rsqrt": torch.rsqrt,
    "reciprocal": torch.reciprocal, "relu": torch.relu, "sigmoid": torch.sigmoid,
    "tanh": torch.tanh, "erf": torch.erf, "sign": torch.sign, "floor": torch.floor,
    "ceil": torch.ceil, "round": torch.round, "trunc": torch.trunc, "sin": torch.sin,
    "cos": torch.cos, "square": torch.square, "maximum": torch.maximum, "minimum": torch.minimum,
    "pow": torch.pow, "eq": torch.eq, "ne": torch.ne, "lt": torch.lt, "le": torch.le,
    "gt": torch.gt, "ge": torch.ge, "logical_and": torch.logical_and, "logical_or": torch.logical_or,
    "logical_not": torch.logical_not, "logical_xor": torch.logical_xor, "isnan": torch.isnan,
    "isinf": torch.isinf, "bitwise_and": torch.bitwise_and, "bitwise_or": torch.bitwise_or,
    "bitwise_xor": torch.bitwise_xor, "bitwise_not": torch.bitwise_not, "signbit": torch.signbit,
    "and_": torch.bitwise_and, "or_": torch.bitwise_or, "xor": torch.bitwise_xor,  # Inductor's &, |, ^
    "where": torch.where, "atan": torch.atan, "cosh": torch.cosh, "sinh": torch.sinh,
    "tan": torch.tan, "acos": torch.acos, "asin": torch.asin, "erfc": torch.erfc,
    "identity": lambda x: x,
}


class SympyTorch:
    """Evaluates an index expression with torch: axis symbols are broadcast aranges,
    size symbols their values, indirect symbols the tensors they were read from.

    ``FUNCTIONS`` names every expression head it evaluates; ``unknown_heads`` finds
    the others, so that a kernel using one is refused when it is compiled, not when
    it is first called."""

    FUNCTIONS = frozenset({
        "Add", "Mul", "Pow", "PowByNatural", "FloorDiv", "CleanDiv", "IntTrueDiv", "CeilDiv",
        "ModularIndexing", "Mod", "PythonMod", "Abs", "Max", "Min", "Identity", "Where",
        "LShift", "RShift", "StrictLessThan", "LessThan", "StrictGreaterThan", "GreaterThan",
        "Equality", "Unequality",
    })

    def __init__(self, env: dict):
        self.env = env

    @classmethod
    def unknown_heads(cls, e) -> set[str]:
        """The heads of `e` this evaluator cannot evaluate (empty when it can)."""
        e = sympy.sympify(e)
        if isinstance(e, (sympy.Number, sympy.Symbol)) or e in (sympy.true, sympy.false):
            return set()
        name = type(e).__name__
        unknown = set()
        if name not in cls.FUNCTIONS:
            unknown.add(name)
        elif name == "Pow" and not (isinstance(e.args[1], sympy.Integer) and int(e.args[1]) >= 0):
            unknown.add(f"Pow with exponent {e.args[1]}")
        for a in e.args:
            unknown |= cls.unknown_heads(a)
        return unknown

    def __call__(self, e):
        if isinstance(e, sympy.Integer):
            return int(e)
        if isinstance(e, sympy.Number):  # a float index_expr (Wav2Vec2 through route 2: 0.0)
            return float(e)
        if isinstance(e, sympy.Symbol):
            return self.env[e.name]
        if e is sympy.true or e is sympy.false:
            return bool(e)
        args = [self(a) for a in e.args]
        name = type(e).__name__
        if isinstance(e, sympy.Add):
            return sum(args[1:], args[0])
        if isinstance(e, sympy.Mul):
            out = args[0]
            for a in args[1:]:
                out = out * a
            return out
        if (isinstance(e, sympy.Pow) and isinstance(e.args[1], sympy.Integer) and int(e.args[1]) >= 0) \
                or name == "PowByNatural":
            return args[0] ** args[1]
        if name in ("FloorDiv", "CleanDiv", "IntTrueDiv"):
            return args[0] // args[1]
        if name == "CeilDiv":
            return -((-args[0]) // args[1])
        if name == "ModularIndexing":
            return (args[0] // args[1]) % args[2]
        if name in ("Mod", "PythonMod"):
            return args[0] % args[1]
        if name == "Abs":
            return args[0].abs() if isinstance(args[0], torch.Tensor) else abs(args[0])
        if name == "Max":
            return _fold(torch.maximum, max, args)
        if name == "Min":
            return _fold(torch.minimum, min, args)
        if name == "Identity":
            return args[0]
        if name == "Where":
            return torch.where(torch.as_tensor(args[0]), torch.as_tensor(args[1]), torch.as_tensor(args[2]))
        if name == "LShift":
            return args[0] << args[1]
        if name == "RShift":
            return args[0] >> args[1]
        compare = {"StrictLessThan": "__lt__", "LessThan": "__le__", "StrictGreaterThan": "__gt__",
                   "GreaterThan": "__ge__", "Equality": "__eq__", "Unequality": "__ne__"}.get(name)
        if compare is not None:
            return getattr(torch.as_tensor(args[0]), compare)(torch.as_tensor(args[1]))
        raise NotImplementedError(f"index expression {e}")


def unknown_index_heads(kernel: LoopKernel) -> set[str]:
    """The expression heads in a kernel's sizes and indices that ``SympyTorch`` cannot
    evaluate."""
    found = set()
    for e in itertools.chain(kernel.axes, (s.index for s in kernel.stores),
                             (v.args[1] for v in kernel.loads), kernel.exprs):
        found |= SympyTorch.unknown_heads(e)
    return found


def _fold(tensor_fn, int_fn, args):
    out = args[0]
    for a in args[1:]:
        if isinstance(out, torch.Tensor) or isinstance(a, torch.Tensor):
            out = tensor_fn(torch.as_tensor(out), torch.as_tensor(a))
        else:
            out = int_fn(out, a)
    return out


def flat_storage(t: torch.Tensor) -> torch.Tensor:
    """The storage `t` views, from `t`'s first element to the storage's end, as one
    contiguous 1-D tensor sharing it (what an Inductor kernel indexes)."""
    return torch.as_strided(t, (t.untyped_storage().nbytes() // t.element_size() - t.storage_offset(),), (1,))


def evaluate(kernel: LoopKernel, buffers: dict[str, torch.Tensor], symbols: dict[str, int],
             indirect: dict) -> None:
    """Runs a recorded kernel with torch over its whole iteration space at once:
    reads and writes `buffers` (flat views of each tensor's storage)."""
    if kernel.unrunnable:
        raise RuntimeError(f"kernel {kernel.name} cannot run: {kernel.unrunnable}")
    sizes = [int(SympyTorch(symbols)(sympy.sympify(s))) for s in kernel.axes]
    rank = len(sizes)
    env: dict = dict(symbols)
    for i, n in enumerate(sizes):
        shape = [1] * rank
        shape[i] = n
        env[f"z{i}"] = torch.arange(n).reshape(shape)
    full = sizes
    reduced = sizes[: rank - kernel.reduction_axes] + [1] * kernel.reduction_axes
    dims = list(range(rank - kernel.reduction_axes, rank))
    flats = {name: flat_storage(t) for name, t in buffers.items()}
    cache: dict[int, torch.Tensor] = {}
    index_of = SympyTorch(env)

    def bind(expr) -> None:
        # An indirect symbol is the tensor of indices it was read from.
        for sym in sympy.sympify(expr).free_symbols:
            if sym in indirect:
                env[sym.name] = value(indirect[sym]).long()

    def value(v) -> torch.Tensor:
        if not isinstance(v, LVal):
            return v
        if id(v) in cache:
            return cache[id(v)]
        out = compute(v)
        cache[id(v)] = out
        return out

    def compute(v: LVal) -> torch.Tensor:
        if v.op == "load":
            name, index = v.args
            bind(index)
            idx = torch.as_tensor(index_of(index)).broadcast_to(full if not v.reduced else reduced)
            return flats[name][idx.clamp(0, flats[name].numel() - 1)]
        if v.op == "constant":
            return torch.tensor(v.args[0], dtype=v.dtype)
        if v.op == "index":
            bind(v.args[0])
            return torch.as_tensor(index_of(v.args[0])).to(v.dtype)
        if v.op in ("cast", "bitcast"):
            x = value(v.args[0])
            return x.to(v.dtype) if v.op == "cast" else x.view(v.dtype)
        if v.op == "reduce":
            kind, src = v.args[0], value(v.args[1]).broadcast_to(full)
            return reduce_torch(kind, src, dims, v.args[2] if len(v.args) > 2 else 0).to(v.dtype)
        name, *args = v.args
        return TORCH_OPS[name](*[value(a) for a in args]).to(v.dtype)

    for number, store in enumerate(kernel.stores):
        if store.buffer in kernel.removed:
            continue
        # Loads of this buffer recorded before this store read what it held before.
        for load in kernel.loads:
            if load.args[0] == store.buffer and load.attrs.get("version", 0) <= number:
                value(load)
        bind(store.index)
        shape = reduced if store.reduction else full
        idx = torch.as_tensor(index_of(store.index)).broadcast_to(shape).reshape(-1)
        data = value(store.value).broadcast_to(shape).reshape(-1)
        flats[store.buffer][idx] = data.to(flats[store.buffer].dtype)


def reduce_torch(kind: str, x: torch.Tensor, dims: list[int], part: int) -> torch.Tensor:
    if kind == "sum":
        return x.sum(dim=dims, keepdim=True)
    if kind == "prod":
        return x.flatten(dims[0]).prod(dim=-1).reshape(x.shape[: dims[0]] + (1,) * len(dims))
    if kind == "max":
        return x.amax(dim=dims, keepdim=True)
    if kind == "min":
        return x.amin(dim=dims, keepdim=True)
    if kind == "any":
        return x.bool().any(dim=dims[0], keepdim=True) if len(dims) == 1 else x.bool().flatten(dims[0]).any(-1).reshape(x.shape[: dims[0]] + (1,) * len(dims))
    if kind == "welford_reduce":
        mean = x.mean(dim=dims, keepdim=True)
        if part == 0:
            return mean
        if part == 1:
            return ((x - mean) ** 2).sum(dim=dims, keepdim=True)
        return torch.full_like(mean, float(torch.tensor(x.shape)[dims].prod()))
    if kind == "online_softmax_reduce":
        top = x.amax(dim=dims, keepdim=True)
        return top if part == 0 else torch.exp(x - top).sum(dim=dims, keepdim=True)
    raise NotImplementedError(f"reduction {kind}")


def all_symbols(kernel: LoopKernel) -> list[str]:
    """The size symbols (``s0``...) a kernel's sizes and indices use, sorted."""
    found = set()
    for e in itertools.chain(kernel.axes, (s.index for s in kernel.stores),
                             (v.args[1] for v in kernel.loads), kernel.exprs):
        found |= {s.name for s in sympy.sympify(e).free_symbols}
    return sorted(n for n in found if not n.startswith("z") and not n.startswith("ind"))


def _numeric(e) -> float:
    """A symbolic stride's value with every size symbol at 97: an order for sorting."""
    e = sympy.sympify(e)
    return float(e.subs({sym: 97 for sym in e.free_symbols}))


def order_axes_by_store(kernel: LoopKernel, values: list[LVal]) -> None:
    """Reorders the kernel's axes (outer ones among themselves, reduction ones among
    themselves) so that the first store walks its buffer with decreasing strides: the
    kernel then writes contiguous rows and a layout change (Inductor's channels-last
    copy, a transposed store) becomes a strided load instead."""
    if not kernel.stores or not kernel.axes:
        return
    zs = kernel.axis_symbols()
    index = sympy.expand(kernel.stores[0].index)
    stride = [_numeric(index.coeff(z)) for z in zs]
    outer = len(zs) - kernel.reduction_axes
    groups = [list(range(outer)), list(range(outer, len(zs)))]
    order = []
    for g in groups:
        order += sorted(g, key=lambda i: -stride[i])
    if order == list(range(len(zs))):
        return
    rename = {zs[old]: zs[new] for new, old in enumerate(order)}
    kernel.axes = [kernel.axes[old] for old in order]
    for v in values:
        if v.op == "load":
            v.args = (v.args[0], sympy.sympify(v.args[1]).xreplace(rename))
        elif v.op == "index":
            v.args = (sympy.sympify(v.args[0]).xreplace(rename),)
    for st in kernel.stores:
        st.index = sympy.sympify(st.index).xreplace(rename)
    kernel.exprs = [sympy.sympify(e).xreplace(rename) for e in kernel.exprs]


def _exact(a, b):
    """a / b when b divides a (as polynomials), else None."""
    q = sympy.cancel(sympy.sympify(a) / sympy.sympify(b))
    if q.is_polynomial() and sympy.fraction(q)[1] == 1:
        return q
    return None


def _indices(kernel: LoopKernel, values: list[LVal]):
    for v in values:
        if v.op == "load":
            yield v.args[1]
        elif v.op == "index":
            yield v.args[0]
    for st in kernel.stores:
        yield st.index


def index_splits(kernel: LoopKernel, values: list[LVal]) -> list[list]:
    """Lists of sizes (the kernel's axes with one axis split) that make each
    ``ModularIndexing(z, d, m)`` and ``FloorDiv(z, d)`` of a single axis affine after a
    new recording: z of size S becomes (S/(d*m), m, d) or (S/d, d)."""
    zs = kernel.axis_symbols()
    splits = []
    for index in _indices(kernel, values):
        for e in sympy.preorder_traversal(sympy.sympify(index)):
            kind = type(e).__name__
            if kind not in ("ModularIndexing", "FloorDiv") or e.args[0] not in zs:
                continue
            k = zs.index(e.args[0])
            size = kernel.axes[k]
            if kind == "ModularIndexing":
                d, m = e.args[1], e.args[2]
                outer = _exact(size, d * m)
                pieces = [outer, m, d] if outer is not None else None
            else:
                d = e.args[1]
                outer = _exact(size, d)
                pieces = [outer, d] if outer is not None else None
            if pieces is None:
                continue
            pieces = [p for p in pieces if p != 1]
            split = kernel.axes[:k] + pieces + kernel.axes[k + 1:]
            if len(split) > len(kernel.axes) and split not in splits:
                splits.append(split)
    return splits


def simplify_indices(kernel: LoopKernel, values: list[LVal], simplify) -> None:
    """Rewrites every index of the kernel with `simplify` (Inductor's simplification
    with the axes' ranges: modular and floor-divided sums of split axes become affine)."""
    for v in values:
        if v.op == "load":
            v.args = (v.args[0], simplify(v.args[1]))
        elif v.op == "index":
            v.args = (simplify(v.args[0]),)
    for st in kernel.stores:
        st.index = simplify(st.index)

