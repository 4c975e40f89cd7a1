#!/usr/bin/env python3
"""Real-size benchmark: compile cost against weight bytes (issue 37).

For LLaMA-pattern models written by scripts/make_real_size_model.py (seeded weights as
external data under target/real-size/, never committed) at hidden 64, 1024, 2048 and
4096 with one and two layers, and a LLaMA-7B-shaped model (32 layers, hidden 4096,
intermediate 11008, f16, a sparse weight file that costs no disk), measures time and
peak RSS of each stage with the release tools, each as its own process:

- import: `autofuse-import-onnx model.onnx -o model.mlir`;
- pipeline: `autofuse-opt` with the compile pipeline and `--mlir-timing` (each pass);
- translation: `autofuse-translate --mlir-to-ascendc` of the tiled module;
- build + run: `autofuse-run` at (batch 1, seq 128) against onnxruntime's logits, with
  an empty kernel cache (build, emulate, reference, compare), then again with the cache
  warm (everything but the g++ builds); the build is their difference.

The 7B-shaped model is compiled, not run. Writes docs/benchmarks/real_size.md.

    bash bench/real_size.sh          # creates .venv with onnx, numpy, onnxruntime
"""

import argparse
import re
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
WORK = REPO / "target" / "real-size"
PIPELINE = (
    "builtin.module(infer-symbolic-shapes,decompose,narrow-index-types,"
    "lower-to-ascir{remarks=false},fuse{remarks=false},sink-constants,schedule,"
    "auto-tiling{remarks=false},group-launches)"
)


def timed(cmd, **kw):
    """Runs cmd; returns (seconds, peak RSS in MiB of the child, stdout, stderr)."""
    wrapped = ["/usr/bin/time", "-f", "%e %M"] + [str(c) for c in cmd]
    start = time.perf_counter()
    p = subprocess.run(wrapped, capture_output=True, text=True, **kw)
    wall = time.perf_counter() - start
    last = p.stderr.strip().splitlines()[-1] if p.stderr.strip() else ""
    m = re.fullmatch(r"([\d.]+) (\d+)", last)
    if p.returncode != 0 or not m:
        sys.stderr.write(p.stdout[-3000:] + p.stderr[-3000:])
        raise SystemExit(f"failed: {' '.join(map(str, cmd))}")
    return wall, int(m.group(2)) / 1024, p.stdout, p.stderr


def pass_times(stderr):
    times = {}
    for line in stderr.splitlines():
        m = re.match(r"\s+([\d.]+) \(\s*[\d.]+%\)\s+(\S+)$", line)
        if m and m.group(2) not in ("Total", "Rest"):
            times[m.group(2)] = float(m.group(1))
    return times


def model(name, hidden, layers, extra, reference):
    onnx_path = WORK / f"{name}.onnx"
    args = [sys.executable, REPO / "scripts" / "make_real_size_model.py", "--hidden", hidden,
            "--layers", layers, "--out", onnx_path] + extra
    if reference:
        args += ["--reference", "1x128"]
    subprocess.run([str(a) for a in args], check=True, capture_output=True)
    return onnx_path


def measure(bin_dir, name, hidden, layers, extra=(), run=True):
    onnx_path = model(name, hidden, layers, list(extra), run)
    data = Path(str(onnx_path) + ".data")
    row = {"name": name, "hidden": hidden, "layers": layers, "weights": data.stat().st_size}
    mlir = WORK / f"{name}.mlir"
    tiled = WORK / f"{name}.tiled.mlir"
    row["import"] = timed([bin_dir / "autofuse-import-onnx", onnx_path, "-o", mlir, "-q"])[:2]
    wall, rss, _, err = timed([bin_dir / "autofuse-opt", mlir, f"--pass-pipeline={PIPELINE}",
                               "--mlir-timing", "-o", tiled])
    row["pipeline"] = (wall, rss)
    row["passes"] = pass_times(err)
    out = WORK / f"{name}.ascendc"
    shutil.rmtree(out, ignore_errors=True)
    row["translate"] = timed([bin_dir / "autofuse-translate", tiled, "--mlir-to-ascendc", "-o", out])[:2]
    if run:
        stem = WORK / name
        cache = WORK / f"{name}.cache"
        shutil.rmtree(cache, ignore_errors=True)
        cmd = [bin_dir / "autofuse-run", onnx_path, "--cache-dir", cache,
               "--inputs", f"{stem}.b1s128.input_ids.npy", "--expect", f"{stem}.b1s128.output0.npy"]
        cold = timed(cmd)
        warm = timed(cmd)
        if "== PASS" not in warm[2] or "== PASS" not in cold[2]:
            raise SystemExit(f"{name}: the run did not pass:\n{warm[2][-2000:]}")
        row["run_cold"], row["run_warm"] = cold[:2], warm[:2]
        m = re.search(r"vs expected outputs: max error (\S+): PASS", warm[2])
        row["error"] = m.group(1) if m else "?"
    print(f"{name}: {row}", file=sys.stderr)
    return row


def mib(b):
    return f"{b / 2**20:,.0f} MiB" if b >= 2**20 else f"{b / 1024:,.0f} KiB"


