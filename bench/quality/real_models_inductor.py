#!/usr/bin/env python3
"""Kernels and GM bytes of PyTorch Inductor (torch.compile on CPU) on the tiny real models
of examples/onnx/real/ (BERT, GPT-2, LLaMA, Qwen2, GPT-NeoX, ViT, Whisper's encoder, T5's
encoder, BLOOM), at one static shape.

    .venv-models/bin/python bench/quality/real_models_inductor.py    # (scripts/make-real-models.sh makes the venv)
    .venv-models/bin/python bench/quality/real_models_inductor.py --only vit,bloom --merge

The models, configs, seeded weights and inputs are those of
examples/onnx/export_real_models.py (imported from there), at the middle (batch, seq) of
its SHAPES (the batch alone for the models whose sequence is fixed: ViT, Whisper). Each model is compiled with torch.compile(backend="inductor", dynamic=False)
under torch.no_grad() and run once; the Python wrapper Inductor generates
(torch._inductor.utils.run_and_get_code) is counted with peers.py's rules
(peers.inductor_wrapper_kernels): kernels are the calls the wrapper's `call` makes to
generated C++ kernels (cpp_fused_*), extern kernels (mm/addmm/bmm) and aten fallbacks;
bytes are the sizes of the distinct buffers passed to each call. The wrapper's arguments
(the model's parameters and buffers, lifted to graph inputs, and the token ids) are read,
in order, from the rand_strided lines of its get_args() (benchmark_compiled_module()
in older torch).

min_bytes is the graph inputs (parameters, buffers and model inputs as the wrapper takes
them) plus the output, each moved once. Writes bench/quality/real_models_inductor.json and
prints one line per model; with --merge, the models of the existing file that are not
measured again are kept as they were (each model's row records the versions it was
measured with when they differ from the file's).
"""

import argparse
import ast
import collections
import json
import sys
import time
import traceback
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "examples" / "onnx"))

import export_real_models as erm  # noqa: E402
import peers  # noqa: E402

OUT = HERE / "real_models_inductor.json"


def wrapper_args(code):
    """(name, shape, dtype) of the wrapper's call() arguments, in order, from the
    rand_strided lines the wrapper writes for benchmarking: in get_args() (returning the
    list) in current torch, in benchmark_compiled_module() (calling call([...])) before."""
    tree = ast.parse(code)
    funcs = {
        n.name: n for n in ast.walk(tree)
        if isinstance(n, ast.FunctionDef) and n.name in ("get_args", "benchmark_compiled_module")
    }
    if not funcs:
        raise RuntimeError("neither get_args nor benchmark_compiled_module in the Inductor wrapper")
    specs = {}
    order = None
    for func in funcs.values():
        for node in ast.walk(func):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                v = node.value
                if isinstance(v, ast.Call) and ast.unparse(v.func) == "rand_strided":
                    shape = ast.literal_eval(v.args[0])
                    dtype = next((k.value.attr for k in v.keywords if k.arg == "dtype"), "float32")
                    specs[node.targets[0].id] = (tuple(shape), dtype)
                elif isinstance(v, ast.Constant):  # a scalar argument (dynamic shapes only)
                    specs[node.targets[0].id] = ((), "int64")
            listed = None
            if isinstance(node, ast.Return) and isinstance(node.value, ast.List):
                listed = node.value
            elif isinstance(node, ast.Call) and ast.unparse(node.func) == "call" and node.args and isinstance(node.args[0], ast.List):
                listed = node.args[0]
            if listed is not None:
                order = [e.id for e in listed.elts if isinstance(e, ast.Name)]
    if order is None:
        raise RuntimeError("no argument list (get_args' return or call([...])) in the Inductor wrapper")
    return [(n, *specs[n]) for n in order]


# extern_kernels.convolution (ViT's patch embedding, Whisper's conv1d) returns its buffer too.
FALLBACK_PREFIXES = ("torch.ops.", "aten.", "extern_kernels.")


