"""Writes the models of test/Import/onnx/gather-int64-constant.test into OUT_DIR with
onnxruntime's outputs at two (batch, seq) shapes (seeded inputs).

gather_int64_constant.onnx: BLOOM's fused-QKV split, three Gathers along axis 3 of
[batch, seq, heads, 3, head_dim] by 0-d int64 constant indices (0, 1 and -1), combined
as q * k + v; and a Gather along the last axis by a 1-D int64 constant [5, 0, 3],
through a ReLU. Exporters write such indices as int64 initializers.

    python make_gather_int64_models.py OUT_DIR
"""

import sys
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh


def model() -> onnx.ModelProto:
    qkv = h.make_tensor_value_info("qkv", T.FLOAT, ["batch", "seq", 4, 3, 8])
    wide = h.make_tensor_value_info("wide", T.FLOAT, ["batch", "seq", 6])
    outputs = [h.make_tensor_value_info("attn", T.FLOAT, ["batch", "seq", 4, 8]), h.make_tensor_value_info("picked", T.FLOAT, ["batch", "seq", 3])]
    constants = [
        nh.from_array(np.array(0, np.int64), "q_index"),
        nh.from_array(np.array(1, np.int64), "k_index"),
        nh.from_array(np.array(-1, np.int64), "v_index"),
        nh.from_array(np.array([5, 0, 3], np.int64), "columns"),
    ]
    nodes = [
        h.make_node("Gather", ["qkv", "q_index"], ["q"], axis=3),
        h.make_node("Gather", ["qkv", "k_index"], ["k"], axis=3),
        h.make_node("Gather", ["qkv", "v_index"], ["v"], axis=3),
        h.make_node("Mul", ["q", "k"], ["qk"]),
        h.make_node("Add", ["qk", "v"], ["attn"]),
        h.make_node("Gather", ["wide", "columns"], ["cols"], axis=2),
        h.make_node("Relu", ["cols"], ["picked"]),
    ]
    graph = h.make_graph(nodes, "fused_qkv_split", [qkv, wide], outputs, initializer=constants)
    return h.make_model(graph, opset_imports=[h.make_opsetid("", 17)])


def main() -> None:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    m = model()
    onnx.checker.check_model(m, full_check=True)
    path = out / "gather_int64_constant.onnx"
    onnx.save(m, path)
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(40)
    for batch, seq in [(1, 5), (2, 33)]:
        feeds = {
            "qkv": rng.standard_normal((batch, seq, 4, 3, 8)).astype(np.float32),
            "wide": rng.standard_normal((batch, seq, 6)).astype(np.float32),
        }
        tag = f"b{batch}s{seq}"
        for name, value in feeds.items():
            np.save(out / f"{tag}.{name}.npy", value)
        for i, value in enumerate(session.run(None, feeds)):
            np.save(out / f"{tag}.output{i}.npy", value)
    print(f"wrote {path.name} and its outputs at 2 shapes")


if __name__ == "__main__":
    main()
