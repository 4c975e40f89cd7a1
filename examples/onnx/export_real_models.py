#!/usr/bin/env python3
"""Exports tiny Hugging Face transformers (random, seeded weights) to ONNX with both torch
exporters, with dynamic batch and sequence dims, plus test inputs and onnxruntime outputs.

    scripts/make-real-models.sh            # creates .venv-models/ and runs this script
    .venv-models/bin/python examples/onnx/export_real_models.py [--only bert,llama]

The point is to have what real PyTorch exporters write, for the ONNX importer: nothing
here runs onnx shape inference or onnx-simplifier on the exported files.

Models (configs in MODELS below; eager attention, no KV cache, eval mode):
- bert:    BertModel without pooler; inputs input_ids, attention_mask (right padding in
           the test inputs); output last_hidden_state. token_type_ids omitted (the model
           uses its zero buffer).
- gpt2:    GPT2LMHeadModel; inputs input_ids, attention_mask (right padding); causal mask
           built in the graph; output logits.
- llama:   LlamaForCausalLM with grouped-query attention (4 query heads, 2 KV heads) and
           rotary embeddings; input input_ids; output logits.
- qwen2:   Qwen2ForCausalLM: q/k/v projections with bias, multi-query attention (1 KV
           head), tied embeddings; inputs input_ids, attention_mask (right padding);
           output logits.
- gptneox: GPTNeoXForCausalLM: fused QKV projection, partial rotary (rotary_pct 0.25),
           parallel residual, LayerNorm + GELU; input input_ids; output logits.
- vit:     ViTModel without pooler: a Conv2d patch embedding (16x16 images, 4x4 patches,
           stride 4), a class token, learned positions; input pixel_values (f32); output
           last_hidden_state. Only the batch is dynamic: the image size is fixed (the
           position table has 16 patches + 1 class token, so the sequence is 17).
- whisper: WhisperEncoder: two Conv1d (kernel 3; the second with stride 2) + GELU over 8
           mel bins, sinusoidal positions, pre-norm encoder layers; input input_features
           (f32, 32 frames); output last_hidden_state. Only the batch is dynamic: Whisper
           requires max_source_positions * 2 frames (it raises on any other length).
- t5enc:   T5EncoderModel: relative position buckets (bidirectional, 8 buckets, max
           distance 20) computed in the graph from the sequence length, RMS norm, no
           biases; inputs input_ids, attention_mask (right padding); output
           last_hidden_state.
- bloom:   BloomForCausalLM: ALiBi (slopes per head times the cumsum of the attention
           mask), fused QKV projection split per head, embedding LayerNorm; inputs
           input_ids, attention_mask (right padding); output logits.

Files in examples/onnx/real/:
- <model>.<exporter>.onnx, exporter torchscript (torch.onnx.export(dynamo=False,
  dynamic_axes=...)) or dynamo (torch.onnx.export(dynamo=True, dynamic_shapes=...)),
  weights inside the file.
- <model>.b<B>s<S>.<input>.npy: the inputs for (B, S) in SHAPES, shared by both exporters.
- <model>.<exporter>.b<B>s<S>.output<i>.npy: onnxruntime's outputs on the exported file
  (checked against eager torch to TOLERANCE).
- manifest.json: per file the architecture, exporter, versions, config, inputs/outputs per
  shape, the graph input/output dims as written (dim_param names), the symbolic dim names
  found anywhere in the graph, and the op-type histogram.
"""

import argparse
import collections
import json
import sys
import traceback
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
OUT = HERE / "real"
SHAPES = [(1, 7), (2, 16), (3, 33)]  # (batch, seq); seq <= max positions (64)
CHECK_ONLY_SHAPES = [(1, 1), (5, 64)]  # also checked against torch, not saved
EXPORT_SHAPE = (2, 16)  # the example inputs the exporters trace with
TOLERANCE = 1e-4
SEED = 0
TORCHSCRIPT_OPSET = 17
DYNAMO_OPSET = 18
MAX_POSITIONS = 64
PERTURB = 0.05  # std of the seeded noise added to every initialized parameter