def write(rows, seven_b, out):
    lines = [
        "# Real-size models: compile cost against weight bytes",
        "",
        "Written by `bash bench/real_size.sh` (`bench/real_size.py`, release build, this machine: 2 cores).",
        "Models: `scripts/make_real_size_model.py` (the LLaMA pattern of the committed dynamo",
        "exports: RMSNorm, rotary halves, grouped-query attention with 4x repeated K/V heads, causal",
        "mask, SwiGLU; heads = hidden/128, intermediate 2.75 x hidden, vocab 512, f32, seeded",
        "weights as external data). Each stage is its own process; RSS is the peak resident set",
        "of that process (mapped weight pages included while resident). Weights are held by",
        "reference (`ascend.parameter`, docs/design.md \"Weights by reference\").",
        "",
        "## Compile: import, pipeline, translation",
        "",
        "| model | weights | import s | import RSS | pipeline s | pipeline RSS | translate s | translate RSS |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows + [seven_b]:
        lines.append(
            f"| {r['name']} | {mib(r['weights'])} | {r['import'][0]:.2f} | {r['import'][1]:.0f} MiB | "
            f"{r['pipeline'][0]:.2f} | {r['pipeline'][1]:.0f} MiB | {r['translate'][0]:.2f} | {r['translate'][1]:.0f} MiB |")
    lines += ["", "Ratios at equal layer count (hidden 4096 over hidden 64, same run):", ""]
    for layers in (1, 2):
        small = next(r for r in rows if r["hidden"] == 64 and r["layers"] == layers)
        big = next(r for r in rows if r["hidden"] == 4096 and r["layers"] == layers)
        compile_small = small["import"][0] + small["pipeline"][0]
        compile_big = big["import"][0] + big["pipeline"][0]
        lines.append(
            f"- {layers} layer(s): weights {big['weights'] / small['weights']:,.0f}x; import + pipeline time "
            f"{compile_big / compile_small:.2f}x; peak RSS of import and pipeline "
            f"{max(big['import'][1], big['pipeline'][1]) / max(small['import'][1], small['pipeline'][1]):.2f}x.")
    s = seven_b
    lines += [
        f"- LLaMA-7B-shaped ({mib(s['weights'])} of f16 weights, sparse file): import + pipeline "
        f"{s['import'][0] + s['pipeline'][0]:.1f} s, peak RSS {max(s['import'][1], s['pipeline'][1]):.0f} MiB.",
        "",
        "## Each pass (seconds, `--mlir-timing`)",
        "",
    ]
    names = list(rows[0]["passes"])
    lines.append("| model | " + " | ".join(names) + " |")
    lines.append("|---|" + "---:|" * len(names))
    for r in rows + [seven_b]:
        lines.append(f"| {r['name']} | " + " | ".join(f"{r['passes'].get(n, 0):.3f}" for n in names) + " |")
    lines += [
        "",
        "## Run at (batch 1, seq 128): build, emulate, reference, compare",
        "",
        "`autofuse-run` on the `.onnx` with onnxruntime's logits as `--expect`; cold = empty kernel",
        "cache (g++ builds included), warm = the same command again (compile, emulation of every",
        "kernel, the reference interpreter's run with the boundary matmuls as dgemm, the",
        "comparisons). Build = cold - warm.",
        "",
        "Peak RSS of the warm run is autofuse-run's own (a process of about 90 MiB before any",
        "weight); the cold run's includes the largest g++ it waited for.",
        "",
        "| model | weights | cold s | warm s | build s | warm peak RSS | RSS / weights | cold peak RSS | max error vs onnxruntime |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        rss = r["run_warm"][1]
        lines.append(
            f"| {r['name']} | {mib(r['weights'])} | {r['run_cold'][0]:.1f} | {r['run_warm'][0]:.1f} | "
            f"{r['run_cold'][0] - r['run_warm'][0]:.1f} | {rss:.0f} MiB | "
            f"{rss * 2**20 / r['weights']:.2f} | {r['run_cold'][1]:.0f} MiB | {r['error']} |")
    notes = REPO / "bench" / "findings" / "real_size.md"
    if notes.exists():
        lines += ["", notes.read_text().rstrip()]
    out.write_text("\n".join(lines) + "\n")
    print(f"wrote {out}", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin-dir", default=str(REPO / "target" / "release"))
    ap.add_argument("--out", default=str(REPO / "docs" / "benchmarks" / "real_size.md"))
    ap.add_argument("--from-log", help="rewrite the table from the rows a previous run printed")
    args = ap.parse_args()
    if args.from_log:
        import ast

        rows = [ast.literal_eval(line.split(": ", 1)[1]) for line in Path(args.from_log).read_text().splitlines()
                if re.match(r"llama\w*: \{", line)]
        write([r for r in rows if "run_warm" in r], next(r for r in rows if "run_warm" not in r), Path(args.out))
        return
    WORK.mkdir(parents=True, exist_ok=True)
    bin_dir = Path(args.bin_dir)
    rows = []
    for layers in (1, 2):
        for hidden in (64, 1024, 2048, 4096):
            extra = ["--heads", "4", "--kv-heads", "1"] if hidden == 64 else []
            rows.append(measure(bin_dir, f"llama_h{hidden}_l{layers}", hidden, layers, extra))
    seven_b = measure(bin_dir, "llama7b_shaped", 4096, 32,
                      ["--intermediate", "11008", "--heads", "32", "--kv-heads", "32",
                       "--vocab", "32000", "--max-pos", "4096", "--dtype", "f16", "--sparse"], run=False)
    write(rows, seven_b, Path(args.out))
    # Generated weights are large: keep only the models' small files.
    for data in WORK.glob("llama_h*_l*.onnx.data"):
        data.unlink()


if __name__ == "__main__":
    main()
