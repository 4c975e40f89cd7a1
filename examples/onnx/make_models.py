#!/usr/bin/env python3
"""Builds the real-model ONNX examples with the onnx helper API, and their test data.

    .venv/bin/python examples/onnx/make_models.py      # (scripts/onnx-conformance.sh makes .venv)

Writes, next to this script:
- transformer_encoder.onnx: one post-LN transformer encoder layer (d_model 32, 4 heads,
  FFN 64) on x[batch, seq, 32]: Q/K/V projections (MatMul + Add), heads split by
  Reshape/Transpose, scaled dot-product attention (MatMul, Mul, Softmax, MatMul), output
  projection, residual Add, LayerNormalization, a Gelu MLP (opset 20), residual Add,
  LayerNormalization. The matmuls are boundary ops; the rest fuses.
- dlrm_interaction.onnx: the interaction block of a DLRM-style recommendation model:
  dense features through a bottom MLP (Gemm, Relu), three categorical features looked
  up in embedding tables (Split, Squeeze, Gather), feature stacking (Unsqueeze, Concat),
  pairwise dot products (MatMul with a transposed copy), a ReduceSum/ReduceMean/ReduceMax
  summary, elementwise gating (Sigmoid, Mul, Where on Greater) and the top layer (MatMul,
  Add, Sigmoid).
- <model>.input<N>.npy / <model>.output<N>.npy: seeded inputs (batch 2, seq 5) and the
  outputs of onnx's reference evaluator, which the tests compare the compiler against.

The `batch` and `seq` dims are named (`dim_param`), so they stay symbols in the IR.
"""

from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

HERE = Path(__file__).resolve().parent
RNG = np.random.default_rng(7)


def weight(name: str, *shape: int, scale: float = 0.2) -> onnx.TensorProto:
    return numpy_helper.from_array((RNG.standard_normal(shape) * scale).astype(np.float32), name)


def ints(name: str, values) -> onnx.TensorProto:
    return numpy_helper.from_array(np.array(values, dtype=np.int64), name)


def transformer_encoder() -> onnx.ModelProto:
    d, heads, hd, ffn = 32, 4, 8, 64
    inits = [
        weight("Wq", d, d), weight("bq", d), weight("Wk", d, d), weight("bk", d),
        weight("Wv", d, d), weight("bv", d), weight("Wo", d, d), weight("bo", d),
        weight("W1", d, ffn), weight("b1", ffn), weight("W2", ffn, d), weight("b2", d),
        numpy_helper.from_array(np.ones(d, np.float32), "ln1_scale"),
        numpy_helper.from_array(np.zeros(d, np.float32), "ln1_bias"),
        numpy_helper.from_array((1 + RNG.standard_normal(d) * 0.1).astype(np.float32), "ln2_scale"),
        numpy_helper.from_array((RNG.standard_normal(d) * 0.1).astype(np.float32), "ln2_bias"),
        ints("heads_shape", [0, 0, heads, hd]),
        ints("merge_shape", [0, 0, d]),
        numpy_helper.from_array(np.array(1 / np.sqrt(hd), np.float32), "scale"),
    ]
    n = helper.make_node
    nodes = []
    for p in "qkv":
        nodes += [
            n("MatMul", ["x", f"W{p}"], [f"{p}_mm"], name=f"attn/{p}_proj"),
            n("Add", [f"{p}_mm", f"b{p}"], [f"{p}_b"], name=f"attn/{p}_bias"),
            n("Reshape", [f"{p}_b", "heads_shape"], [f"{p}_h"], name=f"attn/{p}_split_heads"),
        ]
    nodes += [
        n("Transpose", ["q_h"], ["q_t"], perm=[0, 2, 1, 3], name="attn/q_transpose"),
        n("Transpose", ["k_h"], ["k_t"], perm=[0, 2, 3, 1], name="attn/k_transpose"),
        n("Transpose", ["v_h"], ["v_t"], perm=[0, 2, 1, 3], name="attn/v_transpose"),
        n("MatMul", ["q_t", "k_t"], ["scores"], name="attn/scores"),
        n("Mul", ["scores", "scale"], ["scaled"], name="attn/scale"),
        n("Softmax", ["scaled"], ["probs"], axis=-1, name="attn/softmax"),
        n("MatMul", ["probs", "v_t"], ["ctx"], name="attn/context"),
        n("Transpose", ["ctx"], ["ctx_t"], perm=[0, 2, 1, 3], name="attn/merge_transpose"),
        n("Reshape", ["ctx_t", "merge_shape"], ["ctx_m"], name="attn/merge_heads"),
        n("MatMul", ["ctx_m", "Wo"], ["o_mm"], name="attn/out_proj"),
        n("Add", ["o_mm", "bo"], ["o_b"], name="attn/out_bias"),
        n("Add", ["o_b", "x"], ["res1"], name="attn/residual"),
        n("LayerNormalization", ["res1", "ln1_scale", "ln1_bias"], ["ln1"], axis=-1, epsilon=1e-5, name="ln1"),
        n("MatMul", ["ln1", "W1"], ["f1_mm"], name="ffn/up"),
        n("Add", ["f1_mm", "b1"], ["f1_b"], name="ffn/up_bias"),
        n("Gelu", ["f1_b"], ["f1_g"], name="ffn/gelu"),
        n("MatMul", ["f1_g", "W2"], ["f2_mm"], name="ffn/down"),
        n("Add", ["f2_mm", "b2"], ["f2_b"], name="ffn/down_bias"),
        n("Add", ["f2_b", "ln1"], ["res2"], name="ffn/residual"),
        n("LayerNormalization", ["res2", "ln2_scale", "ln2_bias"], ["y"], axis=-1, epsilon=1e-5, name="ln2"),
    ]
    graph = helper.make_graph(
        nodes,
        "transformer_encoder",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq", d])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", "seq", d])],
        inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)], producer_name="autofuse-examples")