# name -> (transformers config class, model class, config kwargs, input names, output name)
MODELS = {
    "bert": (
        "BertConfig", "BertModel",
        dict(vocab_size=128, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
             intermediate_size=64, max_position_embeddings=MAX_POSITIONS, type_vocab_size=2,
             hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0),
        ["input_ids", "attention_mask"], "last_hidden_state",
    ),
    "gpt2": (
        "GPT2Config", "GPT2LMHeadModel",
        dict(vocab_size=128, n_positions=MAX_POSITIONS, n_embd=32, n_layer=2, n_head=4,
             n_inner=64, resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0,
             bos_token_id=1, eos_token_id=2),  # the defaults (50256) are outside the vocab
        ["input_ids", "attention_mask"], "logits",
    ),
    "llama": (
        "LlamaConfig", "LlamaForCausalLM",
        dict(vocab_size=128, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
             num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=MAX_POSITIONS,
             rms_norm_eps=1e-6, tie_word_embeddings=False),
        ["input_ids"], "logits",
    ),
    "qwen2": (
        "Qwen2Config", "Qwen2ForCausalLM",
        dict(vocab_size=128, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
             num_attention_heads=4, num_key_value_heads=1, max_position_embeddings=MAX_POSITIONS,
             rms_norm_eps=1e-6, tie_word_embeddings=True, use_sliding_window=False),
        ["input_ids", "attention_mask"], "logits",
    ),
    "gptneox": (
        "GPTNeoXConfig", "GPTNeoXForCausalLM",
        dict(vocab_size=128, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
             num_attention_heads=4, rotary_pct=0.25, max_position_embeddings=MAX_POSITIONS,
             use_parallel_residual=True, hidden_dropout=0.0, attention_dropout=0.0,
             tie_word_embeddings=False),
        ["input_ids"], "logits",
    ),
    "vit": (
        "ViTConfig", "ViTModel",
        dict(image_size=16, patch_size=4, num_channels=3, hidden_size=32, num_hidden_layers=2,
             num_attention_heads=4, intermediate_size=64, hidden_dropout_prob=0.0,
             attention_probs_dropout_prob=0.0),
        ["pixel_values"], "last_hidden_state",
    ),
    "whisper": (
        "WhisperConfig", "WhisperEncoder",
        dict(vocab_size=128, num_mel_bins=8, d_model=32, encoder_layers=2, encoder_attention_heads=4,
             encoder_ffn_dim=64, decoder_layers=1, decoder_attention_heads=4, decoder_ffn_dim=64,
             max_source_positions=16, max_target_positions=MAX_POSITIONS, dropout=0.0,
             attention_dropout=0.0, activation_dropout=0.0),
        ["input_features"], "last_hidden_state",
    ),
    "t5enc": (
        "T5Config", "T5EncoderModel",
        dict(vocab_size=128, d_model=32, d_kv=8, d_ff=64, num_layers=2, num_heads=4,
             relative_attention_num_buckets=8, relative_attention_max_distance=20,
             dropout_rate=0.0, feed_forward_proj="relu"),
        ["input_ids", "attention_mask"], "last_hidden_state",
    ),
    "bloom": (
        "BloomConfig", "BloomForCausalLM",
        dict(vocab_size=128, hidden_size=32, n_layer=2, n_head=4, hidden_dropout=0.0,
             attention_dropout=0.0, tie_word_embeddings=True),
        ["input_ids", "attention_mask"], "logits",
    ),
}

# Models whose inputs are features, not token ids: per input, its dims after the batch
# dim. These are fixed (the model admits no other size), so only the batch is dynamic;
# their files are tagged b<B> instead of b<B>s<S>, and the manifest records the sequence
# the model sees as "fixed_seq".
FEATURE_INPUTS = {
    "vit": {"pixel_values": (3, 16, 16)},
    "whisper": {"input_features": (8, 32)},
}
FIXED_SEQ = {"vit": 17, "whisper": 16}
# The families added after the first five: their dynamo files are written without the
# per-node stack traces (strip_stack_traces), to keep the committed files small.
STRIP_STACK_TRACES = {"vit", "whisper", "t5enc", "bloom"}
# Models whose forward takes no use_cache (encoders).
NO_CACHE_FLAG = {"vit", "whisper", "t5enc"}


