#!/usr/bin/env python3
"""Probes Hugging Face families the repository does not commit, as a new user would bring
them (issues 39 and 41): tiny random seeded configs, both torch ONNX exporters, autofuse-run
at three shapes against onnxruntime (simulator path, and the vendor's Ascend C path when its
headers are found), and torch.compile with backend="autofuse" and "autofuse-inductor" at two
shapes against eager. Prints one table; writes target/families/probe.json.

Run on demand (not part of the test command; minutes per family):

    CARGO_TARGET_DIR=target cargo build --workspace --bins
    PY=<a python with torch, transformers, onnx, onnxruntime and onnxscript>
    PYTHONPATH=python AUTOFUSE_BIN_DIR=target/debug $PY bench/families/probe.py \\
        [--only gemma,opt] [--skip-onnx] [--skip-torch] [--no-vendor]

Models, inputs and onnxruntime outputs go to target/families/ (never committed). The
export helpers and the onnxruntime reference are examples/onnx/export_real_models.py's
(its build/export/make_inputs, with the families below registered into its tables); the
comparison with eager is test/PyTorch/Inputs/compile_models.py's against_eager.

Verdicts: "exporter: <error>" when torch's exporter fails (not ours), "ort!=eager" when
onnxruntime disagrees with eager torch on the exported file (the reference is unusable),
else PASS/FAIL of autofuse-run against onnxruntime's outputs, with the kernels left to the
interpreter and the GM ratio of autofuse-run's summary line.
"""

import argparse
import inspect
import json
import os
import re
import subprocess
import sys
import time
import traceback
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "examples" / "onnx"))
sys.path.insert(0, str(REPO / "test" / "PyTorch" / "Inputs"))

import export_real_models as erm  # noqa: E402

OUT = REPO / "target" / "families"
TOKEN_SHAPES = [(1, 7), (2, 16), (3, 33)]
TORCH_SHAPES = [(2, 8), (3, 13)]
VOCAB = 128
POS = erm.MAX_POSITIONS

