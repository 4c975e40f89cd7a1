#!/usr/bin/env python3
"""Writes a LLaMA-architecture decoder at any width as ONNX with its weights as external
data, and optionally onnxruntime's outputs as the independent reference.

The graph is the pattern of the committed dynamo exports (examples/onnx/real/llama.*):
token embedding, per layer RMSNorm, Q/K/V projections, rotary embeddings on halves,
grouped-query attention (K/V heads repeated), a causal mask, softmax, the output
projection, a SwiGLU MLP and residuals; a final RMSNorm and the LM head. Batch and
sequence are dynamic (`batch`, `seq`); the positions come from a Shape/Gather/Range
subgraph as exporters write them.

Weights are seeded (numpy's PCG64) and never committed: they go to `<out>.data` next to
the model. `--sparse` writes no weight bytes at all (the data file is extended to its
size, a hole that costs no disk): for compile-only benchmarks of 7B-shaped models.

    python scripts/make_real_size_model.py --hidden 2048 --out target/real-size/llama_h2048.onnx \\
        --reference 1x128

`--reference BxS` (repeatable) writes `<stem>.bBsS.input_ids.npy` and
`<stem>.bBsS.output0.npy` (onnxruntime, CPU, all graph optimizations off).
"""

import argparse
import os
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h


class Weights:
    """External-data initializers laid out one after another in one file."""

    def __init__(self, path: Path, rng: np.random.Generator, sparse: bool, dtype):
        self.path, self.rng, self.sparse, self.dtype = path, rng, sparse, dtype
        self.offset = 0
        self.file = open(path, "wb")
        self.tensors = []

    def add(self, name: str, shape, scale: float, fill=None) -> str:
        np_dtype = np.float16 if self.dtype == T.FLOAT16 else np.float32
        count = int(np.prod(shape))
        nbytes = count * np.dtype(np_dtype).itemsize
        if not self.sparse:
            if fill is not None:
                data = np.full(shape, fill, dtype=np_dtype)
            else:
                data = (self.rng.standard_normal(shape, dtype=np.float32) * scale).astype(np_dtype)
            self.file.seek(self.offset)
            self.file.write(data.tobytes())
        t = T()
        t.name = name
        t.data_type = self.dtype
        t.dims.extend(shape)
        t.data_location = T.EXTERNAL
        for k, v in (("location", self.path.name), ("offset", str(self.offset)), ("length", str(nbytes))):
            e = t.external_data.add()
            e.key, e.value = k, v
        self.tensors.append(t)
        # 64-byte alignment, as onnx's own external-data writer does for large tensors.
        self.offset += (nbytes + 63) // 64 * 64
        return name

    def close(self):
        self.file.truncate(self.offset)
        self.file.close()


