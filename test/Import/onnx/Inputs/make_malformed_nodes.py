"""Writes structurally malformed ONNX models (import-onnx-malformed-nodes.test).

Each model is valid protobuf with a node whose operands break the operator's contract
in a way a converter could index past (empty tensors, missing inputs, truncated lists).
Usage: make_malformed_nodes.py <out dir>
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh

out = sys.argv[1]
os.makedirs(out, exist_ok=True)


def save(name, nodes, inits, outputs, inputs=()):
    g = h.make_graph(nodes, name, list(inputs), outputs, inits)
    m = h.make_model(g, opset_imports=[h.make_opsetid("", 21)])
    onnx.save(m, os.path.join(out, name + ".onnx"))


def i64(name, value):
    return nh.from_array(np.array(value, np.int64), name)


y_i64 = [h.make_tensor_value_info("y", T.INT64, [None])]

# Range with an empty start, limit or delta (start used to panic: index out of bounds).
for empty in ["start", "limit", "delta"]:
    values = {"start": 0, "limit": 5, "delta": 1}
    inits = [
        nh.from_array(np.zeros([0], np.int64), k) if k == empty else i64(k, v)
        for k, v in values.items()
    ]
    save(
        f"range_empty_{empty}",
        [h.make_node("Range", ["start", "limit", "delta"], ["y"], name="range0")],
        inits,
        y_i64,
    )

# Range with a non-finite float delta.
save(
    "range_inf_delta",
    [h.make_node("Range", ["start", "limit", "delta"], ["y"], name="range_inf")],
    [
        nh.from_array(np.array(0, np.float32), "start"),
        nh.from_array(np.array(5, np.float32), "limit"),
        nh.from_array(np.array(np.inf, np.float32), "delta"),
    ],
    [h.make_tensor_value_info("y", T.FLOAT, [None])],
)

# Range with two operands instead of three.
save(
    "range_two_inputs",
    [h.make_node("Range", ["start", "limit"], ["y"], name="range_short")],
    [i64("start", 0), i64("limit", 5)],
    y_i64,
)

# OneHot whose values hold one element instead of (off, on).
save(
    "onehot_one_value",
    [h.make_node("OneHot", ["ids", "depth", "values"], ["y"], name="onehot0")],
    [i64("ids", [0, 2]), i64("depth", 3), nh.from_array(np.array([1.0], np.float32), "values")],
    [h.make_tensor_value_info("y", T.FLOAT, [2, 3])],
)

# An Add whose inputs were removed.
save(
    "add_no_inputs",
    [h.make_node("Add", [], ["y"], name="add0")],
    [],
    [h.make_tensor_value_info("y", T.FLOAT, [2])],
)

# ConstantOfShape of 2^40 elements: imported as one element broadcast to the shape
# (it used to be materialized: the importer ran out of memory).
save(
    "constant_of_shape_2p40",
    [h.make_node("ConstantOfShape", ["shape"], ["y"], name="fill0")],
    [i64("shape", [1 << 40])],
    [h.make_tensor_value_info("y", T.FLOAT, [1 << 40])],
)
