"""Compiles models with torch.compile(backend="autofuse", dynamic=True) (or
backend="autofuse-inductor" with --backend), runs each at two
shapes against eager, and prints one line per model and shape plus autofuse's report.

Models: small blocks written here (mlp, attention, convnet: a ResNet stem), a vision transformer (vit: a conv
patch embedding; batch dynamic) and the committed transformer families' configs (examples/onnx/export_real_models.py: bert, gpt2, llama, qwen2,
gptneox). A model passes when every output matches eager (IEEE comparison: an inf or NaN
matches only the same inf or NaN), its graphs compiled exactly once for both shapes, and
its kernels ran on the emulation (no call fell back to torch). Exit status 1 otherwise.
"""

import argparse
import math
import sys
from pathlib import Path

import torch
import torch._dynamo

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO / "examples" / "onnx"))

import autofuse.torch as aft  # noqa: E402  (registers the backend)

TOLERANCE = 1e-4


class Mlp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.up = torch.nn.Linear(16, 64)
        self.down = torch.nn.Linear(64, 16)
        self.norm = torch.nn.LayerNorm(16)

    def forward(self, x):
        h = torch.nn.functional.gelu(self.up(x))
        return self.norm(self.down(h) + x)


class Attention(torch.nn.Module):
    def __init__(self, heads=4, width=32):
        super().__init__()
        self.heads = heads
        self.qkv = torch.nn.Linear(width, 3 * width)
        self.out = torch.nn.Linear(width, width)

    def forward(self, x, mask):
        b, s, w = x.shape
        q, k, v = self.qkv(x).split(w, dim=-1)
        q = q.view(b, s, self.heads, w // self.heads).transpose(1, 2)
        k = k.view(b, s, self.heads, w // self.heads).transpose(1, 2)
        v = v.view(b, s, self.heads, w // self.heads).transpose(1, 2)
        scores = q @ k.transpose(-1, -2) / math.sqrt(w // self.heads)
        scores = scores.masked_fill(mask[:, None, None, :] == 0, -1e9)
        y = torch.softmax(scores, dim=-1) @ v
        return self.out(y.transpose(1, 2).reshape(b, s, w))


def block_model(name):
    torch.manual_seed(0)
    if name == "mlp":
        model = Mlp().eval()

        def inputs(b, s):
            g = torch.Generator().manual_seed(b * 100 + s)
            return (torch.randn(b, s, 16, generator=g),)

        return model, inputs
    model = Attention().eval()

    def inputs(b, s):
        g = torch.Generator().manual_seed(b * 100 + s)
        mask = torch.ones(b, s, dtype=torch.int64)
        mask[0, s // 2:] = 0
        return torch.randn(b, s, 32, generator=g), mask

    return model, inputs


def vit_model():
    """A vision transformer (a conv patch embedding): the batch is dynamic, the image
    size fixed by the config."""
    import transformers

    torch.manual_seed(0)
    config = transformers.ViTConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                                    intermediate_size=64, image_size=32, patch_size=8)
    inner = transformers.ViTModel(config, add_pooling_layer=False).eval()

    class Wrapper(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = inner

        def forward(self, pixels):
            return self.inner(pixel_values=pixels).last_hidden_state

    def inputs(b, s):
        g = torch.Generator().manual_seed(b * 100 + s)
        return (torch.randn(b, 3, 32, 32, generator=g),)

    return Wrapper().eval(), inputs


class ConvNet(torch.nn.Module):
    """A ResNet stem and one strided block: conv 7x7 stride 2, batch norm (eval), ReLU,
    a padded 3x3 max pool stride 2, conv 3x3 stride 2, batch norm, ReLU. The image size
    is dynamic, so every size after a strided window is a floor division of it."""

    def __init__(self):
        super().__init__()
        self.stem = torch.nn.Conv2d(3, 8, 7, stride=2, padding=3, bias=False)
        self.norm = torch.nn.BatchNorm2d(8)
        self.pool = torch.nn.MaxPool2d(3, stride=2, padding=1)
        self.conv = torch.nn.Conv2d(8, 8, 3, stride=2, padding=1, bias=False)
        self.norm2 = torch.nn.BatchNorm2d(8)

    def forward(self, x):
        h = self.pool(torch.relu(self.norm(self.stem(x))))
        return torch.relu(self.norm2(self.conv(h)))


def convnet_model():
    """ConvNet with seeded weights and running statistics; (b, s) is the batch and half
    the image side."""
    torch.manual_seed(0)
    model = ConvNet().eval()
    with torch.no_grad():
        for norm in (model.norm, model.norm2):
            norm.running_mean.uniform_(-0.5, 0.5)
            norm.running_var.uniform_(0.5, 1.5)

    def inputs(b, s):
        g = torch.Generator().manual_seed(b * 100 + s)
        return (torch.randn(b, 3, 2 * s, 2 * s, generator=g),)

    return model, inputs


def family_model(name):
    import export_real_models as erm

    _, wrapper, input_names, _ = erm.build(name)

    def inputs(b, s):
        arrays = erm.make_inputs(name, b, s)
        return tuple(torch.from_numpy(arrays[k]) for k in input_names)

    return wrapper, inputs


def max_error(got, want):
    """The largest error relative to max(1, |want|); inf when a non-finite value does not
    match exactly (inf only equals the same inf, NaN only NaN)."""
    got, want = got.double(), want.double()
    if got.shape != want.shape:
        return math.inf
    finite = torch.isfinite(want)
    same_special = (got == want) | (torch.isnan(got) & torch.isnan(want))
    if not bool(torch.all(same_special | finite)):
        return math.inf
    if not bool(torch.all(torch.isfinite(got[finite]))):
        return math.inf
    if finite.sum() == 0:
        return 0.0
    err = (got[finite] - want[finite]).abs() / want[finite].abs().clamp(min=1.0)
    return float(err.max())


def against_eager(name, model, compiled, inputs, shapes) -> bool:
    """Runs `compiled` and `model` at each (batch, seq) of `shapes`, prints one line per
    shape and returns whether every error is within TOLERANCE."""
    ok = True
    for b, s in shapes:
        args = inputs(b, s)
        with torch.no_grad():
            want = model(*args)
            got = compiled(*args)
        err = max_error(got, want)
        verdict = "PASS" if err <= TOLERANCE else "FAIL"
        ok &= verdict == "PASS"
        print(f"{name} b{b}s{s}: max error {err:.3e}: {verdict}")
    return ok


def run(name, shapes, backend="autofuse"):
    if name in ("mlp", "attention"):
        model, inputs = block_model(name)
    elif name == "vit":
        model, inputs = vit_model()
    elif name == "convnet":
        model, inputs = convnet_model()
    else:
        model, inputs = family_model(name)
    torch._dynamo.reset()
    aft.reset()
    compiled = torch.compile(model, backend=backend, dynamic=True)
    ok = against_eager(name, model, compiled, inputs, shapes)
    reports = aft.reports()
    compiled_graphs = [r for r in reports if r.compiled]
    fallbacks = sum(r.fallback_calls for r in reports)
    kernel_runs = sum(r.kernel_runs for r in reports)
    kernels = sum(r.kernels for r in compiled_graphs)
    print(f"{name}: graphs {len(reports)}, compiled {len(compiled_graphs)}, kernels {kernels}, "
          f"kernel runs {kernel_runs}, calls on torch {fallbacks}")
    if backend == "autofuse-inductor":
        # Route 2: Inductor kernels autofuse cannot express run with torch, each named
        # with its reason in the report; the model still needs kernels of ours run.
        left = sum(len(r.torch_ops) for r in reports)
        runs = sum(r.torch_kernel_runs for r in reports)
        print(f"{name}: Inductor kernels left to torch {left}, their runs {runs}")
    for r in reports:
        if not r.compiled:
            print(f"{name}: graph {r.name} not compiled: {r.reason}")
            ok = False
    calls = {r.calls for r in reports}
    if calls != {len(shapes)}:
        print(f"{name}: a graph compiled more than once or not called every time: calls {sorted(calls)}")
        ok = False
    if fallbacks or kernel_runs == 0:
        for r in reports:
            for why in r.fallback_reasons:
                print(f"{name}: fell back: {why}")
        ok = False
    sys.stdout.write(aft.report())
    return ok


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", default="mlp,attention")
    parser.add_argument("--shapes", default="2x8,3x13")
    parser.add_argument("--backend", default="autofuse", choices=["autofuse", "autofuse-inductor"],
                        help="autofuse's fusion of the ATen graph, or Inductor's fusion with autofuse's kernels")
    args = parser.parse_args()
    shapes = [tuple(int(v) for v in s.split("x")) for s in args.shapes.split(",")]
    ok = True
    for name in args.models.split(","):
        ok &= run(name, shapes, args.backend)
    print("== PASS" if ok else "== FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
