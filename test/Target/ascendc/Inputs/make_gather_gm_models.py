"""Writes the models of the gather GM-traffic tests (test/Target/ascendc/gather-*-gm-bytes.test)
into OUT_DIR, with seeded inputs and onnxruntime's outputs at two (batch, seq) shapes.

embedding_two_gathers.onnx: OPT's and RoBERTa's embedding: token ids pick rows of a
  [128, 32] word table, positions computed from the attention mask (CumSum(mask) * mask
  + 1) pick rows of a [66, 32] position table, and the two are added.
gather_elements_last_axis.onnx: DeBERTa-v2's disentangled attention,
  torch.gather(c2p_att, dim=-1, index=c2p_pos): c2p_att [batch, 4, seq, 16] and the index
  c2p_pos [batch, 4, seq, seq] (int64, fed as clamp(q - k + 8, 0, 15) over the sequence);
  the picked scores are added to the content scores [batch, 4, seq, seq].
gather_nd_rows.onnx: GatherND with batch_dims=1 of [batch, seq, 1] token ids into a
  [batch, 128, 32] table, through a ReLU.

    python make_gather_gm_models.py OUT_DIR [MODEL_NAME]   (all three without a name)
"""

import sys
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh

VOCAB, HIDDEN, POSITIONS, HEADS, SPAN = 128, 32, 66, 4, 8
# Per model two (batch, seq) shapes: one where the tables are read from GM today and
# one where a block would copy them whole into UB (before the byte rule of the tiling).
SHAPES = {
    "embedding_two_gathers": [(2, 16), (3, 33)],
    "gather_elements_last_axis": [(1, 7), (2, 16)],
    "gather_nd_rows": [(2, 16), (5, 64)],
}


def embedding() -> onnx.ModelProto:
    rng = np.random.default_rng(7)
    inputs = [
        h.make_tensor_value_info("input_ids", T.INT64, ["batch", "seq"]),
        h.make_tensor_value_info("attention_mask", T.INT64, ["batch", "seq"]),
    ]
    output = h.make_tensor_value_info("embeddings", T.FLOAT, ["batch", "seq", HIDDEN])
    constants = [
        nh.from_array(rng.standard_normal((VOCAB, HIDDEN)).astype(np.float32), "words"),
        nh.from_array(rng.standard_normal((POSITIONS, HIDDEN)).astype(np.float32), "positions"),
        nh.from_array(np.array(1, np.int64), "axis"),
        nh.from_array(np.array(1, np.int64), "offset"),
    ]
    nodes = [
        h.make_node("CumSum", ["attention_mask", "axis"], ["count"]),
        h.make_node("Mul", ["count", "attention_mask"], ["masked"]),
        h.make_node("Add", ["masked", "offset"], ["position_ids"]),
        h.make_node("Gather", ["words", "input_ids"], ["word_rows"], axis=0),
        h.make_node("Gather", ["positions", "position_ids"], ["position_rows"], axis=0),
        h.make_node("Add", ["word_rows", "position_rows"], ["embeddings"]),
    ]
    graph = h.make_graph(nodes, "embedding_two_gathers", inputs, [output], initializer=constants)
    return h.make_model(graph, opset_imports=[h.make_opsetid("", 17)])


def gather_elements() -> onnx.ModelProto:
    inputs = [
        h.make_tensor_value_info("c2p_att", T.FLOAT, ["batch", HEADS, "seq", 2 * SPAN]),
        h.make_tensor_value_info("c2p_pos", T.INT64, ["batch", HEADS, "seq", "seq"]),
        h.make_tensor_value_info("scores", T.FLOAT, ["batch", HEADS, "seq", "seq"]),
    ]
    output = h.make_tensor_value_info("attention", T.FLOAT, ["batch", HEADS, "seq", "seq"])
    nodes = [
        h.make_node("GatherElements", ["c2p_att", "c2p_pos"], ["c2p"], axis=-1),
        h.make_node("Add", ["scores", "c2p"], ["attention"]),
    ]
    graph = h.make_graph(nodes, "gather_elements_last_axis", inputs, [output])
    return h.make_model(graph, opset_imports=[h.make_opsetid("", 17)])


def gather_nd() -> onnx.ModelProto:
    inputs = [
        h.make_tensor_value_info("table", T.FLOAT, ["batch", VOCAB, HIDDEN]),
        h.make_tensor_value_info("ids", T.INT64, ["batch", "seq", 1]),
    ]
    output = h.make_tensor_value_info("rows", T.FLOAT, ["batch", "seq", HIDDEN])
    nodes = [
        h.make_node("GatherND", ["table", "ids"], ["picked"], batch_dims=1),
        h.make_node("Relu", ["picked"], ["rows"]),
    ]
    graph = h.make_graph(nodes, "gather_nd_rows", inputs, [output])
    return h.make_model(graph, opset_imports=[h.make_opsetid("", 17)])


def feeds_for(name: str, batch: int, seq: int, rng: np.random.Generator) -> dict:
    if name == "embedding_two_gathers":
        mask = np.ones((batch, seq), np.int64)
        mask[0, seq - seq // 3 :] = 0  # right padding in the first sequence
        return {"input_ids": rng.integers(0, VOCAB, (batch, seq)).astype(np.int64), "attention_mask": mask}
    if name == "gather_elements_last_axis":
        ids = np.arange(seq)
        c2p_pos = np.clip(ids[:, None] - ids[None, :] + SPAN, 0, 2 * SPAN - 1)
        return {
            "c2p_att": rng.standard_normal((batch, HEADS, seq, 2 * SPAN)).astype(np.float32),
            "c2p_pos": np.broadcast_to(c2p_pos, (batch, HEADS, seq, seq)).astype(np.int64),
            "scores": rng.standard_normal((batch, HEADS, seq, seq)).astype(np.float32),
        }
    return {
        "table": rng.standard_normal((batch, VOCAB, HIDDEN)).astype(np.float32),
        "ids": rng.integers(0, VOCAB, (batch, seq, 1)).astype(np.int64),
    }


def main() -> None:
    out = Path(sys.argv[1])
    only = sys.argv[2] if len(sys.argv) > 2 else None
    out.mkdir(parents=True, exist_ok=True)
    for model in [embedding(), gather_elements(), gather_nd()]:
        onnx.checker.check_model(model, full_check=True)
        name = model.graph.name
        if only is not None and name != only:
            continue
        rng = np.random.default_rng(39)  # the same inputs whichever models are written
        path = out / f"{name}.onnx"
        onnx.save(model, path)
        session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        for batch, seq in SHAPES[name]:
            feeds = feeds_for(name, batch, seq, rng)
            tag = f"{name}.b{batch}s{seq}"
            for input_name, value in feeds.items():
                np.save(out / f"{tag}.{input_name}.npy", value)
            for i, value in enumerate(session.run(None, feeds)):
                np.save(out / f"{tag}.output{i}.npy", value)
        print(f"wrote {path.name} and its outputs at {len(SHAPES[name])} shapes")


if __name__ == "__main__":
    main()
