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


def main() -> None:
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
    for path in sorted([*HERE.glob("*.onnx"), *HERE.glob("*.npy")]):
        print(f"{path.name}: {path.stat().st_size} bytes")


if __name__ == "__main__":
    main()
