#!/usr/bin/env python3
"""Writes the small ONNX models of the importer's lit tests (committed next to this
script, so the tests do not need Python):

    .venv/bin/python test/Import/onnx/Inputs/make_inputs.py
"""

from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh

HERE = Path(__file__).resolve().parent


def save(model: onnx.ModelProto, name: str, check: bool = True) -> None:
    if check:
        onnx.checker.check_model(model)
    onnx.save(model, HERE / name)


def basic() -> onnx.ModelProto:
    nodes = [
        h.make_node("Add", ["x", "w"], ["a"], name="add_w"),
        h.make_node("Sigmoid", ["a"], ["s"], name="gate"),
        h.make_node("Mul", ["a", "s"], ["m"], name="silu"),
        h.make_node("ReduceSum", ["m", "axes"], ["y"], keepdims=0, name="sum_rows"),
    ]
    graph = h.make_graph(
        nodes,
        "basic",
        [h.make_tensor_value_info("x", T.FLOAT, ["batch", 4])],
        [h.make_tensor_value_info("y", T.FLOAT, ["batch"])],
        [nh.from_array(np.array([0.5, -1, 2, 0], np.float32), "w"), nh.from_array(np.array([1], np.int64), "axes")],
    )
    return h.make_model(graph, opset_imports=[h.make_opsetid("", 18)])


def families() -> onnx.ModelProto:
    n = h.make_node
    nodes = [
        n("Greater", ["x", "zero"], ["pos"], name="pos"),
        n("Where", ["pos", "x", "zero"], ["relu"], name="where"),
        n("Clip", ["x", "lo", "hi"], ["clipped"], name="clip"),
        n("Cast", ["ids"], ["ids32"], to=T.INT32, name="cast_ids"),
        n("Gather", ["table", "ids32"], ["emb"], axis=0, name="lookup"),
        n("Softmax", ["x"], ["sm"], axis=1, name="softmax"),
        n("LayerNormalization", ["x", "gamma", "beta"], ["ln"], axis=-1, epsilon=1e-5, name="ln"),
        n("Gelu", ["ln"], ["gelu"], approximate="tanh", name="gelu"),
        n("Transpose", ["x"], ["xt"], perm=[1, 0], name="transpose"),
        n("Concat", ["relu", "clipped", "sm"], ["cat"], axis=1, name="concat3"),
        n("Split", ["cat", "splits"], ["p0", "p1"], axis=1, name="split"),
        n("Slice", ["p1", "starts", "ends", "axes1", "steps"], ["sl"], name="slice"),
        n("Flatten", ["emb"], ["flat"], axis=1, name="flatten"),
        n("Unsqueeze", ["gelu", "axes0"], ["un"], name="unsqueeze"),
        n("Squeeze", ["un", "axes0"], ["sq"], name="squeeze"),
        n("Expand", ["bias", "shape"], ["bexp"], name="expand"),
        n("MatMul", ["sq", "xt"], ["mm"], name="matmul"),
        n("Gemm", ["sq", "w", "bias"], ["gemm"], alpha=0.5, transB=1, name="gemm"),
        n("Add", ["gemm", "bexp"], ["out"], name="add"),
    ]
    f = lambda name, v: nh.from_array(np.array(v, np.float32), name)
    i = lambda name, v: nh.from_array(np.array(v, np.int64), name)
    inits = [
        f("zero", 0.0), f("lo", -1.0), f("hi", 1.0),
        f("gamma", np.ones(4)), f("beta", np.zeros(4)),
        f("table", np.arange(12).reshape(6, 2)),
        f("w", np.ones((3, 4))), f("bias", [1, 2, 3]),
        i("splits", [4, 8]), i("starts", [1]), i("ends", [100]), i("axes1", [1]), i("steps", [2]),
        i("axes0", [0]), i("shape", [2, 3]),
    ]
    graph = h.make_graph(
        nodes,
        "families",
        [h.make_tensor_value_info("x", T.FLOAT, [2, 4]), h.make_tensor_value_info("ids", T.INT64, [2, 3])],
        [
            h.make_tensor_value_info("out", T.FLOAT, [2, 3]),
            h.make_tensor_value_info("mm", T.FLOAT, [2, 2]),
            h.make_tensor_value_info("sl", T.FLOAT, [2, 4]),
            h.make_tensor_value_info("p0", T.FLOAT, [2, 4]),
            h.make_tensor_value_info("flat", T.FLOAT, [2, 6]),
        ],
        inits,
    )
    return h.make_model(graph, opset_imports=[h.make_opsetid("", 20)])


