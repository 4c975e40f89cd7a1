#!/usr/bin/env python3
"""Kernels and GM bytes of the fusion-quality subgraphs under XLA (jax on CPU) and
PyTorch Inductor (torch.compile on CPU).

Each subgraph of bench/quality/graphs/<name>.mlir is written again here with the same
shapes, dtypes and math. For every subgraph this prints one JSON object per line:

    {"name": ..., "min_bytes": ..., "xla": {...}, "inductor": {...}}

- min_bytes: graph inputs + outputs, each moved once (as autofuse-run counts it).
- xla: the optimized HLO of jax.jit(f).lower(*args).compile().as_text(). Kernels are the
  instructions of the entry computation that run code: fusions and standalone compute
  instructions (not parameter, constant, tuple, get-tuple-element, bitcast). Bytes are
  the operand + result bytes of those kernels (distinct operands).
- inductor: the Python wrapper Inductor generates (torch._inductor.utils.run_and_get_code).
  Kernels are the calls its `call` function makes to generated kernels (cpp_fused_*),
  extern kernels and aten fallbacks; bytes are the sizes of the distinct buffers passed to
  each call. torch._inductor.metrics is not used: on CPU num_bytes_accessed stays 0 and
  generated_kernel_count counts loop nests inside one C++ kernel (8 for one layer_norm
  kernel), not launches. `--self-check` verifies the counting on a single add, which must
  be 1 kernel moving 3 * N * 4 bytes.

A peer that cannot be imported (torch not installable) yields {"error": "..."}.
"""

import argparse
import ast
import json
import math
import re
import sys
import traceback

import numpy as np

F32, F16 = "float32", "float16"
ROWS, COLS = 4096, 1024


def spec(*shapes_dtypes):
    return [(tuple(s), d) for s, d in shapes_dtypes]