def fallbacks_as_out_calls(code):
    """The wrapper with every `bufN = torch.ops.aten.op(...)` (an aten fallback that
    returns a new buffer, e.g. cumsum in the packed-sequence mask of llama/gptneox)
    written as `bufN = empty_strided_cpu(shape, stride, dtype)` +
    `torch.ops.aten.op(..., out=bufN)`, the form peers.inductor_wrapper_kernels counts
    (it counts calls made as statements, so a fallback assigned to a buffer would be
    neither counted nor sized). Shape and dtype come from the
    assert_tensor_metadata(bufN, shape, stride, dtype, ...) line the wrapper writes after
    such a call. A fallback returning a tuple (the flash attention Inductor's pattern
    matcher puts in ViT's eager attention: `bufN = ...; bufM = bufN[0]`, metadata on bufM)
    is written with one output keyword per element the wrapper takes (out0=bufM, ...),
    each allocated from its metadata, and the `bufM = bufN[i]` lines dropped. Returns
    (code, names of the rewritten fallbacks)."""
    tree = ast.parse(code)
    call = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "call")
    meta = {}
    for node in ast.walk(call):
        if (
            isinstance(node, ast.Call)
            and ast.unparse(node.func) == "assert_tensor_metadata"
            and isinstance(node.args[0], ast.Name)
        ):
            meta[node.args[0].id] = node.args[1:4]
    # bufM = bufN[i]: the elements taken of a tuple-returning fallback, by tuple buffer.
    elements = collections.defaultdict(list)
    for node in ast.walk(call):
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, ast.Subscript)
            and isinstance(node.value.value, ast.Name)
            and isinstance(node.value.slice, ast.Constant)
        ):
            elements[node.value.value.id].append((node.value.slice.value, node.targets[0].id))
    taken = {name for pairs in elements.values() for _, name in pairs}
    rewritten = []

    def allocation(target):
        shape, stride, dtype = meta[target]
        return ast.parse(f"{target} = empty_strided_cpu({ast.unparse(shape)}, {ast.unparse(stride)}, {ast.unparse(dtype)})").body[0]

    def rewrite(body):
        out = []
        for stmt in body:
            for field in ("body", "orelse", "finalbody"):
                if isinstance(getattr(stmt, field, None), list):
                    setattr(stmt, field, rewrite(getattr(stmt, field)))
            if (
                isinstance(stmt, ast.Assign)
                and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], ast.Name)
                and isinstance(stmt.value, ast.Call)
                and ast.unparse(stmt.value.func).startswith(FALLBACK_PREFIXES)
            ):
                target = stmt.targets[0].id
                fname = ast.unparse(stmt.value.func)
                if target in meta:
                    outs = [("out", target)]
                elif elements.get(target) and all(name in meta for _, name in elements[target]):
                    outs = [(f"out{i}", name) for i, name in sorted(elements[target])]
                else:
                    raise RuntimeError(f"fallback {fname} -> {target} without assert_tensor_metadata")
                for keyword, name in outs:
                    stmt.value.keywords.append(ast.keyword(arg=keyword, value=ast.Name(id=name, ctx=ast.Load())))
                out += [allocation(name) for _, name in outs] + [ast.Expr(value=stmt.value)]
                rewritten.append(fname)
                continue
            if (
                isinstance(stmt, ast.Assign)
                and isinstance(stmt.value, ast.Subscript)
                and isinstance(stmt.targets[0], ast.Name)
                and stmt.targets[0].id in taken
            ):
                continue  # bufM = bufN[i], allocated before the fallback above
            out.append(stmt)
        return out

    call.body = rewrite(call.body)
    return ast.unparse(ast.fix_missing_locations(tree)), rewritten