def unsupported(typed: bool) -> onnx.ModelProto:
    nodes = [
        h.make_node("Relu", ["x"], ["r"], name="relu"),
        h.make_node("TopK", ["r", "k"], ["values", "indices"], axis=-1, name="top2"),
        h.make_node("Neg", ["values"], ["y"], name="neg"),
        h.make_node("Erf", ["r"], ["e"], name="erf"),
        h.make_node("Hardmax", ["e"], ["hm"], name="hardmax"),
    ]
    graph = h.make_graph(
        nodes,
        "unsupported",
        [h.make_tensor_value_info("x", T.FLOAT, ["n", 8])],
        [
            h.make_tensor_value_info("y", T.FLOAT, None),
            h.make_tensor_value_info("indices", T.INT64, None),
            h.make_tensor_value_info("hm", T.FLOAT, None),
        ],
        [nh.from_array(np.array([2], np.int64), "k")],
    )
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", 17)])
    return onnx.shape_inference.infer_shapes(model) if typed else model


def dangling() -> onnx.ModelProto:
    graph = h.make_graph(
        [h.make_node("Add", ["x", "nope"], ["y"], name="add_nope")],
        "dangling",
        [h.make_tensor_value_info("x", T.FLOAT, [2])],
        [h.make_tensor_value_info("y", T.FLOAT, [2])],
    )
    return h.make_model(graph, opset_imports=[h.make_opsetid("", 17)])


def bad_type(code: int) -> onnx.ModelProto:
    graph = h.make_graph(
        [h.make_node("Neg", ["x"], ["y"], name="neg")],
        "bad_type",
        [h.make_tensor_value_info("x", T.FLOAT, [2])],
        [h.make_tensor_value_info("y", T.FLOAT, [2])],
    )
    graph.input[0].type.tensor_type.elem_type = code
    return h.make_model(graph, opset_imports=[h.make_opsetid("", 17)])


def sequence_input() -> onnx.ModelProto:
    seq = h.make_tensor_sequence_value_info("xs", T.FLOAT, [2])
    graph = h.make_graph(
        [h.make_node("SequenceLength", ["xs"], ["y"], name="len")],
        "sequence_input",
        [seq],
        [h.make_tensor_value_info("y", T.INT64, [])],
    )
    return h.make_model(graph, opset_imports=[h.make_opsetid("", 17)])


def external(location: str) -> onnx.ModelProto:
    weights = nh.from_array(np.arange(8, dtype=np.float32).reshape(2, 4), "weights")
    weights.ClearField("raw_data")
    weights.data_location = T.EXTERNAL
    for key, value in (("location", location), ("offset", "16"), ("length", "32")):
        entry = weights.external_data.add()
        entry.key, entry.value = key, value
    graph = h.make_graph(
        [h.make_node("Mul", ["x", "weights"], ["y"], name="scale")],
        "external",
        [h.make_tensor_value_info("x", T.FLOAT, ["rows", 4])],
        [h.make_tensor_value_info("y", T.FLOAT, [2, 4])],
        [weights],
    )
    return h.make_model(graph, opset_imports=[h.make_opsetid("", 17)])