# name -> (config class, model class, config kwargs, input names, output name). Decoders
# and encoders take input_ids (+ attention_mask where the family uses one); models of
# FEATURES take f32 features with fixed dims after the batch.
FAMILIES = {
    "gemma": ("GemmaConfig", "GemmaForCausalLM",
              dict(vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                   num_attention_heads=4, num_key_value_heads=2, head_dim=8,
                   max_position_embeddings=POS, hidden_activation="gelu_pytorch_tanh"),
              ["input_ids", "attention_mask"], "logits"),
    "gemma2": ("Gemma2Config", "Gemma2ForCausalLM",
               dict(vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                    num_attention_heads=4, num_key_value_heads=2, head_dim=8,
                    max_position_embeddings=POS, sliding_window=8, attn_logit_softcapping=50.0,
                    final_logit_softcapping=30.0, query_pre_attn_scalar=8),
               ["input_ids", "attention_mask"], "logits"),
    "phi": ("PhiConfig", "PhiForCausalLM",
            dict(vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                 num_attention_heads=4, partial_rotary_factor=0.5, max_position_embeddings=POS,
                 resid_pdrop=0.0, embd_pdrop=0.0, attention_dropout=0.0),
            ["input_ids", "attention_mask"], "logits"),
    "phi3": ("Phi3Config", "Phi3ForCausalLM",
             dict(vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                  num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=POS,
                  original_max_position_embeddings=POS, pad_token_id=0, bos_token_id=1,
                  eos_token_id=2, resid_pdrop=0.0, embd_pdrop=0.0, attention_dropout=0.0),
             ["input_ids", "attention_mask"], "logits"),
    "falcon": ("FalconConfig", "FalconModel",
               dict(vocab_size=VOCAB, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                    new_decoder_architecture=False, multi_query=True, parallel_attn=True,
                    alibi=False, bias=False, hidden_dropout=0.0, attention_dropout=0.0,
                    max_position_embeddings=POS),
               ["input_ids", "attention_mask"], "last_hidden_state"),
    "opt": ("OPTConfig", "OPTModel",
            dict(vocab_size=VOCAB, hidden_size=32, ffn_dim=64, num_hidden_layers=2,
                 num_attention_heads=4, max_position_embeddings=POS, word_embed_proj_dim=32,
                 dropout=0.0, attention_dropout=0.0, activation_dropout=0.0, pad_token_id=1,
                 bos_token_id=2, eos_token_id=2),
            ["input_ids", "attention_mask"], "last_hidden_state"),
    "roberta": ("RobertaConfig", "RobertaModel",
                dict(vocab_size=VOCAB, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                     intermediate_size=64, max_position_embeddings=POS + 2, type_vocab_size=1,
                     hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0, pad_token_id=1),
                ["input_ids", "attention_mask"], "last_hidden_state"),
    "distilbert": ("DistilBertConfig", "DistilBertModel",
                   dict(vocab_size=VOCAB, dim=32, n_layers=2, n_heads=4, hidden_dim=64,
                        max_position_embeddings=POS, dropout=0.0, attention_dropout=0.0),
                   ["input_ids", "attention_mask"], "last_hidden_state"),
    "albert": ("AlbertConfig", "AlbertModel",
               dict(vocab_size=VOCAB, embedding_size=16, hidden_size=32, num_hidden_layers=2,
                    num_attention_heads=4, intermediate_size=64, max_position_embeddings=POS,
                    hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0),
               ["input_ids", "attention_mask"], "last_hidden_state"),
    "electra": ("ElectraConfig", "ElectraModel",
                dict(vocab_size=VOCAB, embedding_size=16, hidden_size=32, num_hidden_layers=2,
                     num_attention_heads=4, intermediate_size=64, max_position_embeddings=POS,
                     hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0),
                ["input_ids", "attention_mask"], "last_hidden_state"),
    "qwen3": ("Qwen3Config", "Qwen3ForCausalLM",
              dict(vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                   num_attention_heads=4, num_key_value_heads=2, head_dim=8,
                   max_position_embeddings=POS, use_sliding_window=False, tie_word_embeddings=False),
              ["input_ids", "attention_mask"], "logits"),
    "olmo2": ("Olmo2Config", "Olmo2ForCausalLM",
              dict(vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                   num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=POS,
                   pad_token_id=0, bos_token_id=1, eos_token_id=2),
              ["input_ids", "attention_mask"], "logits"),
    "gptj": ("GPTJConfig", "GPTJModel",
             dict(vocab_size=VOCAB, n_positions=POS, n_embd=32, n_layer=2, n_head=4, rotary_dim=4,
                  n_inner=64, resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0,
                  bos_token_id=1, eos_token_id=2),
             ["input_ids", "attention_mask"], "last_hidden_state"),
    "stablelm": ("StableLmConfig", "StableLmForCausalLM",
                 dict(vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                      num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=POS,
                      partial_rotary_factor=0.25, use_qkv_bias=True, qk_layernorm=False,
                      hidden_dropout=0.0, attention_dropout=0.0),
                 ["input_ids", "attention_mask"], "logits"),
    "clip_text": ("CLIPTextConfig", "CLIPTextModel",
                  dict(vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                       num_attention_heads=4, max_position_embeddings=POS, projection_dim=32,
                       eos_token_id=2),
                  ["input_ids", "attention_mask"], "last_hidden_state"),
    "clip_vision": ("CLIPVisionConfig", "CLIPVisionModel",
                    dict(hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                         num_attention_heads=4, image_size=16, patch_size=4, num_channels=3),
                    ["pixel_values"], "last_hidden_state"),
    "swin": ("SwinConfig", "SwinModel",
             dict(image_size=32, patch_size=2, num_channels=3, embed_dim=16, depths=[2, 2],
                  num_heads=[2, 4], window_size=4, mlp_ratio=2.0, hidden_dropout_prob=0.0,
                  attention_probs_dropout_prob=0.0, drop_path_rate=0.0),
             ["pixel_values"], "last_hidden_state"),
    "convnext": ("ConvNextConfig", "ConvNextModel",
                 dict(num_channels=3, patch_size=4, num_stages=2, hidden_sizes=[16, 32], depths=[1, 1],
                      drop_path_rate=0.0, image_size=32),
                 ["pixel_values"], "last_hidden_state"),
    "resnet": ("ResNetConfig", "ResNetModel",
               dict(num_channels=3, embedding_size=16, hidden_sizes=[16, 32], depths=[1, 1],
                    layer_type="basic"),
               ["pixel_values"], "last_hidden_state"),
    "wav2vec2": ("Wav2Vec2Config", "Wav2Vec2Model",
                 dict(vocab_size=VOCAB, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                      intermediate_size=64, conv_dim=(16, 16), conv_stride=(5, 2),
                      conv_kernel=(10, 3), num_conv_pos_embeddings=8,
                      num_conv_pos_embedding_groups=4, hidden_dropout=0.0,
                      attention_dropout=0.0, activation_dropout=0.0, feat_proj_dropout=0.0,
                      layerdrop=0.0, mask_time_prob=0.0, do_stable_layer_norm=False),
                 ["input_values"], "last_hidden_state"),
    "mobilebert": ("MobileBertConfig", "MobileBertModel",
                   dict(vocab_size=VOCAB, hidden_size=32, embedding_size=16, num_hidden_layers=2,
                        num_attention_heads=4, intermediate_size=64, intra_bottleneck_size=16,
                        true_hidden_size=16, max_position_embeddings=POS,
                        num_feedforward_networks=2, hidden_dropout_prob=0.0,
                        attention_probs_dropout_prob=0.0),
                   ["input_ids", "attention_mask"], "last_hidden_state"),
    "mamba": ("MambaConfig", "MambaModel",
              dict(vocab_size=VOCAB, hidden_size=32, state_size=4, num_hidden_layers=2,
                   expand=2, conv_kernel=4, time_step_rank=4, use_mambapy=False),
              ["input_ids"], "last_hidden_state"),
}
# Feature inputs: dims after the batch (fixed by the model; only the batch is dynamic).
FEATURES = {
    "clip_vision": {"pixel_values": (3, 16, 16)},
    "swin": {"pixel_values": (3, 32, 32)},
    "convnext": {"pixel_values": (3, 32, 32)},
    "resnet": {"pixel_values": (3, 32, 32)},
    "wav2vec2": {"input_values": (400,)},
}
# The models transformers builds with a pooler unless told not to.
POOLER_FLAG = {"RobertaModel", "AlbertModel", "MobileBertModel", "ViTModel", "BertModel"}


