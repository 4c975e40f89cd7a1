"""Writes the models of the loop-invariant-operand GM tests
(test/Target/ascendc/{decomposed-matmul,layer-norm}-gm-bytes.test) into OUT_DIR, with
seeded inputs and onnxruntime's outputs at two (batch, seq) shapes.

decomposed_matmul.onnx: a projection of the real models' size, x [batch, seq, 32] times a
  [32, 64] weight plus a bias, through a ReLU; k <= 32 and n <= 64, so `--decompose` makes
  it vector code (Mul and ReduceSum) whose weight every block loads once.
layer_norm.onnx: LayerNormalization over the last axis of x [batch, seq, 32] with its
  gamma and beta (BERT's and GPT-2's), which every block loads once.

    python make_resident_gm_models.py OUT_DIR [MODEL_NAME]   (both without a name)
"""

import sys
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh

HIDDEN, INNER = 32, 64
SHAPES = [(2, 16), (3, 33)]


def decomposed_matmul() -> onnx.ModelProto:
    rng = np.random.default_rng(5)
    inputs = [h.make_tensor_value_info("x", T.FLOAT, ["batch", "seq", HIDDEN])]
    output = h.make_tensor_value_info("y", T.FLOAT, ["batch", "seq", INNER])
    constants = [
        nh.from_array(rng.standard_normal((HIDDEN, INNER)).astype(np.float32), "weight"),
        nh.from_array(rng.standard_normal((INNER,)).astype(np.float32), "bias"),
    ]
    nodes = [
        h.make_node("MatMul", ["x", "weight"], ["product"]),
        h.make_node("Add", ["product", "bias"], ["biased"]),
        h.make_node("Relu", ["biased"], ["y"]),
    ]
    graph = h.make_graph(nodes, "decomposed_matmul", inputs, [output], initializer=constants)
    return h.make_model(graph, opset_imports=[h.make_opsetid("", 17)])


def layer_norm() -> onnx.ModelProto:
    rng = np.random.default_rng(6)
    inputs = [h.make_tensor_value_info("x", T.FLOAT, ["batch", "seq", HIDDEN])]
    output = h.make_tensor_value_info("y", T.FLOAT, ["batch", "seq", HIDDEN])
    constants = [
        nh.from_array(rng.standard_normal((HIDDEN,)).astype(np.float32), "gamma"),
        nh.from_array(rng.standard_normal((HIDDEN,)).astype(np.float32), "beta"),
    ]
    nodes = [h.make_node("LayerNormalization", ["x", "gamma", "beta"], ["y"], axis=-1, epsilon=1e-5)]
    graph = h.make_graph(nodes, "layer_norm", inputs, [output], initializer=constants)
    return h.make_model(graph, opset_imports=[h.make_opsetid("", 17)])


def main() -> None:
    out = Path(sys.argv[1])
    only = sys.argv[2] if len(sys.argv) > 2 else None
    out.mkdir(parents=True, exist_ok=True)
    for model in [decomposed_matmul(), layer_norm()]:
        onnx.checker.check_model(model, full_check=True)
        name = model.graph.name
        if only is not None and name != only:
            continue
        rng = np.random.default_rng(39)
        path = out / f"{name}.onnx"
        onnx.save(model, path)
        session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        for batch, seq in SHAPES:
            x = rng.standard_normal((batch, seq, HIDDEN)).astype(np.float32)
            tag = f"{name}.b{batch}s{seq}"
            np.save(out / f"{tag}.x.npy", x)
            for i, value in enumerate(session.run(None, {"x": x})):
                np.save(out / f"{tag}.output{i}.npy", value)
        print(f"wrote {path.name} and its outputs at {len(SHAPES)} shapes")


if __name__ == "__main__":
    main()