def weights_model(location=None, length=8192) -> onnx.ModelProto:
    """y = (x + w) * 0.5 with a 4x512 f32 weight (2048 elements: kept by reference) stored
    in the model (raw_data) or, with `location`, at byte 64 of an external file."""
    w = nh.from_array(weights_values(), "w")
    if location is not None:
        w.ClearField("raw_data")
        w.data_location = T.EXTERNAL
        for key, value in (("location", location), ("offset", "64"), ("length", str(length))):
            entry = w.external_data.add()
            entry.key, entry.value = key, value
    graph = h.make_graph(
        [h.make_node("Add", ["x", "w"], ["s"], name="add_w"), h.make_node("Mul", ["s", "half"], ["y"], name="halve")],
        "weights",
        [h.make_tensor_value_info("x", T.FLOAT, ["batch", 4, 512])],
        [h.make_tensor_value_info("y", T.FLOAT, ["batch", 4, 512])],
        [w, nh.from_array(np.array(0.5, np.float32), "half")],
    )
    return h.make_model(graph, opset_imports=[h.make_opsetid("", 17)])


def weights_values() -> np.ndarray:
    return (np.arange(2048, dtype=np.float32).reshape(4, 512) - 1000) / 8


def write_weights_models() -> None:
    save(weights_model(), "weights.onnx")
    (HERE / "weights_external.bin").write_bytes(b"\xee" * 64 + weights_values().tobytes())
    save(weights_model("weights_external.bin"), "weights_external.onnx", check=False)
    # The file ends 4096 bytes early: the weight's bytes 64..8256 are not all there.
    (HERE / "weights_truncated.bin").write_bytes(b"\xee" * 64 + weights_values().tobytes()[:4096])
    save(weights_model("weights_truncated.bin"), "weights_truncated.onnx", check=False)
    save(weights_model("weights_external.bin", length=4096), "weights_wrong_length.onnx", check=False)
    x = np.random.default_rng(7).standard_normal((2, 4, 512), dtype=np.float32)
    np.save(HERE / "weights.x.npy", x)
    np.save(HERE / "weights.y.npy", ((x + weights_values()) * np.float32(0.5)).astype(np.float32))


def i64(name: str, values) -> onnx.TensorProto:
    return nh.from_array(np.array(values, np.int64), name)


def exporter_reshape() -> onnx.ModelProto:
    """The head split of an attention block as torch.onnx.export writes it with
    dynamic batch and sequence: the target shape is computed from Shape(x)."""
    n = h.make_node
    nodes = [
        n("Shape", ["x"], ["shape"], name="shape"),
        n("Gather", ["shape", "zero"], ["batch"], axis=0, name="gather_batch"),
        n("Gather", ["shape", "one"], ["seq"], axis=0, name="gather_seq"),
        n("Unsqueeze", ["batch", "axes0"], ["batch_1"], name="unsqueeze_batch"),
        n("Unsqueeze", ["seq", "axes0"], ["seq_1"], name="unsqueeze_seq"),
        n("Concat", ["batch_1", "seq_1", "heads"], ["target"], axis=0, name="concat_target"),
        n("Reshape", ["x", "target"], ["y"], name="split_heads"),
    ]
    graph = h.make_graph(
        nodes,
        "exporter_reshape",
        [h.make_tensor_value_info("x", T.FLOAT, ["batch", "seq", 32])],
        [h.make_tensor_value_info("y", T.FLOAT, None)],
        [
            nh.from_array(np.array(0, np.int64), "zero"),
            nh.from_array(np.array(1, np.int64), "one"),
            i64("axes0", [0]),
            i64("heads", [4, 8]),
        ],
    )
    return h.make_model(graph, opset_imports=[h.make_opsetid("", 17)])