def register(name):
    """Enters one family into export_real_models' tables, so that its export() and
    make_inputs() serve it: every family's wrapper takes its inputs positionally (the
    NO_CACHE_FLAG form), feature models have fixed dims after the batch."""
    erm.MODELS[name] = FAMILIES[name]
    erm.NO_CACHE_FLAG.add(name)
    erm.STRIP_STACK_TRACES.add(name)
    if name in FEATURES:
        erm.FEATURE_INPUTS[name] = FEATURES[name]


def build(name):
    """The family's model with seeded, perturbed weights, wrapped to take its inputs
    positionally and return one tensor (no generation cache)."""
    import torch
    import transformers

    config_cls, model_cls, kwargs, input_names, output_name = FAMILIES[name]
    config = getattr(transformers, config_cls)(**kwargs)
    if hasattr(config, "use_cache"):
        config.use_cache = False
    config._attn_implementation = "eager"
    torch.manual_seed(erm.SEED)
    extra = {"add_pooling_layer": False} if model_cls in POOLER_FLAG else {}
    inner = getattr(transformers, model_cls)(config, **extra).eval()
    generator = torch.Generator().manual_seed(erm.SEED + 1)
    with torch.no_grad():
        for p in inner.parameters():
            p.add_(torch.randn(p.shape, generator=generator) * erm.PERTURB)
    takes_cache_flag = "use_cache" in inspect.signature(inner.forward).parameters

    class Wrapper(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = inner

        def forward(self, *args):
            kw = dict(zip(input_names, args))
            if takes_cache_flag:
                kw["use_cache"] = False
            return getattr(self.inner(**kw, return_dict=True), output_name)

    return Wrapper().eval(), input_names, output_name


def tag(name, b, s):
    return erm.shape_tag(name, b, s)


# ---------------------------------------------------------------- ONNX side


def vendor_root():
    root = os.environ.get("AUTOFUSE_VENDOR_HEADERS") or str(REPO.parent / "shared" / "vendor" / "cann-8.1.RC1")
    return root if Path(root).is_dir() else None


SUMMARY = re.compile(r"model: .*?(\d+) kernels(?: in (\d+) launch\(es\))? \((\d+) left to the interpreter\) \| "
                     r"(\d+) boundary ops \| GM bytes .*? vs their own minimum .*?(?:\(([\d.]+)x\))? over")


def run_autofuse(model_path, runs, vendor, log_path):
    """autofuse-run on `runs` ([(input files, expected files)]); returns a result dict."""
    bin_dir = os.environ.get("AUTOFUSE_BIN_DIR") or str(REPO / "target" / "debug")
    cmd = [os.path.join(bin_dir, "autofuse-run"), "-v", str(model_path)]
    for inputs, expects in runs:
        cmd += ["--inputs", ",".join(map(str, inputs)), "--expect", ",".join(map(str, expects))]
    env = dict(os.environ)
    env.pop("AUTOFUSE_VENDOR_HEADERS", None)
    if vendor:
        env["AUTOFUSE_VENDOR_HEADERS"] = vendor
    start = time.time()
    try:
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=3600)
        out, rc = p.stdout + p.stderr, p.returncode
    except subprocess.TimeoutExpired:
        out, rc = "timeout", -1
    log_path.write_text(" ".join(cmd) + "\n" + out)
    passes = len(re.findall(r"vs expected outputs: max error .*: PASS", out))
    m = SUMMARY.search(out)
    res = {"rc": rc, "passes": passes, "runs": len(runs), "seconds": round(time.time() - start),
           "log": str(log_path)}
    if m:
        res.update(kernels=int(m[1]), launches=int(m[2] or m[1]), interpreted=int(m[3]),
                   boundary=int(m[4]), gm_ratio=float(m[5]) if m[5] else None)
    ok = rc == 0 and passes == len(runs) and "== PASS" in out and res.get("interpreted", 1) == 0
    if vendor:  # every shape must also have run and agreed on the vendor path
        res["vendor_passes"] = len(re.findall(r"vendor path: \d+ kernel\(s\) run, .*: PASS", out))
        ok &= res["vendor_passes"] == len(runs)
    res["verdict"] = "PASS" if ok else "FAIL"
    if not ok:
        errors = [line for line in out.splitlines() if "error" in line.lower() or "FAIL" in line]
        res["why"] = (errors[0] if errors else out.strip().splitlines()[-1] if out.strip() else "no output")[:200]
    return res


