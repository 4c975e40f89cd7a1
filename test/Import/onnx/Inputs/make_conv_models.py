"""Writes the convolution and pooling test models of test/Import/onnx/conv.test and
onnxruntime's outputs for them at two shapes each (seeded).

- whisper_frontend.onnx: Whisper's audio front end in small: two Conv1d with GELU (the
  erf form torch exports), the second with stride 2, then a transpose to
  [batch, time, channels]; batch and time are dynamic.
- vit_patch.onnx: ViT's patch embedding: Conv2d with kernel == stride == patch, then
  flatten(2) (a Reshape whose target comes from Shape/Slice/Concat, as exporters write
  it), transpose(1, 2) and a LayerNormalization; batch, height and width are dynamic.
- conv_mix.onnx: grouped and dilated Conv2d with pads and a ReLU tail, MaxPool with
  pads and strides, AveragePool (count_include_pad) with ceil_mode, ConvTranspose with
  output_padding and groups, GlobalAveragePool, a 3-D Conv with auto_pad SAME_UPPER and
  a 1-D MaxPool with dilations; batch dynamic.
- conv_bad_channels.onnx, conv_bad_rank.onnx: a Conv whose weights take 4 channels
  (2 per group x 2 groups) for an input of 3, and a Conv1d with a 2-D kernel: import
  errors at the node.
- conv_same.onnx: auto_pad SAME_UPPER and SAME_LOWER with strides > 1 on a dynamic time
  dim (the pads become shape expressions): Conv, ConvTranspose and AveragePool.

No model carries value_info, and the graph outputs carry no shapes: the importer types
everything itself. Run with the project's venv: .venv/bin/python make_conv_models.py
"""

from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh

HERE = Path(__file__).resolve().parent
RNG = np.random.default_rng(39)


def weight(name, shape, scale=0.3):
    return nh.from_array((RNG.standard_normal(shape) * scale).astype(np.float32), name)


def i64(name, values):
    return nh.from_array(np.array(values, np.int64), name)


def gelu(n, x, y, tag):
    """GELU as torch exports it: 0.5 * x * (1 + erf(x / sqrt(2)))."""
    return [
        n("Div", [x, "sqrt2"], [f"{tag}_d"], name=f"{tag}_div"),
        n("Erf", [f"{tag}_d"], [f"{tag}_e"], name=f"{tag}_erf"),
        n("Add", [f"{tag}_e", "one"], [f"{tag}_a"], name=f"{tag}_add"),
        n("Mul", [x, f"{tag}_a"], [f"{tag}_m"], name=f"{tag}_mul"),
        n("Mul", [f"{tag}_m", "half"], [y], name=f"{tag}_half"),
    ]


def untyped_output(name):
    return h.make_tensor_value_info(name, T.FLOAT, None)


def whisper_frontend():
    n = h.make_node
    nodes = [
        n("Conv", ["x", "w1", "b1"], ["c1"], kernel_shape=[3], pads=[1, 1], name="conv1"),
        *gelu(n, "c1", "g1", "gelu1"),
        n("Conv", ["g1", "w2", "b2"], ["c2"], kernel_shape=[3], pads=[1, 1], strides=[2], name="conv2"),
        *gelu(n, "c2", "g2", "gelu2"),
        n("Transpose", ["g2"], ["y"], perm=[0, 2, 1], name="to_btc"),
    ]
    graph = h.make_graph(
        nodes,
        "whisper_frontend",
        [h.make_tensor_value_info("x", T.FLOAT, ["batch", 8, "time"])],
        [untyped_output("y")],
        [
            weight("w1", [16, 8, 3]),
            weight("b1", [16]),
            weight("w2", [16, 16, 3], 0.2),
            weight("b2", [16]),
            nh.from_array(np.array(np.sqrt(2.0), np.float32), "sqrt2"),
            nh.from_array(np.array(1.0, np.float32), "one"),
            nh.from_array(np.array(0.5, np.float32), "half"),
        ],
    )
    return h.make_model(graph, opset_imports=[h.make_opsetid("", 17)])


