"""Checks autofuse-run's measured GM bytes against the tiling model and the minimum.

Usage: gm_bytes_check.py REPORT.json MAX_RATIO EVAL_FILE...
One --evaluate-tiling output per run of the report, in the same order (one kernel):
every run must measure exactly the bytes the model predicts ("GM bytes (model): N"),
and the first run must stay within MAX_RATIO of the minimum.
"""
import json
import re
import sys

report = json.load(open(sys.argv[1]))
max_ratio = float(sys.argv[2])
runs = report["runs"]
evals = sys.argv[3:]
assert len(runs) == len(evals), f"{len(runs)} runs, {len(evals)} evaluations"
for i, (run, path) in enumerate(zip(runs, evals)):
    predicted = [int(m) for m in re.findall(r"GM bytes \(model\): (\d+)", open(path).read())]
    measured = run["gm_bytes"]["measured"]
    assert run["pass"], f"run {i} failed"
    assert predicted == [measured], f"run {i}: model {predicted}, emulation measured {measured}"
    print(f"run {i}: measured {measured} B = model")
first = runs[0]["gm_bytes"]
ratio = first["measured"] / first["minimum"]
assert ratio <= max_ratio, f"measured / minimum = {ratio:.4f} > {max_ratio}"
print(f"measured / minimum {ratio:.4f} <= {max_ratio}")