def onnx_side(name, exporters, use_vendor):
    import onnxruntime as ort
    import torch

    register(name)
    wrapper, input_names, _ = build(name)
    shapes = TOKEN_SHAPES
    results = {}
    arrays_at, expected_at = {}, {}
    with torch.no_grad():
        for b, s in shapes:
            arrays = erm.make_inputs(name, b, s)
            files = []
            for k in input_names:
                f = OUT / f"{name}.{tag(name, b, s)}.{k}.npy"
                np.save(f, arrays[k])
                files.append(f)
            arrays_at[(b, s)] = (arrays, files)
            expected_at[(b, s)] = wrapper(*[torch.from_numpy(arrays[k]) for k in input_names]).numpy()
    for exporter in exporters:
        path = OUT / f"{name}.{exporter}.onnx"
        try:
            if path.exists():
                path.unlink()
            erm.export(name, exporter, wrapper, input_names, FAMILIES[name][4], path)
        except Exception as e:  # torch's exporter, not ours
            results[exporter] = {"verdict": f"exporter: {type(e).__name__}: {str(e).splitlines()[0][:160] if str(e) else ''}"}
            continue
        try:
            sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        except Exception as e:
            results[exporter] = {"verdict": f"onnxruntime: {str(e).splitlines()[0][:160]}"}
            continue
        ort_inputs = [i.name for i in sess.get_inputs()]
        runs, worst = [], 0.0
        for (b, s), (arrays, files) in arrays_at.items():
            feed = {n: arrays[n] if n in arrays else arrays[input_names[i]] for i, n in enumerate(ort_inputs)}
            try:
                outs = sess.run(None, feed)
            except Exception as e:  # the exported file is invalid (the exporter's bug, not ours)
                worst = f"onnxruntime: {str(e).splitlines()[0][:160]}"
                break
            expects = []
            for i, o in enumerate(outs):
                f = OUT / f"{name}.{exporter}.{tag(name, b, s)}.output{i}.npy"
                np.save(f, o)
                expects.append(f)
            worst = max(worst, float(np.max(np.abs(outs[0].astype(np.float64) - expected_at[(b, s)]))))
            used = [files[input_names.index(n)] if n in input_names else files[i] for i, n in enumerate(ort_inputs)]
            runs.append((used, expects))
        if isinstance(worst, str):
            results[exporter] = {"verdict": worst}
            continue
        if not worst <= erm.TOLERANCE:
            results[exporter] = {"verdict": f"ort!=eager ({worst:.1e})"}
            continue
        results[exporter] = {"sim": run_autofuse(path, runs, None, OUT / f"{name}.{exporter}.sim.log")}
        if use_vendor:
            results[exporter]["vendor"] = run_autofuse(path, runs, use_vendor, OUT / f"{name}.{exporter}.vendor.log")
        verdicts = {p: r["verdict"] for p, r in results[exporter].items()}
        results[exporter]["verdict"] = "PASS" if set(verdicts.values()) == {"PASS"} else "FAIL"
    return results