def vit_patch():
    n = h.make_node
    nodes = [
        n("Conv", ["x", "w", "b"], ["p"], kernel_shape=[4, 4], strides=[4, 4], name="patch_embed"),
        n("Shape", ["p"], ["s"], name="shape"),
        n("Slice", ["s", "zero1", "two1"], ["bc"], name="batch_channels"),
        n("Concat", ["bc", "minus1"], ["target"], axis=0, name="flatten_target"),
        n("Reshape", ["p", "target"], ["f"], name="flatten"),
        n("Transpose", ["f"], ["t"], perm=[0, 2, 1], name="to_tokens"),
        n("LayerNormalization", ["t", "gamma", "beta"], ["y"], axis=-1, epsilon=1e-5, name="norm"),
    ]
    graph = h.make_graph(
        nodes,
        "vit_patch",
        [h.make_tensor_value_info("x", T.FLOAT, ["batch", 3, "height", "width"])],
        [untyped_output("y")],
        [
            weight("w", [8, 3, 4, 4], 0.2),
            weight("b", [8]),
            i64("zero1", [0]),
            i64("two1", [2]),
            i64("minus1", [-1]),
            nh.from_array((1 + 0.1 * RNG.standard_normal(8)).astype(np.float32), "gamma"),
            weight("beta", [8], 0.1),
        ],
    )
    return h.make_model(graph, opset_imports=[h.make_opsetid("", 17)])


def conv_mix():
    n = h.make_node
    nodes = [
        # [B, 4, 9, 10] -> grouped, dilated, padded conv -> [B, 6, 9, 9]
        n("Conv", ["x", "wg", "bg"], ["c"], group=2, dilations=[2, 1], pads=[2, 1, 2, 0], name="grouped"),
        n("Relu", ["c"], ["r"], name="relu"),
        n("MaxPool", ["r"], ["mp"], kernel_shape=[3, 2], strides=[2, 2], pads=[1, 0, 1, 1], name="maxpool"),
        n("AveragePool", ["r"], ["ap"], kernel_shape=[2, 3], strides=[2, 2], pads=[0, 1, 0, 1],
          count_include_pad=1, ceil_mode=1, name="avgpool"),
        n("ConvTranspose", ["mp", "wt", "bt"], ["ct"], group=2, strides=[2, 2], output_padding=[1, 0],
          pads=[1, 0, 0, 1], name="deconv"),
        n("Sigmoid", ["ct"], ["y0"], name="sigmoid"),
        n("Add", ["ap", "one"], ["y1"], name="add_one"),
        n("GlobalAveragePool", ["r"], ["y2"], name="gap"),
        n("Conv", ["v", "w3"], ["c3"], auto_pad="SAME_UPPER", strides=[1, 2, 2], name="conv3d"),
        n("Tanh", ["c3"], ["y3"], name="tanh"),
        n("MaxPool", ["a"], ["y4"], kernel_shape=[3], dilations=[2], strides=[1], name="dilated_pool"),
    ]
    graph = h.make_graph(
        nodes,
        "conv_mix",
        [
            h.make_tensor_value_info("x", T.FLOAT, ["batch", 4, 9, 10]),
            h.make_tensor_value_info("v", T.FLOAT, ["batch", 2, 3, 5, 6]),
            h.make_tensor_value_info("a", T.FLOAT, ["batch", 3, 11]),
        ],
        [untyped_output(f"y{i}") for i in range(5)],
        [
            weight("wg", [6, 2, 3, 2]),
            weight("bg", [6]),
            weight("wt", [6, 2, 2, 3]),
            weight("bt", [4]),
            weight("w3", [3, 2, 2, 3, 3]),
            nh.from_array(np.array(1.0, np.float32), "one"),
        ],
    )
    return h.make_model(graph, opset_imports=[h.make_opsetid("", 19)])