def dlrm_interaction() -> onnx.ModelProto:
    dense_in, emb, vocab, tables = 13, 16, 50, 3
    inits = [weight("bot_W", dense_in, emb), weight("bot_b", emb)]
    inits += [weight(f"emb{i}", vocab, emb, scale=0.5) for i in range(tables)]
    inits += [
        weight("top_W", emb + (tables + 1) * (tables + 1) + 3, 1),
        weight("top_b", 1),
        ints("split_sizes", [1] * tables),
        ints("axis1", [1]),
        ints("axis_last", [-1]),
        ints("flat_shape", [0, -1]),
        numpy_helper.from_array(np.array(0.0, np.float32), "zero"),
        numpy_helper.from_array(np.array(0.1, np.float32), "leak"),
    ]
    n = helper.make_node
    nodes = [
        n("Gemm", ["dense", "bot_W", "bot_b"], ["bot"], name="bottom_mlp"),
        n("Relu", ["bot"], ["bot_r"], name="bottom_relu"),
        n("Split", ["ids", "split_sizes"], [f"id{i}" for i in range(tables)], axis=1, name="split_ids"),
    ]
    stacked = ["bot_u"]
    nodes.append(n("Unsqueeze", ["bot_r", "axis1"], ["bot_u"], name="stack_dense"))
    for i in range(tables):
        nodes += [
            n("Squeeze", [f"id{i}", "axis1"], [f"id{i}_s"], name=f"ids{i}_squeeze"),
            n("Gather", [f"emb{i}", f"id{i}_s"], [f"e{i}"], axis=0, name=f"embedding{i}"),
            n("Unsqueeze", [f"e{i}", "axis1"], [f"e{i}_u"], name=f"stack_emb{i}"),
        ]
        stacked.append(f"e{i}_u")
    nodes += [
        n("Concat", stacked, ["Z"], axis=1, name="stack"),
        n("Transpose", ["Z"], ["Zt"], perm=[0, 2, 1], name="interaction_transpose"),
        n("MatMul", ["Z", "Zt"], ["dots"], name="interaction_dots"),
        n("Reshape", ["dots", "flat_shape"], ["dots_flat"], name="interaction_flatten"),
        n("ReduceSum", ["Z", "axis_last"], ["z_sum"], keepdims=0, name="summary_sum"),
        n("ReduceMean", ["z_sum", "axis1"], ["z_mean"], keepdims=1, name="summary_mean"),
        n("ReduceMax", ["z_sum", "axis1"], ["z_max"], keepdims=1, name="summary_max"),
        n("Sub", ["z_max", "z_mean"], ["z_spread"], name="summary_spread"),
        n("Sigmoid", ["bot_r"], ["gate"], name="gate"),
        n("Mul", ["bot_r", "gate"], ["gated"], name="gated"),
        n("Greater", ["gated", "zero"], ["positive"], name="positive"),
        n("Mul", ["gated", "leak"], ["leaked"], name="leaked"),
        n("Where", ["positive", "gated", "leaked"], ["act"], name="leaky_gate"),
        n("Concat", ["act", "dots_flat", "z_mean", "z_max", "z_spread"], ["features"], axis=1, name="features"),
        n("MatMul", ["features", "top_W"], ["top_mm"], name="top_mlp"),
        n("Add", ["top_mm", "top_b"], ["logit"], name="top_bias"),
        n("Sigmoid", ["logit"], ["ctr"], name="ctr"),
    ]
    graph = helper.make_graph(
        nodes,
        "dlrm_interaction",
        [
            helper.make_tensor_value_info("dense", TensorProto.FLOAT, ["batch", dense_in]),
            helper.make_tensor_value_info("ids", TensorProto.INT64, ["batch", tables]),
        ],
        [helper.make_tensor_value_info("ctr", TensorProto.FLOAT, ["batch", 1])],
        inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)], producer_name="autofuse-examples")


def main() -> None:
    models = {
        "transformer_encoder": (transformer_encoder(), lambda: [RNG.standard_normal((2, 5, 32)).astype(np.float32)]),
        "dlrm_interaction": (
            dlrm_interaction(),
            lambda: [RNG.standard_normal((2, 13)).astype(np.float32), RNG.integers(0, 50, (2, 3)).astype(np.int64)],
        ),
    }
    for name, (model, make_inputs) in models.items():
        onnx.checker.check_model(model, full_check=True)
        model.ir_version = min(model.ir_version, 10)
        path = HERE / f"{name}.onnx"
        onnx.save(model, path)
        inputs = make_inputs()
        feeds = {vi.name: v for vi, v in zip(model.graph.input, inputs)}
        outputs = ReferenceEvaluator(model).run(None, feeds)
        for i, v in enumerate(inputs):
            np.save(HERE / f"{name}.input{i}.npy", v)
        for i, v in enumerate(outputs):
            np.save(HERE / f"{name}.output{i}.npy", v)
        print(f"wrote {path.name} ({path.stat().st_size} bytes), {len(inputs)} inputs, {len(outputs)} outputs")


if __name__ == "__main__":
    main()
