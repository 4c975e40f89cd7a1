"""Checks autofuse-run's measured GM bytes against the tiling model and the minimum.

Usage: gm_bytes_check.py [--minimum=KEY] [--every-run] REPORT.json MAX_RATIO EVAL_FILE...
One --evaluate-tiling output per run of the report, in the same order (one kernel):
every run must measure exactly the bytes the model predicts ("GM bytes (model): N"),
and the first run (every run with --every-run) must stay within MAX_RATIO of the
minimum (the report's gm_bytes KEY, default "minimum": the whole graph's inputs and
outputs; "kernels_per_core_minimum" counts what each core must read).
"""
import json
import re
import sys

flags = [a for a in sys.argv[1:] if a.startswith("--")]
args = [a for a in sys.argv[1:] if not a.startswith("--")]
key = "minimum"
every_run = False
for flag in flags:
    if flag.startswith("--minimum="):
        key = flag.split("=", 1)[1]
    elif flag == "--every-run":
        every_run = True
    else:
        sys.exit(f"unknown flag {flag}")
report = json.load(open(args[0]))
max_ratio = float(args[1])
runs = report["runs"]
evals = args[2:]
assert len(runs) == len(evals), f"{len(runs)} runs, {len(evals)} evaluations"
for i, (run, path) in enumerate(zip(runs, evals)):
    predicted = [int(m) for m in re.findall(r"GM bytes \(model\): (\d+)", open(path).read())]
    measured = run["gm_bytes"]["measured"]
    assert run["pass"], f"run {i} failed"
    assert predicted == [measured], f"run {i}: model {predicted}, emulation measured {measured}"
    print(f"run {i}: measured {measured} B = model")
for run in runs if every_run else runs[:1]:
    gm = run["gm_bytes"]
    ratio = gm["measured"] / gm[key]
    assert ratio <= max_ratio, f"measured / {key} = {ratio:.4f} > {max_ratio}"
    print(f"measured / {key} {ratio:.4f} <= {max_ratio}")