def conv_same():
    n = h.make_node
    nodes = [
        n("Conv", ["x", "w1"], ["c1"], auto_pad="SAME_UPPER", strides=[2], name="same_upper"),
        n("Conv", ["x", "w2"], ["c2"], auto_pad="SAME_LOWER", strides=[3], name="same_lower"),
        n("ConvTranspose", ["x", "wt"], ["ct"], auto_pad="SAME_UPPER", strides=[2], name="deconv_same"),
        n("AveragePool", ["x"], ["ap"], auto_pad="SAME_LOWER", kernel_shape=[3], strides=[2], name="pool_same"),
        n("Relu", ["c1"], ["y0"], name="relu"),
        n("Neg", ["c2"], ["y1"], name="neg"),
        n("Abs", ["ct"], ["y2"], name="abs"),
        n("Exp", ["ap"], ["y3"], name="exp"),
    ]
    graph = h.make_graph(
        nodes,
        "conv_same",
        [h.make_tensor_value_info("x", T.FLOAT, [1, 2, "time"])],
        [untyped_output(f"y{i}") for i in range(4)],
        [weight("w1", [3, 2, 3]), weight("w2", [2, 2, 4]), weight("wt", [2, 3, 3])],
    )
    return h.make_model(graph, opset_imports=[h.make_opsetid("", 19)])


def conv_bad(w_shape, group):
    n = h.make_node
    graph = h.make_graph(
        [n("Conv", ["x", "w"], ["y"], group=group, name="bad_conv")],
        "conv_bad",
        [h.make_tensor_value_info("x", T.FLOAT, ["batch", 3, "time"])],
        [untyped_output("y")],
        [weight("w", w_shape)],
    )
    return h.make_model(graph, opset_imports=[h.make_opsetid("", 17)])


def save_reference(model, name, dims_by_run):
    """onnxruntime's outputs of `model` for each run's symbol values, next to its inputs."""
    import onnxruntime as ort

    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(7)
    for tag, symbols in dims_by_run:
        feeds = {}
        for inp in session.get_inputs():
            dims = [symbols[d] if isinstance(d, str) else d for d in inp.shape]
            feeds[inp.name] = rng.standard_normal(dims).astype(np.float32)
        for i, inp in enumerate(session.get_inputs()):
            np.save(HERE / f"{name}.{tag}.input{i}.npy", feeds[inp.name])
        for i, out in enumerate(session.run(None, feeds)):
            np.save(HERE / f"{name}.{tag}.output{i}.npy", out)


def save(model, name, runs):
    # No value_info at all: the importer must type every node.
    del model.graph.value_info[:]
    onnx.save(model, HERE / f"{name}.onnx")
    save_reference(model, name, runs)


def main():
    save(whisper_frontend(), "whisper_frontend", [("b1t12", {"batch": 1, "time": 12}), ("b2t7", {"batch": 2, "time": 7})])
    save(vit_patch(), "vit_patch", [("b1h8w12", {"batch": 1, "height": 8, "width": 12}),
                                    ("b2h16w8", {"batch": 2, "height": 16, "width": 8})])
    save(conv_mix(), "conv_mix", [("b1", {"batch": 1}), ("b2", {"batch": 2})])
    onnx.save(conv_bad([2, 2, 3], 2), HERE / "conv_bad_channels.onnx")
    onnx.save(conv_bad([2, 3, 3, 3], 1), HERE / "conv_bad_rank.onnx")
    save(conv_same(), "conv_same", [("t7", {"time": 7}), ("t12", {"time": 12})])
    for path in sorted(HERE.glob("*")):
        if path.name.startswith(("whisper_frontend", "vit_patch", "conv_mix", "conv_same", "conv_bad")):
            print(f"{path.name}: {path.stat().st_size} bytes")


if __name__ == "__main__":
    main()