NOTES = [
    "llama and gptneox (no attention_mask input) go through transformers' "
    "masking_utils.find_packed_sequence_indices(position_ids): torch.diff + cumsum of a bool "
    "tensor, kept in both exported graphs (Sub/Slice/Concat + CumSum, then Equal/GatherND in the mask).",
    "TorchScript exporter without workarounds fails on them: \"UnsupportedOperatorError: Exporting the "
    "operator 'aten::diff' to ONNX opset version 17 is not supported\"; with a custom aten::diff symbolic "
    "only, onnxruntime refuses the file: \"Type 'tensor(bool)' of input parameter (/inner/model/Not_output_0) "
    "of operator (CumSum) in node (/inner/model/CumSum) is invalid\". Both are worked around with custom "
    "symbolics (register_torchscript_workarounds), registered before every TorchScript export.",
    "The dynamo exporter is run with its defaults (optimize=True: onnxscript's optimizer, constant folding) "
    "and writes value_info with symbolic dims for intermediates; the TorchScript exporter writes none.",
    "vit, whisper, t5enc and bloom: their dynamo files have the per-node metadata "
    "'pkg.torch.onnx.stack_trace' removed after saving (strip_stack_traces: a quarter of each file); "
    "nothing else of the exported graph is changed.",
    "vit and whisper take f32 features (pixel_values [batch, 3, 16, 16], input_features [batch, 8, 32]) "
    "whose dims after the batch are fixed by the model (ViT's position table, Whisper's length check): "
    "only the batch is dynamic, their files are tagged b<B>, and their manifest runs give the sequence "
    "the model sees (fixed_seq: 17 patches + class token, 16 positions).",
]


def log(msg):
    print(f"export_real_models: {msg}", flush=True)


# ---------------------------------------------------------------- models and inputs


def build(name):
    import torch
    import transformers

    config_cls, model_cls, kwargs, input_names, output_name = MODELS[name]
    config = getattr(transformers, config_cls)(**kwargs, use_cache=False)
    # WhisperEncoder is not exported at the top of transformers.
    models = transformers.models.whisper.modeling_whisper if model_cls == "WhisperEncoder" else transformers
    config._attn_implementation = "eager"
    torch.manual_seed(SEED)
    extra = {"add_pooling_layer": False} if model_cls in ("BertModel", "ViTModel") else {}
    model = getattr(models, model_cls)(config, **extra)
    model.eval()
    # transformers initializes biases to 0 and norm weights to 1; the dynamo exporter's
    # optimizer then merges all equal initializers into one (every bias of the graph
    # becomes the same tensor). Seeded noise on every parameter keeps them distinct.
    generator = torch.Generator().manual_seed(SEED + 1)
    with torch.no_grad():
        for p in model.parameters():
            p.add_(torch.randn(p.shape, generator=generator) * PERTURB)

    class Wrapper(torch.nn.Module):
        """Fixes the forward signature to the named inputs and returns one tensor."""

        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, input_ids, attention_mask=None):
            kw = {"input_ids": input_ids, "use_cache": False, "return_dict": True}
            if attention_mask is not None:
                kw["attention_mask"] = attention_mask
            return getattr(self.inner(**kw), output_name)

    class FeatureWrapper(torch.nn.Module):
        """The same for the models of FEATURE_INPUTS and NO_CACHE_FLAG: the named inputs
        in order, no use_cache."""

        def __init__(self, inner):
            super().__init__()
            self.inner = inner

        def forward(self, *args):
            kw = dict(zip(input_names, args))
            return getattr(self.inner(**kw, return_dict=True), output_name)

    if name in NO_CACHE_FLAG:
        return config, FeatureWrapper(model).eval(), input_names, output_name

    wrapper = Wrapper(model).eval()
    return config, wrapper, input_names, output_name


def shape_tag(name, batch, seq):
    """The file tag of one (batch, seq): b<B>s<S>, or b<B> where the sequence is fixed."""
    return f"b{batch}" if name in FEATURE_INPUTS else f"b{batch}s{seq}"