# ---------------------------------------------------------------- torch.compile side


def torch_side(name, backends):
    import torch
    import torch._dynamo
    import autofuse.torch as aft
    import compile_models

    register(name)
    model, input_names, _ = build(name)

    def inputs(b, s):
        arrays = erm.make_inputs(name, b, s)
        return tuple(torch.from_numpy(arrays[k]) for k in input_names)

    results = {}
    for backend in backends:
        torch._dynamo.reset()
        aft.reset()
        try:
            compiled = torch.compile(model, backend=backend, dynamic=True)
            matches = compile_models.against_eager(name, model, compiled, inputs, TORCH_SHAPES)
        except Exception as e:
            traceback.print_exc()
            results[backend] = {"verdict": "FAIL", "why": f"{type(e).__name__}: {str(e).splitlines()[0][:160] if str(e) else ''}"}
            continue
        reports = aft.reports()
        # The report names every kernel left to torch with its reason (what the table
        # only counts).
        report_path = OUT / f"{name}.{backend}.report.txt"
        report_path.write_text(aft.report())
        res = {
            "matches_eager": matches,
            "graphs": len(reports),
            "compiled": sum(1 for r in reports if r.compiled),
            "kernels": sum(r.kernels for r in reports if r.compiled),
            "kernel_runs": sum(r.kernel_runs for r in reports),
            "fallback_calls": sum(r.fallback_calls for r in reports),
            "calls": sorted({r.calls for r in reports}),
            "report": str(report_path),
            "why": "; ".join([f"not compiled: {r.reason}" for r in reports if not r.compiled]
                             + [w for r in reports for w in r.fallback_reasons])[:200],
        }
        if backend == "autofuse-inductor":
            res["left_to_torch"] = sum(len(r.torch_ops) for r in reports)
        ok = (matches and res["graphs"] == res["compiled"] and res["graphs"] > 0
              and res["calls"] == [len(TORCH_SHAPES)] and res["fallback_calls"] == 0 and res["kernel_runs"] > 0)
        res["verdict"] = "PASS" if ok else "FAIL"
        results[backend] = res
    return results