def build(args) -> onnx.ModelProto:
    hidden, heads, kv_heads = args.hidden, args.heads, args.kv_heads
    head_dim = hidden // heads
    half = head_dim // 2
    rep = heads // kv_heads
    out = Path(args.out)
    dtype = T.FLOAT16 if args.dtype == "f16" else T.FLOAT
    rng = np.random.default_rng(args.seed)
    w = Weights(out.with_name(out.name + ".data"), rng, args.sparse, dtype)
    nodes, inits = [], []
    n = lambda op, ins, outs, **kw: nodes.append(h.make_node(op, ins, outs, name=outs[0], **kw)) or outs[0]

    def ints(name, values):
        inits.append(h.make_tensor(name, T.INT64, [len(values)], values))
        return name

    def scalar(name, value, elem=dtype):
        inits.append(h.make_tensor(name, elem, [], [value]))
        return name

    def norm(x, prefix):
        gamma = w.add(f"{prefix}.weight", [hidden], 0.0, fill=1.0)
        sq = n("Mul", [x, x], [f"{prefix}.sq"])
        mean = n("ReduceMean", [sq, "axes_last"], [f"{prefix}.mean"], keepdims=1)
        var = n("Add", [mean, "eps"], [f"{prefix}.var"])
        rstd = n("Reciprocal", [n("Sqrt", [var], [f"{prefix}.std"])], [f"{prefix}.rstd"])
        return n("Mul", [n("Mul", [x, rstd], [f"{prefix}.normed"]), gamma], [f"{prefix}.out"])

    def linear(x, name, fan_in, fan_out):
        weight = w.add(f"{name}.weight", [fan_in, fan_out], 1.0 / np.sqrt(fan_in))
        return n("MatMul", [x, weight], [f"{name}.out"])

    def heads_first(x, count, name):
        r = n("Reshape", [x, ints(f"{name}.shape", [0, 0, count, head_dim])], [f"{name}.split"])
        return n("Transpose", [r], [f"{name}.t"], perm=[0, 2, 1, 3])

    def rotary(x, name):
        x1 = n("Slice", [x, "zero1", "half1", "axes_last"], [f"{name}.x1"])
        x2 = n("Slice", [x, "half1", "hd1", "axes_last"], [f"{name}.x2"])
        rot = n("Concat", [n("Neg", [x2], [f"{name}.neg"]), x1], [f"{name}.rot"], axis=-1)
        return n("Add", [n("Mul", [x, "cos"], [f"{name}.c"]), n("Mul", [rot, "sin"], [f"{name}.s"])], [f"{name}.out"])

    scalar("eps", 1e-5)
    scalar("scale", 1.0 / np.sqrt(head_dim))
    scalar("neg_big", -1e9)
    ints("axes_last", [-1])
    ints("zero1", [0])
    ints("half1", [half])
    ints("hd1", [head_dim])
    ints("one1", [1])
    inits.append(h.make_tensor("i0", T.INT64, [], [0]))
    inits.append(h.make_tensor("i1", T.INT64, [], [1]))

    # Positions from the input's shape, as exporters write them.
    shape = n("Shape", ["input_ids"], ["ids_shape"])
    seq = n("Gather", [shape, "i1"], ["seq_len"], axis=0)
    pos = n("Range", ["i0", seq, "i1"], ["positions"])
    # Rotary tables for positions up to max_pos, gathered by position.
    inv = 1.0 / (10000 ** (np.arange(0, half, dtype=np.float64) / half))
    angles = np.outer(np.arange(args.max_pos, dtype=np.float64), inv)
    table = np.concatenate([angles, angles], axis=1)
    np_dtype = np.float16 if dtype == T.FLOAT16 else np.float32
    for name, f in (("cos_table", np.cos), ("sin_table", np.sin)):
        inits.append(onnx.numpy_helper.from_array(f(table).astype(np_dtype), name))
    for name in ("cos", "sin"):
        g = n("Gather", [f"{name}_table", pos], [f"{name}_rows"], axis=0)
        n("Unsqueeze", [g, ints(f"{name}_axes", [0, 1])], [name])
    # Causal mask: key position > query position is masked.
    rows = n("Unsqueeze", [pos, "one1"], ["pos_rows"])
    n("Greater", [pos, rows], ["future"])

    x = n("Gather", [w.add("embed_tokens.weight", [args.vocab, hidden], 1.0), "input_ids"], ["embedded"], axis=0)
    for layer in range(args.layers):
        p = f"layers.{layer}"
        hn = norm(x, f"{p}.input_layernorm")
        q = rotary(heads_first(linear(hn, f"{p}.q_proj", hidden, hidden), heads, f"{p}.q"), f"{p}.q_rot")
        k = rotary(heads_first(linear(hn, f"{p}.k_proj", hidden, kv_heads * head_dim), kv_heads, f"{p}.k"), f"{p}.k_rot")
        v = heads_first(linear(hn, f"{p}.v_proj", hidden, kv_heads * head_dim), kv_heads, f"{p}.v")
        if rep > 1:
            def repeat(t, name):
                u = n("Unsqueeze", [t, ints(f"{name}.axes", [2])], [f"{name}.u"])
                e = n("Expand", [u, ints(f"{name}.rep", [1, 1, rep, 1, 1])], [f"{name}.e"])
                return n("Reshape", [e, ints(f"{name}.shape", [0, heads, -1, head_dim])], [f"{name}.r"])

            k, v = repeat(k, f"{p}.k_rep"), repeat(v, f"{p}.v_rep")
        kt = n("Transpose", [k], [f"{p}.kt"], perm=[0, 1, 3, 2])
        scores = n("Mul", [n("MatMul", [q, kt], [f"{p}.qk"]), "scale"], [f"{p}.scores"])
        masked = n("Where", ["future", "neg_big", scores], [f"{p}.masked"])
        probs = n("Softmax", [masked], [f"{p}.probs"], axis=-1)
        ctx = n("Transpose", [n("MatMul", [probs, v], [f"{p}.ctx"])], [f"{p}.ctx_t"], perm=[0, 2, 1, 3])
        merged = n("Reshape", [ctx, ints(f"{p}.merge", [0, 0, hidden])], [f"{p}.merged"])
        x = n("Add", [x, linear(merged, f"{p}.o_proj", hidden, hidden)], [f"{p}.attn_res"])
        hn = norm(x, f"{p}.post_attention_layernorm")
        gate = linear(hn, f"{p}.gate_proj", hidden, args.intermediate)
        up = linear(hn, f"{p}.up_proj", hidden, args.intermediate)
        silu = n("Mul", [gate, n("Sigmoid", [gate], [f"{p}.sig"])], [f"{p}.silu"])
        x = n("Add", [x, linear(n("Mul", [silu, up], [f"{p}.gated"]), f"{p}.down_proj", args.intermediate, hidden)], [f"{p}.mlp_res"])
    x = norm(x, "norm")
    logits = linear(x, "lm_head", hidden, args.vocab)
    nodes.append(h.make_node("Identity", [logits], ["logits"], name="logits"))
    w.close()

    graph = h.make_graph(
        nodes,
        f"llama_h{hidden}_l{args.layers}",
        [h.make_tensor_value_info("input_ids", T.INT64, ["batch", "seq"])],
        [h.make_tensor_value_info("logits", dtype, ["batch", "seq", args.vocab])],
        inits + w.tensors,
    )
    return h.make_model(graph, opset_imports=[h.make_opsetid("", 18)], ir_version=9)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hidden", type=int, default=2048)
    ap.add_argument("--layers", type=int, default=1)
    ap.add_argument("--heads", type=int, default=0, help="default: hidden / 128 (at least 2)")
    ap.add_argument("--kv-heads", type=int, default=0, help="default: heads / 4 (at least 1)")
    ap.add_argument("--intermediate", type=int, default=0, help="default: 2.75 x hidden, a multiple of 256")
    ap.add_argument("--vocab", type=int, default=512)
    ap.add_argument("--max-pos", type=int, default=512)
    ap.add_argument("--dtype", choices=["f32", "f16"], default="f32")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--sparse", action="store_true", help="write no weight bytes (compile-only models)")
    ap.add_argument("--reference", action="append", default=[], metavar="BxS")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    args.heads = args.heads or max(2, args.hidden // 128)
    args.kv_heads = args.kv_heads or max(1, args.heads // 4)
    args.intermediate = args.intermediate or max(256, round(args.hidden * 2.75 / 256) * 256)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    model = build(args)
    onnx.save(model, args.out)
    size = os.path.getsize(args.out + ".data")
    print(f"{args.out}: hidden {args.hidden}, {args.layers} layer(s), {args.heads} heads, "
          f"{args.kv_heads} kv heads, intermediate {args.intermediate}, vocab {args.vocab}: "
          f"{size / 2**20:.1f} MiB of weights{' (sparse)' if args.sparse else ''}")
    if args.reference and args.sparse:
        raise SystemExit("--reference needs real weights (not --sparse)")
    if args.reference:
        import onnxruntime as ort

        so = ort.SessionOptions()
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        sess = ort.InferenceSession(args.out, so, providers=["CPUExecutionProvider"])
        stem = args.out[: -len(".onnx")] if args.out.endswith(".onnx") else args.out
        rng = np.random.default_rng(args.seed + 1)
        for spec in args.reference:
            b, s = (int(v) for v in spec.lower().split("x"))
            ids = rng.integers(0, args.vocab, size=(b, s), dtype=np.int64)
            (logits,) = sess.run(None, {"input_ids": ids})
            np.save(f"{stem}.b{b}s{s}.input_ids.npy", ids)
            np.save(f"{stem}.b{b}s{s}.output0.npy", logits)
            print(f"{stem}.b{b}s{s}: reference logits {logits.shape}")


if __name__ == "__main__":
    main()