def make_inputs(name, batch, seq):
    """Seeded int64 token ids and (where used) a right-padded attention mask; for the
    models of FEATURE_INPUTS, seeded standard-normal f32 features (seq unused)."""
    config_cls, model_cls, kwargs, input_names, _ = MODELS[name]
    if name in FEATURE_INPUTS:
        rng = np.random.default_rng([SEED, batch, sum(map(ord, name))])
        return {
            n: rng.standard_normal((batch, *dims)).astype(np.float32)
            for n, dims in FEATURE_INPUTS[name].items()
        }
    rng = np.random.default_rng([SEED, batch, seq, sum(map(ord, name))])
    arrays = {"input_ids": rng.integers(0, kwargs.get("vocab_size"), size=(batch, seq), dtype=np.int64)}
    if "attention_mask" in input_names:
        mask = np.ones((batch, seq), np.int64)
        for r in range(batch):
            length = max(1, seq - ((r + 1) * seq) // 5)
            mask[r, length:] = 0
        arrays["attention_mask"] = mask
    return {k: arrays[k] for k in input_names}


# ---------------------------------------------------------------- export


def export(name, exporter, wrapper, input_names, output_name, path):
    import torch

    if name in FEATURE_INPUTS:
        example = make_inputs(name, *EXPORT_SHAPE)
    else:
        example = make_inputs_for_export(input_names)
    args = tuple(torch.from_numpy(example[n]) for n in input_names)
    fixed = name in FEATURE_INPUTS
    if exporter == "torchscript":
        register_torchscript_workarounds()
        axes = {0: "batch"} if fixed else {0: "batch", 1: "seq"}
        dynamic_axes = {n: axes for n in input_names}
        dynamic_axes[output_name] = axes
        torch.onnx.export(
            wrapper, args, str(path), dynamo=False, opset_version=TORCHSCRIPT_OPSET,
            input_names=input_names, output_names=[output_name], dynamic_axes=dynamic_axes,
            do_constant_folding=True,
        )
    else:
        batch = torch.export.Dim("batch")
        seq = torch.export.Dim("seq", max=MAX_POSITIONS)
        if fixed:  # FeatureWrapper.forward(*args)
            dynamic_shapes = {"args": tuple({0: batch} for _ in input_names)}
        elif name in NO_CACHE_FLAG:  # FeatureWrapper.forward(*args)
            dynamic_shapes = {"args": tuple({0: batch, 1: seq} for _ in input_names)}
        else:
            dynamic_shapes = {n: {0: batch, 1: seq} for n in input_names}
        program = torch.onnx.export(
            wrapper, args, dynamo=True, opset_version=DYNAMO_OPSET,
            input_names=input_names, output_names=[output_name], dynamic_shapes=dynamic_shapes,
            external_data=False,
        )
        program.save(str(path), external_data=False)
        if name in STRIP_STACK_TRACES:
            strip_stack_traces(path)


def strip_stack_traces(path):
    """Removes the dynamo exporter's per-node Python stack traces (metadata_props key
    pkg.torch.onnx.stack_trace: a quarter of the file, source paths of this machine); the
    graph, its value_info and the other metadata are kept as written."""
    import onnx

    model = onnx.load(str(path))
    for node in model.graph.node:
        kept = [p for p in node.metadata_props if p.key != "pkg.torch.onnx.stack_trace"]
        del node.metadata_props[:]
        node.metadata_props.extend(kept)
    onnx.save(model, str(path))


def register_torchscript_workarounds():
    """The TorchScript exporter has no symbolic for aten::diff (opset 17: "Exporting the
    operator 'aten::diff' to ONNX opset version 17 is not supported"), which transformers'
    masking_utils.find_packed_sequence_indices calls on the position ids of decoder models
    run without an attention_mask (llama, gptneox here). This registers the usual user
    workaround, a custom symbolic: diff(x, n=1, dim, prepend, append) =
    Slice(x', 1:) - Slice(x', :-1) along dim, x' = Concat(prepend, x, append)."""
    import torch
    from torch.onnx import symbolic_helper

    @symbolic_helper.parse_args("v", "i", "i", "v", "v")
    def diff(g, self, n, dim, prepend, append):
        if n != 1:
            raise RuntimeError(f"aten::diff with n={n} (only n=1 is exported)")
        parts = [p for p in (prepend, self, append) if not symbolic_helper._is_none(p)]
        x = g.op("Concat", *parts, axis_i=dim) if len(parts) > 1 else self

        def const(v):
            return g.op("Constant", value_t=torch.tensor([v], dtype=torch.int64))

        axes = const(dim)
        hi = g.op("Slice", x, const(1), const(2**63 - 1), axes)
        lo = g.op("Slice", x, const(0), const(-1), axes)
        return g.op("Sub", hi, lo)

    torch.onnx.register_custom_op_symbolic("aten::diff", diff, TORCHSCRIPT_OPSET)

    # The same function then calls (position_diff != 1).cumsum(-1): a cumsum of a bool
    # tensor, int64 in torch. The stock symbolic writes CumSum on the bool tensor, which
    # onnxruntime refuses ("Type 'tensor(bool)' of input parameter ... of operator (CumSum)
    # ... is invalid"). This one casts bool to int64 first (and to dtype when given).
    from torch.onnx._internal.torchscript_exporter import _type_utils

    @symbolic_helper.parse_args("v", "i", "none")
    def cumsum(g, self, dim, dtype=None):
        scalar = _type_utils.JitScalarType.from_value(self, _type_utils.JitScalarType.UNDEFINED)
        if dtype is not None and not symbolic_helper._is_none(dtype):
            to = _type_utils.JitScalarType(symbolic_helper._get_const(dtype, "i", "dtype"))
            self = g.op("Cast", self, to_i=to.onnx_type())
        elif scalar == _type_utils.JitScalarType.BOOL:
            self = g.op("Cast", self, to_i=_type_utils.JitScalarType.INT64.onnx_type())
        axis = g.op("Constant", value_t=torch.tensor(dim, dtype=torch.int64))
        return g.op("CumSum", self, axis)

    torch.onnx.register_custom_op_symbolic("aten::cumsum", cumsum, TORCHSCRIPT_OPSET)


def make_inputs_for_export(input_names):
    b, s = EXPORT_SHAPE
    rng = np.random.default_rng(12345)
    arrays = {"input_ids": rng.integers(0, 100, size=(b, s), dtype=np.int64)}
    mask = np.ones((b, s), np.int64)
    mask[1, s - 3:] = 0
    arrays["attention_mask"] = mask
    return {n: arrays[n] for n in input_names}


# ---------------------------------------------------------------- describing a graph


def dtype_name(elem_type):
    import onnx

    return onnx.helper.tensor_dtype_to_np_dtype(elem_type).name if elem_type else "undefined"


def dims_of(value_info):
    t = value_info.type.tensor_type
    if not t.HasField("shape"):
        return None
    out = []
    for d in t.shape.dim:
        if d.HasField("dim_param"):
            out.append(d.dim_param)
        elif d.HasField("dim_value"):
            out.append(d.dim_value)
        else:
            out.append(None)  # unknown, unnamed
    return out


def walk_graphs(graph, prefix=""):
    """The graph and its subgraphs (If/Loop/Scan bodies), with a path."""
    yield prefix or "main", graph
    for node in graph.node:
        for attr in node.attribute:
            if attr.type == attr.GRAPH:
                yield from walk_graphs(attr.g, f"{prefix}/{node.op_type}:{node.name}.{attr.name}")
            elif attr.type == attr.GRAPHS:
                for i, g in enumerate(attr.graphs):
                    yield from walk_graphs(g, f"{prefix}/{node.op_type}:{node.name}.{attr.name}[{i}]")


def describe_shapes(model):
    """How the graph computes shapes: a histogram of the shape-related node forms (whether
    shape/axes/starts operands are constants, Shape's start/end, Reshape's allowzero), the
    value_info dims the exporter wrote, and the exporter's range constraints."""
    import onnx
    from onnx import numpy_helper

    g = model.graph
    const = {i.name: numpy_helper.to_array(i) for i in g.initializer}
    for n in g.node:
        if n.op_type == "Constant":
            for a in n.attribute:
                if a.name == "value":
                    const[n.output[0]] = numpy_helper.to_array(a.t)
    producer = {o: n for n in g.node for o in n.output}

    def kind(name):
        if not name:
            return "-"
        if name in const:
            return "const"
        p = producer.get(name)
        return p.op_type if p else "input"

    forms = collections.Counter()
    for n in g.node:
        at = {a.name: onnx.helper.get_attribute_value(a) for a in n.attribute}
        op = n.op_type
        if op == "Shape":
            forms[f"Shape(start={at.get('start')}, end={at.get('end')})"] += 1
        elif op == "Reshape":
            c = const.get(n.input[1])
            shape = f"const {c.tolist()}" if c is not None else f"from {kind(n.input[1])}"
            forms[f"Reshape(shape={shape}, allowzero={at.get('allowzero', 0)})"] += 1
        elif op in ("Expand", "ConstantOfShape", "Tile"):
            forms[f"{op}(shape={'const' if n.input[-1] in const else 'from ' + kind(n.input[-1])})"] += 1
        elif op in ("Range", "Slice", "Gather", "Unsqueeze", "Squeeze", "Split", "ReduceMean", "Concat", "Where", "CumSum"):
            operands = ", ".join(kind(i) for i in n.input)
            extra = "".join(f", {k}={v}" for k, v in sorted(at.items()) if not isinstance(v, (bytes, onnx.TensorProto)))
            forms[f"{op}({operands}{extra})"] += 1
        elif op == "Cast":
            forms[f"Cast(to={dtype_name(at['to'])})"] += 1
    dims = collections.Counter()
    unknown = 0
    for v in g.value_info:
        t = v.type.tensor_type
        for d in t.shape.dim if t.HasField("shape") else []:
            if d.HasField("dim_param"):
                dims[d.dim_param] += 1
            elif not d.HasField("dim_value"):
                unknown += 1
    return {
        "shape_forms": dict(sorted(forms.items())),
        "value_info_dim_params": dict(sorted(dims.items())),
        "value_info_unknown_dims": unknown,
        "graph_metadata": {p.key: p.value for p in g.metadata_props if "range_constraints" in p.key},
        "node_metadata_keys": sorted({p.key for n in g.node for p in n.metadata_props}),
    }


def describe(path):
    import onnx

    model = onnx.load(str(path))
    g = model.graph
    hist = collections.Counter()
    sub_hist = collections.Counter()
    symbols = collections.Counter()
    subgraphs = []
    for where, graph in walk_graphs(g):
        if where != "main":
            subgraphs.append(where)
        for node in graph.node:
            key = node.op_type if node.domain in ("", "ai.onnx") else f"{node.domain}::{node.op_type}"
            (hist if where == "main" else sub_hist)[key] += 1
        for vi in list(graph.input) + list(graph.output) + list(graph.value_info):
            for d in dims_of(vi) or []:
                if isinstance(d, str):
                    symbols[d] += 1
    function_hist = {}
    for f in model.functions:
        c = collections.Counter(n.op_type for n in f.node)
        function_hist[f"{f.domain}::{f.name}"] = dict(sorted(c.items()))
    init_names = {i.name for i in g.initializer}
    return {
        **describe_shapes(model),
        "ir_version": model.ir_version,
        "opset_import": {o.domain or "ai.onnx": o.version for o in model.opset_import},
        "producer": f"{model.producer_name} {model.producer_version}".strip(),
        "inputs": [
            {"name": i.name, "dtype": dtype_name(i.type.tensor_type.elem_type), "dims": dims_of(i)}
            for i in g.input if i.name not in init_names
        ],
        "outputs": [
            {"name": o.name, "dtype": dtype_name(o.type.tensor_type.elem_type), "dims": dims_of(o)}
            for o in g.output
        ],
        "nodes": len(g.node),
        "op_histogram": dict(sorted(hist.items())),
        "subgraph_op_histogram": dict(sorted(sub_hist.items())),
        "subgraphs": subgraphs,
        "functions": function_hist,
        "initializers": len(g.initializer),
        "initializer_bytes": sum(len(i.raw_data) for i in g.initializer),
        "constant_nodes": hist.get("Constant", 0),
        "value_info": len(g.value_info),
        "symbolic_dims": dict(sorted(symbols.items())),
        "file_bytes": path.stat().st_size,
    }


# ---------------------------------------------------------------- main


def versions():
    import onnx
    import onnxruntime
    import torch
    import transformers

    v = {
        "python": sys.version.split()[0],
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "onnx": onnx.__version__,
        "onnxruntime": onnxruntime.__version__,
        "numpy": np.__version__,
    }
    try:
        import onnxscript

        v["onnxscript"] = onnxscript.__version__
    except Exception as e:  # only the dynamo exporter needs it
        v["onnxscript"] = f"not importable: {e}"
    return v


def jsonable(x):
    try:
        json.dumps(x)
        return x
    except TypeError:
        if isinstance(x, dict):
            return {str(k): jsonable(v) for k, v in x.items()}
        if isinstance(x, (list, tuple)):
            return [jsonable(v) for v in x]
        return repr(x)


def run_model(name, exporters, manifest, vers):
    import onnxruntime as ort
    import torch

    config, wrapper, input_names, output_name = build(name)
    n_params = sum(p.numel() for p in wrapper.parameters())
    log(f"{name}: {MODELS[name][1]} ({n_params} parameters)")
    inputs = {}
    expected = {}
    with torch.no_grad():
        for b, s in SHAPES:
            arrays = make_inputs(name, b, s)
            files = {}
            for k, a in arrays.items():
                f = f"{name}.{shape_tag(name, b, s)}.{k}.npy"
                np.save(OUT / f, a)
                files[k] = f
            inputs[(b, s)] = (arrays, files)
            expected[(b, s)] = wrapper(*[torch.from_numpy(arrays[k]) for k in input_names]).numpy()
    for exporter in exporters:
        fname = f"{name}.{exporter}.onnx"
        path = OUT / fname
        entry = {
            "file": fname,
            "model": name,
            "architecture": MODELS[name][1],
            "exporter": exporter,
            "export_call": (
                f"torch.onnx.export(dynamo=False, opset_version={TORCHSCRIPT_OPSET}, dynamic_axes={{input: {{0: 'batch', 1: 'seq'}}}}), "
                "with custom symbolics for aten::diff and aten::cumsum (register_torchscript_workarounds)"
                if exporter == "torchscript"
                else f"torch.onnx.export(dynamo=True, opset_version={DYNAMO_OPSET}, dynamic_shapes={{input: {{0: Dim('batch'), 1: Dim('seq', max={MAX_POSITIONS})}}}}) then .save(external_data=False)"
            ),
            "export_example_shape": list(EXPORT_SHAPE),
            "versions": vers,
            "parameters": n_params,
            "config": jsonable(config.to_diff_dict()),
        }
        if name in FIXED_SEQ:
            entry["export_call"] = entry["export_call"].replace(", 1: 'seq'", "").replace(
                f", 1: Dim('seq', max={MAX_POSITIONS})", "")
            entry["fixed_seq"] = FIXED_SEQ[name]
            entry["dynamic_dims"] = "batch only: " + ", ".join(
                f"{n} [batch, {', '.join(map(str, d))}]" for n, d in FEATURE_INPUTS[name].items())
        try:
            if path.exists():
                path.unlink()
            export(name, exporter, wrapper, input_names, output_name, path)
        except Exception as e:
            traceback.print_exc(file=sys.stderr)
            msg = f"{type(e).__name__}: {e}"
            entry["error"] = msg[:4000]
            manifest[fname] = entry
            log(f"{fname}: export FAILED: {msg.splitlines()[0][:300]}")
            continue
        entry["graph"] = describe(path)
        sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        ort_inputs = [i.name for i in sess.get_inputs()]
        runs = []
        worst = 0.0
        for (b, s), (arrays, files) in inputs.items():
            feed = {}
            for i, n in enumerate(ort_inputs):
                feed[n] = arrays[n] if n in arrays else arrays[input_names[i]]
            outs = sess.run(None, feed)
            out_files = []
            for i, o in enumerate(outs):
                f = f"{name}.{exporter}.{shape_tag(name, b, s)}.output{i}.npy"
                np.save(OUT / f, o)
                out_files.append(f)
            err = float(np.max(np.abs(outs[0].astype(np.float64) - expected[(b, s)].astype(np.float64))))
            worst = max(worst, err)
            runs.append({
                "batch": b, "seq": FIXED_SEQ.get(name, s),
                "inputs": {k: {"file": files[k], "dtype": arrays[k].dtype.name, "shape": list(arrays[k].shape)} for k in input_names},
                "outputs": [{"file": f, "dtype": o.dtype.name, "shape": list(o.shape)} for f, o in zip(out_files, outs)],
                "max_abs_err_ort_vs_torch": err,
            })
            if not err <= TOLERANCE:
                raise AssertionError(f"{fname} b{b}s{s}: onnxruntime differs from eager torch by {err} > {TOLERANCE}")
        checked = []
        for b, s in CHECK_ONLY_SHAPES:
            arrays = make_inputs(name, b, s)
            with torch.no_grad():
                want = wrapper(*[torch.from_numpy(arrays[k]) for k in input_names]).numpy()
            got = sess.run(None, {n: arrays[n] for n in ort_inputs})[0]
            err = float(np.max(np.abs(got.astype(np.float64) - want.astype(np.float64))))
            if not err <= TOLERANCE:
                raise AssertionError(f"{fname} b{b}s{s}: onnxruntime differs from eager torch by {err} > {TOLERANCE}")
            checked.append({"batch": b, "seq": FIXED_SEQ.get(name, s), "max_abs_err_ort_vs_torch": err})
            worst = max(worst, err)
        entry["shapes"] = runs
        entry["checked_only_shapes"] = checked
        entry["max_abs_err_ort_vs_torch"] = worst
        manifest[fname] = entry
        gi = ", ".join(f"{i['name']}:{i['dtype']}{i['dims']}" for i in entry["graph"]["inputs"])
        log(f"{fname}: {entry['graph']['nodes']} nodes, {entry['graph']['file_bytes']} bytes, inputs {gi}; "
            f"ORT vs torch max |err| {worst:.2e} <= {TOLERANCE} on {[shape_tag(name, *s) for s in SHAPES + CHECK_ONLY_SHAPES]}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="comma-separated models (default: all)")
    parser.add_argument("--exporters", default="torchscript,dynamo")
    args = parser.parse_args()
    names = [n for n in args.only.split(",") if n] or list(MODELS)
    exporters = [e for e in args.exporters.split(",") if e]
    OUT.mkdir(exist_ok=True)
    manifest_path = OUT / "manifest.json"
    manifest = {}
    if manifest_path.exists():
        manifest = json.loads(manifest_path.read_text()).get("files", {})
    vers = versions()
    log("versions " + " ".join(f"{k} {v}" for k, v in vers.items()))
    failed = []
    for name in names:
        try:
            run_model(name, exporters, manifest, vers)
        except Exception as e:
            traceback.print_exc(file=sys.stderr)
            failed.append(f"{name}: {type(e).__name__}: {e}")
            log(f"{name}: FAILED: {type(e).__name__}: {str(e)[:300]}")
        doc = {
            "about": "Tiny transformers (random seeded weights) exported by torch's two ONNX exporters with "
                     "dynamic batch/seq; no onnx shape inference or simplifier applied. Written by "
                     "examples/onnx/export_real_models.py (scripts/make-real-models.sh).",
            "shapes": [list(s) for s in SHAPES],
            "checked_only_shapes": [list(s) for s in CHECK_ONLY_SHAPES],
            "tolerance_ort_vs_torch": TOLERANCE,
            "notes": NOTES,
            "files": dict(sorted(manifest.items())),
        }
        manifest_path.write_text(json.dumps(doc, indent=1) + "\n")
    errors = [f for f, e in manifest.items() if "error" in e]
    log(f"wrote {manifest_path.relative_to(HERE.parent.parent)}: {len(manifest)} files, "
        f"{len(errors)} export failures {errors}")
    if failed:
        sys.exit("export_real_models: " + "; ".join(failed))


if __name__ == "__main__":
    main()