def measure(name, batch, seq):
    import torch
    import torch._dynamo
    from torch._inductor.utils import run_and_get_code

    config, wrapper, input_names, output_name = erm.build(name)
    arrays = erm.make_inputs(name, batch, seq)
    args = [torch.from_numpy(arrays[n]) for n in input_names]
    torch._dynamo.reset()
    with torch.no_grad():
        expected = wrapper(*args)
        compiled = torch.compile(wrapper, backend="inductor", dynamic=False)
        start = time.perf_counter()
        out, codes = run_and_get_code(compiled, *args)
        seconds = time.perf_counter() - start
    err = float((out.double() - expected.double()).abs().max())
    graphs = []
    for code in codes:
        wargs = wrapper_args(code)
        counted, fallbacks = fallbacks_as_out_calls(code)
        kernels = peers.inductor_wrapper_kernels(counted, [(s, d) for _, s, d in wargs])
        kinds = collections.Counter(
            "cpp_fused" if k["name"].startswith("cpp_fused") else k["name"] for k in kernels
        )
        graphs.append({
            "wrapper_args": len(wargs),
            "wrapper_arg_bytes": sum(peers.nbytes(s, d) for _, s, d in wargs),
            "kernels": len(kernels),
            "bytes": sum(k["bytes"] for k in kernels),
            "kernel_kinds": dict(sorted(kinds.items())),
            "aten_fallbacks_returning_buffers": fallbacks,
            "detail": kernels,
        })
    out_bytes = out.numel() * out.element_size()
    params = sum(p.numel() * p.element_size() for p in wrapper.parameters())
    return {
        "model": name,
        "architecture": erm.MODELS[name][1],
        "batch": batch,
        "seq": erm.FIXED_SEQ.get(name, seq),
        "inputs": {n: {"shape": list(a.shape), "dtype": a.dtype.name} for n, a in arrays.items()},
        "output": {"name": output_name, "shape": list(out.shape), "dtype": str(out.dtype).replace("torch.", "")},
        "parameters": sum(p.numel() for p in wrapper.parameters()),
        "parameter_bytes": params,
        "compiled_graphs": len(codes),
        "kernels": sum(g["kernels"] for g in graphs),
        "bytes": sum(g["bytes"] for g in graphs),
        "min_bytes": sum(g["wrapper_arg_bytes"] for g in graphs) + out_bytes,
        "max_abs_err_vs_eager": err,
        "compile_and_run_seconds": round(seconds, 2),
        "graphs": graphs,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="comma-separated models (default: all)")
    parser.add_argument("--out", default=str(OUT))
    parser.add_argument("--merge", action="store_true",
                        help="keep the models of the existing --out file that are not measured again")
    args = parser.parse_args()
    import torch

    names = [n for n in args.only.split(",") if n] or list(erm.MODELS)
    batch, seq = erm.SHAPES[len(erm.SHAPES) // 2]
    peers.self_check()  # the counting rules, on a single add (prints one JSON line)
    doc = {
        "about": "PyTorch Inductor (torch.compile, CPU, dynamic=False, no_grad) on the tiny models of "
                 "examples/onnx/real/ at the static (batch, seq) below; kernels and GM bytes counted from "
                 "the generated wrapper with bench/quality/peers.py's rules. Written by "
                 "bench/quality/real_models_inductor.py.",
        "shape": {"batch": batch, "seq": seq},
        "versions": {
            "python": sys.version.split()[0],
            "torch": torch.__version__,
            "transformers": __import__("transformers").__version__,
            "numpy": np.__version__,
        },
        "models": {},
    }
    # With --merge: the rows of the existing file not measured again are kept. The file's
    # versions stay those of the kept rows; a new row records its own when they differ.
    row_versions = None
    if args.merge and Path(args.out).exists():
        old = json.loads(Path(args.out).read_text())
        if old.get("shape") != doc["shape"]:
            sys.exit(f"real_models_inductor: --merge: {args.out} is at shape {old.get('shape')}, not {doc['shape']}")
        if old["versions"] != doc["versions"]:
            row_versions, doc["versions"] = doc["versions"], old["versions"]
        doc["models"].update({n: row for n, row in old["models"].items() if n not in names})
    failed = []
    for name in names:
        try:
            row = measure(name, batch, seq)
        except Exception as e:
            traceback.print_exc(file=sys.stderr)
            row = {"model": name, "error": f"{type(e).__name__}: {e}"}
            failed.append(name)
        if row_versions is not None:
            row["versions"] = row_versions
        doc["models"][name] = row
        if "error" in row:
            print(f"real_models_inductor: {name}: FAILED: {row['error'][:300]}", flush=True)
        else:
            g0 = row["graphs"][0]["kernel_kinds"] if row["graphs"] else {}
            print(
                f"real_models_inductor: {name} b{batch}s{seq}: {row['kernels']} kernels, {row['bytes']} bytes "
                f"(min {row['min_bytes']}), {row['compiled_graphs']} graph(s), kinds {g0}, "
                f"max |err| vs eager {row['max_abs_err_vs_eager']:.1e}",
                flush=True,
            )
    Path(args.out).write_text(json.dumps(doc, indent=1) + "\n")
    print(f"real_models_inductor: wrote {args.out}")
    if failed:
        sys.exit(f"real_models_inductor: failed: {failed}")


if __name__ == "__main__":
    main()