def shape_values() -> onnx.ModelProto:
    """Every shape-value op of the importer feeding every shape consumer, with no
    value_info: the importer infers all types itself."""
    n = h.make_node
    nodes = [
        n("Shape", ["x"], ["s"], name="shape"),
        n("Size", ["x"], ["size"], name="size"),
        n("Gather", ["s", "zero"], ["b"], axis=0, name="gather_b"),
        n("Gather", ["s", "one"], ["q"], axis=0, name="gather_q"),
        n("Unsqueeze", ["b", "axes0"], ["b1"], name="unsqueeze_b"),
        n("Unsqueeze", ["q", "axes0"], ["q1"], name="unsqueeze_q"),
        n("Squeeze", ["q1", "axes0"], ["q0"], name="squeeze_q"),
        # Reshape to [batch*seq, -1] through Slice + ReduceProd + Concat.
        n("Slice", ["s", "zero1", "two1"], ["s01"], name="slice_shape"),
        n("ReduceProd", ["s01"], ["bq"], keepdims=1, name="reduce_prod"),
        n("Concat", ["bq", "minus1"], ["flat_shape"], axis=0, name="concat_flat"),
        n("Reshape", ["x", "flat_shape"], ["flat"], name="flatten_rows"),
        # Slice x[:, 1:seq] with the end from the shape.
        n("Slice", ["x", "one1", "q1", "one1"], ["tail"], name="slice_tail"),
        # Expand as TorchScript writes it: Where(Equal(shape, -1), ones, shape).
        n("Concat", ["b1", "q1", "eight"], ["bqe"], axis=0, name="concat_bqe"),
        n("Shape", ["bqe"], ["bqe_len"], name="shape_of_shape"),
        n("ConstantOfShape", ["bqe_len"], ["ones_i"], value=nh.from_array(np.array([1], np.int64)), name="ones_i"),
        n("Mul", ["ones_i", "minus1"], ["minus_ones"], name="mul_minus"),
        n("Equal", ["bqe", "minus_ones"], ["is_minus"], name="equal_minus"),
        n("Not", ["is_minus"], ["not_minus"], name="not_minus"),
        n("Where", ["not_minus", "bqe", "ones_i"], ["expand_shape"], name="where_shape"),
        n("Expand", ["bias", "expand_shape"], ["bias_x"], name="expand_bias"),
        n("Add", ["x", "bias_x"], ["biased"], name="add_bias"),
        # ConstantOfShape of a symbolic shape, added to the mask.
        n("Concat", ["b1", "q1"], ["bq_shape"], axis=0, name="concat_bq"),
        n("ConstantOfShape", ["bq_shape"], ["ones"], value=nh.from_array(np.array([1.0], np.float32)), name="ones"),
        n("Cast", ["mask"], ["mask_f"], to=T.FLOAT, name="cast_mask"),
        n("Add", ["ones", "mask_f"], ["mask_plus"], name="add_mask"),
        # Range over seq, scaled by arithmetic on shape values.
        n("Range", ["zero", "q0", "one"], ["pos"], name="range_pos"),
        n("Cast", ["pos"], ["pos_f"], to=T.FLOAT, name="cast_pos"),
        n("Mod", ["size", "three"], ["size_mod"], name="mod_size"),
        n("Div", ["size", "eight0"], ["bq_div"], name="div_size"),
        n("Sub", ["bq_div", "b"], ["bq_minus_b"], name="sub_b"),
        n("Max", ["bq_minus_b", "one"], ["at_least_1"], name="max_1"),
        n("Min", ["at_least_1", "q"], ["clamped"], name="min_q"),
        n("Add", ["size_mod", "clamped"], ["offset"], name="add_offset"),
        n("Cast", ["offset"], ["offset_f"], to=T.FLOAT, name="cast_offset"),
        n("Add", ["pos_f", "offset_f"], ["pos_shift"], name="add_pos"),
        # Tile with a symbolic repeat, and a ReduceSum of shape values as a Range limit.
        n("Concat", ["b1", "one1"], ["reps"], axis=0, name="concat_reps"),
        n("Tile", ["row", "reps"], ["tiled"], name="tile_rows"),
        n("ReduceSum", ["s01"], ["b_plus_q"], keepdims=0, name="reduce_sum"),
        n("Range", ["zero", "b_plus_q", "one"], ["count"], name="range_count"),
        # Split of the dynamic seq dim into two halves (opset 18 num_outputs).
        n("Split", ["x"], ["first", "second"], axis=1, num_outputs=2, name="split_seq"),
        # A causal mask of the scores by Trilu.
        n("Transpose", ["x"], ["xt"], perm=[0, 2, 1], name="transpose_x"),
        n("MatMul", ["x", "xt"], ["scores"], name="scores"),
        n("Trilu", ["scores"], ["causal"], upper=0, name="causal"),
    ]
    outputs = ["flat", "tail", "biased", "mask_plus", "pos_shift", "tiled", "count", "first", "second", "causal"]
    graph = h.make_graph(
        nodes,
        "shape_values",
        [
            h.make_tensor_value_info("x", T.FLOAT, ["batch", "seq", 8]),
            h.make_tensor_value_info("mask", T.INT64, ["batch", "seq"]),
        ],
        [h.make_tensor_value_info(o, T.INT64 if o == "count" else T.FLOAT, None) for o in outputs],
        [
            nh.from_array(np.array(0, np.int64), "zero"),
            nh.from_array(np.array(1, np.int64), "one"),
            nh.from_array(np.array(3, np.int64), "three"),
            nh.from_array(np.array(8, np.int64), "eight0"),
            i64("axes0", [0]),
            i64("zero1", [0]),
            i64("one1", [1]),
            i64("two1", [2]),
            i64("minus1", [-1]),
            i64("eight", [8]),
            nh.from_array(np.linspace(-1, 1, 8).astype(np.float32), "bias"),
            nh.from_array(np.arange(3, dtype=np.float32).reshape(1, 3), "row"),
        ],
    )
    return h.make_model(graph, opset_imports=[h.make_opsetid("", 18)])