# name -> input (shape, dtype) specs. The math is in jax_fn / torch_fn below.
SUBGRAPHS = {
    "softmax": spec(((ROWS, COLS), F32)),
    "layer_norm": spec(((ROWS, COLS), F32), ((COLS,), F32), ((COLS,), F32)),
    "rms_norm": spec(((ROWS, COLS), F32), ((COLS,), F32)),
    "gelu_bias": spec(((ROWS, COLS), F32), ((COLS,), F32)),
    "swiglu": spec(((ROWS, COLS), F32), ((ROWS, COLS), F32)),
    "elementwise_chain": spec(((ROWS, COLS), F32), ((ROWS, COLS), F32), ((COLS,), F32)),
    "residual_layer_norm": spec(
        ((ROWS, COLS), F32), ((ROWS, COLS), F32), ((COLS,), F32), ((COLS,), F32)
    ),
    "row_normalize": spec(((ROWS, COLS), F32)),
    "cast_chain": spec(((ROWS, COLS), F16)),
    "transpose_add": spec(((COLS, ROWS), F32), ((ROWS, COLS), F32)),
    "concat_relu": spec(((ROWS, COLS // 2), F32), ((ROWS, COLS // 2), F32)),
    "rec_block": spec(((65536, 64), F32), ((65536, 64), F32), ((64,), F32)),
    "softmax_f16": spec(((ROWS, COLS), F16)),
    "layer_norm_f16": spec(((ROWS, COLS), F16), ((COLS,), F16), ((COLS,), F16)),
}

# name -> output specs (for the minimum, without running anything).
OUTPUTS = {name: spec(((ROWS, COLS), F32)) for name in SUBGRAPHS}
OUTPUTS.update(
    residual_layer_norm=spec(((ROWS, COLS), F32), ((ROWS, COLS), F32)),
    cast_chain=spec(((ROWS, COLS), F16)),
    rec_block=spec(((65536, 64), F32)),
    softmax_f16=spec(((ROWS, COLS), F16)),
    layer_norm_f16=spec(((ROWS, COLS), F16)),
)

GELU_C = math.sqrt(2.0 / math.pi)


def make_inputs(name):
    rng = np.random.default_rng(0)
    return [rng.uniform(-2.0, 2.0, size=s).astype(d) for s, d in SUBGRAPHS[name]]


def nbytes(shape, dtype):
    return int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize


# ---------------------------------------------------------------- the math, twice


def jax_fn(name):
    import jax
    import jax.numpy as jnp

    def ln(x, g, b, eps=1e-5):
        m = jnp.mean(x, -1, keepdims=True)
        c = x - m
        v = jnp.mean(c * c, -1, keepdims=True)
        return c / jnp.sqrt(v + eps) * g + b

    def softmax(x):
        e = jnp.exp(x - jnp.max(x, -1, keepdims=True))
        return e / jnp.sum(e, -1, keepdims=True)

    f32, f16 = jnp.float32, jnp.float16
    sig = jax.nn.sigmoid
    return {
        "softmax": softmax,
        "softmax_f16": lambda x: softmax(x.astype(f32)).astype(f16),
        "layer_norm": ln,
        "layer_norm_f16": lambda x, g, b: ln(x.astype(f32), g.astype(f32), b.astype(f32)).astype(f16),
        "rms_norm": lambda x, g: x / jnp.sqrt(jnp.mean(x * x, -1, keepdims=True) + 1e-6) * g,
        "gelu_bias": lambda x, b: (lambda h: 0.5 * h * (1 + jnp.tanh(GELU_C * (h + 0.044715 * h * h * h))))(x + b),
        "swiglu": lambda g, u: g * sig(g) * u,
        "elementwise_chain": lambda x, y, s: sig(jax.nn.relu(jnp.abs(x * s + y) - x)),
        "residual_layer_norm": lambda x, r, g, b: (lambda h: (h, ln(h, g, b)))(x + r),
        "row_normalize": lambda x: (lambda p: p / jnp.sum(p, -1, keepdims=True))(jnp.abs(x)),
        "cast_chain": lambda x: (lambda a: (sig(a).astype(f16).astype(f32) * a).astype(f16))(x.astype(f32)),
        "transpose_add": lambda x, y: x.T + y,
        "concat_relu": lambda a, b: jax.nn.relu(jnp.concatenate([a, b], axis=1)),
        "rec_block": lambda x, e, w: x * sig(jnp.sum(x * e, -1, keepdims=True)) + e * w,
    }[name]


def torch_fn(name):
    import torch

    def ln(x, g, b, eps=1e-5):
        m = x.mean(-1, keepdim=True)
        c = x - m
        v = (c * c).mean(-1, keepdim=True)
        return c / torch.sqrt(v + eps) * g + b

    def softmax(x):
        e = torch.exp(x - x.amax(-1, keepdim=True))
        return e / e.sum(-1, keepdim=True)

    f32, f16 = torch.float32, torch.float16
    sig = torch.sigmoid
    return {
        "softmax": softmax,
        "softmax_f16": lambda x: softmax(x.to(f32)).to(f16),
        "layer_norm": ln,
        "layer_norm_f16": lambda x, g, b: ln(x.to(f32), g.to(f32), b.to(f32)).to(f16),
        "rms_norm": lambda x, g: x / torch.sqrt((x * x).mean(-1, keepdim=True) + 1e-6) * g,
        "gelu_bias": lambda x, b: (lambda h: 0.5 * h * (1 + torch.tanh(GELU_C * (h + 0.044715 * h * h * h))))(x + b),
        "swiglu": lambda g, u: g * sig(g) * u,
        "elementwise_chain": lambda x, y, s: sig(torch.relu(torch.abs(x * s + y) - x)),
        "residual_layer_norm": lambda x, r, g, b: (lambda h: (h, ln(h, g, b)))(x + r),
        "row_normalize": lambda x: (lambda p: p / p.sum(-1, keepdim=True))(torch.abs(x)),
        "cast_chain": lambda x: (lambda a: (sig(a).to(f16).to(f32) * a).to(f16))(x.to(f32)),
        "transpose_add": lambda x, y: x.t() + y,
        "concat_relu": lambda a, b: torch.relu(torch.cat([a, b], dim=1)),
        "rec_block": lambda x, e, w: x * sig((x * e).sum(-1, keepdim=True)) + e * w,
    }[name]


# ---------------------------------------------------------------- XLA


HLO_BYTES = {
    "pred": 1, "s8": 1, "u8": 1, "s16": 2, "u16": 2, "f16": 2, "bf16": 2,
    "s32": 4, "u32": 4, "f32": 4, "s64": 8, "u64": 8, "f64": 8,
}
NOT_KERNELS = {"parameter", "constant", "tuple", "get-tuple-element", "bitcast"}


def hlo_type_bytes(text):
    """Bytes of an HLO type such as f32[4096,1024]{1,0} or a tuple of them."""
    total = 0
    for dtype, dims in re.findall(r"\b([a-z]+[0-9]*)\[([0-9,]*)\]", text):
        if dtype not in HLO_BYTES:
            continue
        n = 1
        for d in filter(None, dims.split(",")):
            n *= int(d)
        total += n * HLO_BYTES[dtype]
    return total


def balanced(text, start):
    """Index just past the parenthesis group opening at text[start]."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return i + 1
    raise ValueError(f"unbalanced parentheses in: {text[:120]}")


def parse_instruction(line):
    """(name, type text, opcode, operand names) of one HLO instruction line."""
    line = line.strip()
    if line.startswith("ROOT "):
        line = line[5:]
    name, _, rest = line.partition(" = ")
    if rest.startswith("("):
        end = balanced(rest, 0)
    else:
        end = rest.index(" ")
    ty, rest = rest[:end], rest[end:].lstrip()
    paren = rest.index("(")
    opcode = rest[:paren]
    operands = rest[paren + 1 : balanced(rest, paren) - 1]
    names = re.findall(r"%([\w.\-]+)", operands)
    if not names and operands.strip():
        # Printers without the % sigil: the last word of every operand.
        names = [o.split()[-1] for o in operands.split(",") if o.strip()]
    return name.lstrip("%"), ty, opcode, names


def xla_entry_kernels(text):
    """The kernels of the entry computation of optimized HLO text, with their bytes."""
    lines = text.splitlines()
    try:
        start = next(i for i, l in enumerate(lines) if l.startswith("ENTRY "))
    except StopIteration:
        raise RuntimeError("no ENTRY computation in the optimized HLO")
    types, kernels = {}, []
    for line in lines[start + 1 :]:
        if line.startswith("}"):
            break
        if " = " not in line:
            continue
        iname, ty, opcode, operands = parse_instruction(line)
        types[iname] = ty
        if opcode in NOT_KERNELS:
            continue
        read = sum(hlo_type_bytes(types.get(o, "")) for o in dict.fromkeys(operands))
        written = hlo_type_bytes(ty)
        kernels.append({"name": iname, "op": opcode, "read": read, "written": written})
    return kernels


def xla_measure(name):
    import jax
    import jax.numpy as jnp

    args = [jnp.asarray(a) for a in make_inputs(name)]
    text = jax.jit(jax_fn(name)).lower(*args).compile().as_text()
    kernels = xla_entry_kernels(text)
    return {
        "kernels": len(kernels),
        "bytes": sum(k["read"] + k["written"] for k in kernels),
        "detail": kernels,
    }


# ---------------------------------------------------------------- Inductor


TORCH_BYTES = {
    "float32": 4, "float16": 2, "bfloat16": 2, "float64": 8, "int64": 8, "int32": 4,
    "int16": 2, "int8": 1, "uint8": 1, "bool": 1,
}


def view_bytes(shape, dtype):
    """Bytes of the elements a buffer or view holds (what a kernel touches through it)."""
    n = 1
    for d in shape:
        n *= d
    return n * TORCH_BYTES.get(dtype, 4)


def literal(node):
    try:
        return ast.literal_eval(node)
    except ValueError:
        return None


def inductor_wrapper_kernels(code, inputs):
    """Kernel calls of the wrapper's `call` and the bytes of the buffers they touch.

    `inputs` are (shape, dtype name) of the compiled function's arguments in order; the
    wrapper unpacks them with `argA, argB, ... = args`.
    """
    tree = ast.parse(code)
    kernel_names = set()
    for stmt in tree.body:
        # cpp_fused_x_0 = async_compile.cpp_pybinding([...], '''...''')
        if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call):
            f = stmt.value.func
            if isinstance(f, ast.Attribute) and f.attr.startswith("cpp"):
                kernel_names.update(t.id for t in stmt.targets if isinstance(t, ast.Name))
    call = next(
        (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "call"),
        None,
    )
    if call is None:
        raise RuntimeError("no call() in the Inductor wrapper")
    size = {}  # buffer name -> bytes

    def bytes_of(arg):
        if isinstance(arg, ast.Name):
            return arg.id, size.get(arg.id)
        if isinstance(arg, ast.Call) and isinstance(arg.func, ast.Name) and arg.func.id == "reinterpret_tensor":
            base = arg.args[0].id if isinstance(arg.args[0], ast.Name) else "?"
            shape = literal(arg.args[1])
            if shape is not None:
                return ast.unparse(arg), view_bytes(shape, dtype_of.get(base, "float32"))
        return None, None

    dtype_of = {}
    kernels = []
    for stmt in ast.walk(call):
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target, value = stmt.targets[0], stmt.value
            if isinstance(target, ast.Tuple) and isinstance(value, ast.Name) and value.id == "args":
                for t, (shape, dtype) in zip(target.elts, inputs):
                    size[t.id] = nbytes(shape, dtype)
                    dtype_of[t.id] = dtype
            elif isinstance(target, ast.Name) and isinstance(value, ast.Name):
                size[target.id] = size.get(value.id)  # bufX = bufY  # reuse
                dtype_of[target.id] = dtype_of.get(value.id, "float32")
            elif isinstance(target, ast.Name) and isinstance(value, ast.Call) and ast.unparse(value.func) == "reinterpret_tensor":
                # bufX = reinterpret_tensor(bufY, shape, stride, offset)  # alias
                _, size[target.id] = bytes_of(value)
                base = value.args[0]
                dtype_of[target.id] = dtype_of.get(base.id if isinstance(base, ast.Name) else "", "float32")
            elif (
                isinstance(target, ast.Name)
                and isinstance(value, ast.Call)
                and isinstance(value.func, ast.Name)
                and value.func.id.startswith("empty_strided")
            ):
                shape = literal(value.args[0])
                dtype = value.args[2].attr if isinstance(value.args[2], ast.Attribute) else "float32"
                dtype_of[target.id] = dtype
                if shape is not None:
                    size[target.id] = view_bytes(shape, dtype)
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            c = stmt.value
            fname = ast.unparse(c.func)
            is_kernel = (
                (isinstance(c.func, ast.Name) and c.func.id in kernel_names)
                or fname.startswith(("extern_kernels.", "aten.", "torch.ops."))
            )
            if not is_kernel:
                continue
            seen, total = set(), 0
            for a in list(c.args) + [k.value for k in c.keywords]:
                key, b = bytes_of(a)
                if key is None or key in seen:
                    continue
                seen.add(key)
                if b is None:
                    raise RuntimeError(f"unknown buffer size of {key} in {fname}")
                total += b
            kernels.append({"name": fname, "bytes": total})
    return kernels


def inductor_measure(name):
    import torch
    import torch._dynamo
    from torch._inductor.utils import run_and_get_code

    arrays = make_inputs(name)
    args = [torch.from_numpy(a) for a in arrays]
    torch._dynamo.reset()
    compiled = torch.compile(torch_fn(name), backend="inductor", dynamic=False)
    _, codes = run_and_get_code(compiled, *args)
    if len(codes) != 1:
        raise RuntimeError(f"{len(codes)} compiled graphs (graph breaks?)")
    inputs = [(a.shape, a.dtype.name) for a in arrays]
    kernels = inductor_wrapper_kernels(codes[0], inputs)
    return {
        "kernels": len(kernels),
        "bytes": sum(k["bytes"] for k in kernels),
        "detail": kernels,
    }


def self_check():
    """A single add of N floats must be 1 kernel moving 3 * N * 4 bytes in each peer that
    is installed (the counting rules above, checked where the answer is known)."""
    n = 1 << 20
    x = np.ones(n, np.float32)
    checked = []
    try:
        import torch
        import torch._dynamo
        from torch._inductor.utils import run_and_get_code
    except ImportError:
        torch = None
    if torch is not None:
        torch._dynamo.reset()
        compiled = torch.compile(lambda a, b: a + b, backend="inductor", dynamic=False)
        _, codes = run_and_get_code(compiled, torch.from_numpy(x), torch.from_numpy(x))
        ks = inductor_wrapper_kernels(codes[0], [(x.shape, "float32")] * 2)
        assert [k["bytes"] for k in ks] == [3 * n * 4], f"Inductor add: {ks}"
        checked.append("inductor")
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        jax = None
    if jax is not None:
        text = jax.jit(lambda a, b: a + b).lower(jnp.asarray(x), jnp.asarray(x)).compile().as_text()
        kernels = [k["read"] + k["written"] for k in xla_entry_kernels(text)]
        assert kernels == [3 * n * 4], f"XLA add: {kernels}"
        checked.append("xla")
    print(json.dumps({"self_check": "ok", "checked": checked, "add_bytes": 3 * n * 4}))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="subgraphs (default: all)")
    parser.add_argument("--self-check", action="store_true")
    args = parser.parse_args()
    if args.self_check:
        self_check()
        return
    names = args.names or list(SUBGRAPHS)
    unknown = [n for n in names if n not in SUBGRAPHS]
    if unknown:
        sys.exit(f"peers.py: unknown subgraph(s) {unknown}; known: {list(SUBGRAPHS)}")
    peers = {}
    for peer, module in (("xla", "jax"), ("inductor", "torch")):
        try:
            __import__(module)
            peers[peer] = None
        except Exception as e:  # an absent or broken install is reported per row
            peers[peer] = f"{module} not installable/importable: {e}"
    versions = {"python": sys.version.split()[0], "numpy": np.__version__}
    for module in ("jax", "jaxlib", "torch"):
        try:
            versions[module] = __import__(module).__version__
        except Exception:
            versions[module] = None
    print(json.dumps({"versions": versions}), flush=True)
    measure = {"xla": xla_measure, "inductor": inductor_measure}
    for name in names:
        ins, outs = SUBGRAPHS[name], OUTPUTS[name]
        row = {
            "name": name,
            "inputs": [[list(s), d] for s, d in ins],
            "min_bytes": sum(nbytes(s, d) for s, d in ins + outs),
        }
        for peer in ("xla", "inductor"):
            if peers[peer] is not None:
                row[peer] = {"error": peers[peer]}
                continue
            try:
                row[peer] = measure[peer](name)
            except Exception as e:
                traceback.print_exc(file=sys.stderr)
                row[peer] = {"error": f"{type(e).__name__}: {e}"}
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