# ---------------------------------------------------------------- table


def onnx_cell(r):
    if "sim" not in r:
        return r["verdict"]
    parts = []
    for path in ("sim", "vendor"):
        if path in r:
            x = r[path]
            cell = f"{path} {x['verdict']} {x['passes']}/{x['runs']}"
            if "interpreted" in x:
                cell += f" interp {x['interpreted']} GM {x['gm_ratio']}x L{x['launches']}+B{x['boundary']}"
            parts.append(cell)
    return "; ".join(parts)


def torch_cell(r):
    if "matches_eager" not in r:
        return f"{r['verdict']} {r.get('why', '')}"
    cell = f"{r['verdict']} eager={'ok' if r['matches_eager'] else 'DIFF'} graphs {r['compiled']}/{r['graphs']} " \
           f"kernels {r['kernels']} runs {r['kernel_runs']} torch-calls {r['fallback_calls']} calls {r['calls']}"
    if "left_to_torch" in r:
        cell += f" left {r['left_to_torch']}"
    return cell


def print_table(all_results):
    print("\n== families probe")
    print(f"{'family':<12} {'exporter/backend':<18} result (shapes passed; kernels left to the interpreter; "
          f"GM ratio vs the kernels' own minimum; launches L + boundary ops B)")
    for name, res in all_results.items():
        for exporter, r in res.get("onnx", {}).items():
            print(f"{name:<12} {exporter:<18} {onnx_cell(r)}")
            for path in ("sim", "vendor"):
                if r.get(path, {}).get("verdict") == "FAIL":
                    print(f"{'':<12} {'':<18}   {path}: {r[path].get('why', '')}")
        for backend, r in res.get("torch", {}).items():
            print(f"{name:<12} {backend:<18} {torch_cell(r)}")
        if "error" in res:
            print(f"{name:<12} {'probe':<18} {res['error']}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="comma-separated families (default: all)")
    parser.add_argument("--exporters", default="torchscript,dynamo")
    parser.add_argument("--backends", default="autofuse,autofuse-inductor")
    parser.add_argument("--skip-onnx", action="store_true")
    parser.add_argument("--skip-torch", action="store_true")
    parser.add_argument("--no-vendor", action="store_true", help="only the simulator path")
    parser.add_argument("--json", default=str(OUT / "probe.json"))
    parser.add_argument("--table", default="",
                        help="only print the table of these comma-separated result files (merged in order)")
    args = parser.parse_args()
    if args.table:
        merged = {}
        for f in args.table.split(","):
            for name, res in json.loads(Path(f).read_text()).items():
                merged.setdefault(name, {}).update(res)
        print_table(merged)
        return
    names = [n for n in args.only.split(",") if n] or list(FAMILIES)
    unknown = [n for n in names if n not in FAMILIES]
    if unknown:
        sys.exit(f"probe: unknown families {unknown}; known: {', '.join(FAMILIES)}")
    OUT.mkdir(parents=True, exist_ok=True)
    erm.OUT = OUT
    vendor = None if args.no_vendor else vendor_root()
    json_path = Path(args.json)
    all_results = json.loads(json_path.read_text()) if json_path.exists() else {}
    for name in names:
        res = all_results.setdefault(name, {})
        res.pop("error", None)
        try:
            if not args.skip_onnx:
                res["onnx"] = onnx_side(name, [e for e in args.exporters.split(",") if e], vendor)
            if not args.skip_torch:
                res["torch"] = torch_side(name, [b for b in args.backends.split(",") if b])
        except Exception as e:
            traceback.print_exc()
            res["error"] = f"{type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}"
        json_path.write_text(json.dumps(all_results, indent=1) + "\n")
        print(f"probe: {name} done: {json.dumps(res)[:600]}", flush=True)
    print_table({n: all_results[n] for n in names})


if __name__ == "__main__":
    main()