def shape_mismatch() -> onnx.ModelProto:
    """A Reshape whose computed target can never hold the input's elements."""
    n = h.make_node
    nodes = [
        n("Shape", ["x"], ["s"], name="shape"),
        n("Gather", ["s", "zero"], ["b"], axis=0, name="gather_b"),
        n("Unsqueeze", ["b", "axes0"], ["b1"], name="unsqueeze_b"),
        n("Concat", ["b1", "four"], ["target"], axis=0, name="concat_target"),
        n("Reshape", ["x", "target"], ["y"], name="bad_reshape"),
    ]
    graph = h.make_graph(
        nodes,
        "shape_mismatch",
        [h.make_tensor_value_info("x", T.FLOAT, ["batch", 6])],
        [h.make_tensor_value_info("y", T.FLOAT, None)],
        [nh.from_array(np.array(0, np.int64), "zero"), i64("axes0", [0]), i64("four", [4])],
    )
    return h.make_model(graph, opset_imports=[h.make_opsetid("", 17)])


def shape_guard() -> onnx.ModelProto:
    """A Reshape of x [batch, seq, 8] to [batch, len, 8] with len from another input:
    equal element counts hold only if seq == len, a guard."""
    n = h.make_node
    nodes = [
        n("Shape", ["x"], ["sx"], name="shape_x"),
        n("Shape", ["ids"], ["sid"], name="shape_ids"),
        n("Slice", ["sx", "zero1", "one1"], ["b1"], name="slice_b"),
        n("Slice", ["sid", "one1", "two1"], ["len1"], name="slice_len"),
        n("Concat", ["b1", "len1", "eight"], ["target"], axis=0, name="concat_target"),
        n("Reshape", ["x", "target"], ["xr"], name="reshape_to_ids"),
        n("Cast", ["ids"], ["ids_f"], to=T.FLOAT, name="cast_ids"),
        n("Unsqueeze", ["ids_f", "minus1"], ["ids_u"], name="unsqueeze_ids"),
        n("Add", ["xr", "ids_u"], ["y"], name="add_ids"),
    ]
    graph = h.make_graph(
        nodes,
        "shape_guard",
        [
            h.make_tensor_value_info("x", T.FLOAT, ["batch", "seq", 8]),
            h.make_tensor_value_info("ids", T.INT64, ["batch", "len"]),
        ],
        [h.make_tensor_value_info("y", T.FLOAT, None)],
        [i64("zero1", [0]), i64("one1", [1]), i64("two1", [2]), i64("eight", [8]), i64("minus1", [-1])],
    )
    return h.make_model(graph, opset_imports=[h.make_opsetid("", 17)])


def pad_symbolic() -> onnx.ModelProto:
    """Pad with pads computed from the shape (the end of axis 1 grows by batch) in
    constant mode, then reflect and edge pads of the static axis."""
    n = h.make_node
    nodes = [
        n("Shape", ["x"], ["s"], name="shape"),
        n("Slice", ["s", "zero1", "one1"], ["b1"], name="slice_b"),
        n("Concat", ["front", "b1", "two1"], ["pads"], axis=0, name="concat_pads"),
        n("Pad", ["x", "pads", "half"], ["padded"], mode="constant", name="pad_constant"),
        n("Pad", ["padded", "side"], ["reflected"], mode="reflect", name="pad_reflect"),
        n("Pad", ["reflected", "side"], ["edged"], mode="edge", name="pad_edge"),
    ]
    graph = h.make_graph(
        nodes,
        "pad_symbolic",
        [h.make_tensor_value_info("x", T.FLOAT, ["batch", "seq", 4])],
        [h.make_tensor_value_info("edged", T.FLOAT, None)],
        [
            i64("zero1", [0]),
            i64("one1", [1]),
            i64("two1", [2]),
            i64("front", [0, 1, 0, 0]),
            i64("side", [0, 0, 2, 0, 0, 1]),
            nh.from_array(np.array(0.5, np.float32), "half"),
        ],
    )
    return h.make_model(graph, opset_imports=[h.make_opsetid("", 18)])


def save_reference(model: onnx.ModelProto, name: str, shapes) -> None:
    """onnxruntime's outputs of `model` for each (batch, seq), next to its inputs."""
    import onnxruntime as ort

    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(7)
    for batch, seq in shapes:
        feeds = {}
        for inp in session.get_inputs():
            dims = [batch if d == "batch" else seq if d in ("seq", "len") else d for d in inp.shape]
            if inp.type == "tensor(int64)":
                feeds[inp.name] = rng.integers(0, 2, dims).astype(np.int64)
            else:
                feeds[inp.name] = rng.standard_normal(dims).astype(np.float32)
        tag = f"b{batch}s{seq}"
        for i, inp in enumerate(session.get_inputs()):
            np.save(HERE / f"{name}.{tag}.input{i}.npy", feeds[inp.name])
        for i, out in enumerate(session.run(None, feeds)):
            np.save(HERE / f"{name}.{tag}.output{i}.npy", out)


def main() -> None:
    save(exporter_reshape(), "exporter_reshape.onnx", check=False)
    save(shape_values(), "shape_values.onnx", check=False)
    save_reference(shape_values(), "shape_values", [(2, 5), (1, 1), (3, 4)])
    save(shape_mismatch(), "shape_mismatch.onnx", check=False)
    save(shape_guard(), "shape_guard.onnx", check=False)
    save_reference(shape_guard(), "shape_guard", [(2, 3)])
    save(pad_symbolic(), "pad_symbolic.onnx", check=False)
    save_reference(pad_symbolic(), "pad_symbolic", [(2, 3), (1, 5)])
    save(basic(), "basic.onnx")
    save(families(), "families.onnx")
    np.save(HERE / "families.x.npy", (np.arange(8, dtype=np.float32).reshape(2, 4) - 3) / 2)
    np.save(HERE / "families.ids.npy", np.arange(6, dtype=np.int64).reshape(2, 3))
    save(unsupported(True), "unsupported.onnx")
    save(unsupported(False), "unsupported_untyped.onnx", check=False)
    save(dangling(), "dangling.onnx", check=False)
    save(bad_type(99), "unknown_type.onnx", check=False)
    save(bad_type(T.DOUBLE), "double_input.onnx")
    save(sequence_input(), "sequence_input.onnx")
    # 16 bytes of padding, then the 32 bytes of the 2x4 f32 weights.
    (HERE / "external.bin").write_bytes(b"\xee" * 16 + np.arange(8, dtype=np.float32).tobytes())
    save(external("external.bin"), "external.onnx", check=False)
    save(external("missing.bin"), "external_missing.onnx", check=False)
    save(external("../external.bin"), "external_escape.onnx", check=False)
    write_weights_models()
    for path in sorted([*HERE.glob("*.onnx"), *HERE.glob("*.npy")]):
        print(f"{path.name}: {path.stat().st_size} bytes")


if __name__ == "__main__":
    main()
