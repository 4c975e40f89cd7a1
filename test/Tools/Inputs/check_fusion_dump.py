#!/usr/bin/env python3
"""Checks `autofuse-opt --dump-fusion` on every given model (.mlir, or .onnx imported first).

    check_fusion_dump.py OPT IMPORTER WORKDIR MODEL...
    check_fusion_dump.py --dump DUMPDIR FUSED.mlir   (checks a dump already written)

For each model: runs autofuse-opt with the fuse pipeline, printing the fused module and
dumping the pictures; then parses every SVG as XML and checks, against the fused module
(not against the dump's own lists), that
- every kernel called by a graph function is a node of the picture (its title),
- every boundary op (a computing `ascend` op left in a graph function) is a node,
  as many of each op as the module has,
- every edge between two of those nodes (kernels, boundary ops) is marked unfused and
  labelled with a reason code (AF-XX###); the edges of one-op kernels `--fuse` lifted
  back (label `lifted, AF-XX###`) are counted too, and need their code like any other,
- each kernel's AscGraph has its own picture.
Prints one line per model and a closing `N passed, N failed` line.
"""

import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

SOURCES = {"ascend.constant", "ascend.parameter", "ascend.symbolic_constant"}
VIEWS = {"ascend.reshape", "ascend.squeeze", "ascend.unsqueeze"}
# The runner's FRONT_PIPELINE (stages/runner/src/lib.rs), then fuse.
PIPELINE = "builtin.module(infer-symbolic-shapes,fold-matmul-operands,decompose,narrow-index-types,lower-to-ascir,fuse)"
SVG = "{http://www.w3.org/2000/svg}"
CODE = re.compile(r"AF-[A-Z]{2}\d{3}")


def fused_module(text):
    """(kernels called by graph functions, boundary op counts, kernel functions)."""
    kernel_funcs, calls, boundary = set(), [], {}
    current_is_kernel = None
    for line in text.splitlines():
        m = re.match(r"\s*func\.func (?:private )?@([\w.$-]+)\(", line)
        if m:
            current_is_kernel = "ascir.axes" in line or "ascir.launch" in line
            if current_is_kernel:
                kernel_funcs.add(m.group(1))
            continue
        if current_is_kernel is not False:
            continue
        m = re.search(r"\bcall @([\w.$-]+)\(", line)
        if m:
            calls.append(m.group(1))
            continue
        m = re.search(r'=\s*"?(ascend\.[a-z_0-9]+)"?', line)
        if m and m.group(1) not in SOURCES and m.group(1) not in VIEWS:
            boundary[m.group(1)] = boundary.get(m.group(1), 0) + 1
    kernels = [c for c in calls if c in kernel_funcs]
    # Calls of non-kernel functions are boundary ops too.
    for c in calls:
        if c not in kernel_funcs:
            boundary["call"] = boundary.get("call", 0) + 1
    return kernels, boundary, kernel_funcs


def check_svg(path, kernels, boundary):
    problems, lifted = [], 0
    root = ET.parse(path).getroot()
    nodes = {}
    for g in root.iter(SVG + "g"):
        cls = g.get("class", "")
        title = g.find(SVG + "title")
        if title is None:
            continue
        texts = [t.text or "" for t in g.iter(SVG + "text")]
        if cls == "node":
            nodes[title.text] = texts
    for k in kernels:
        if k not in nodes:
            problems.append(f"kernel {k} is not in {path.name}")
    drawn = {}
    for name, texts in nodes.items():
        if re.fullmatch(r"n\d+", name) and texts:
            op = texts[0]
            drawn[op] = drawn.get(op, 0) + 1
    want = {op: n for op, n in boundary.items() if op != "call"}
    if {op: n for op, n in drawn.items() if op.startswith("ascend.")} != want:
        problems.append(f"boundary ops drawn {sorted(drawn.items())}, the module has {sorted(want.items())}")
    computing = set(kernels) | {n for n in nodes if re.fullmatch(r"n\d+", n)}
    edges = 0
    for g in root.iter(SVG + "g"):
        if "edge" not in g.get("class", "").split():
            continue
        title = g.find(SVG + "title").text.replace("&#45;", "-")
        a, b = title.split("->")
        if a not in computing or b not in computing:
            continue
        edges += 1
        label = " ".join(t.text or "" for t in g.iter(SVG + "text"))
        if "unfused" not in g.get("class", ""):
            problems.append(f"edge {title} is not marked unfused")
        elif not CODE.search(label):
            problems.append(f"unfused edge {title} has no reason code: {label!r}")
        elif label.strip().startswith("lifted"):
            lifted += 1
    return problems, edges, lifted


def check_dump(dump, fused):
    """The problems of the dump in `dump` of the fused module `fused`, its kernel count,
    unfused edges and those of lifted ops."""
    problems = []
    kernels, boundary, _ = fused_module(fused.read_text())
    svgs = [p for p in dump.glob("*.svg") if not p.name.startswith("kernel-")]
    if not svgs:
        problems.append("no graph picture")
    edges = lifted = 0
    for svg in svgs:
        p, e, l = check_svg(svg, kernels, boundary)
        problems += p
        edges += e
        lifted += l
    pictures = len(list(dump.glob("kernel-*.svg")))
    if pictures != len(set(kernels)):
        problems.append(f"{pictures} kernel pictures for {len(set(kernels))} kernels")
    return problems, len(set(kernels)), edges, lifted


def report(name, problems, kernels, edges, lifted):
    if problems:
        print(f"FAIL {name}: " + "; ".join(problems))
    else:
        print(f"ok {name}: {kernels} kernels, {edges} unfused edges ({lifted} of lifted ops)")
    return not problems


def main():
    if sys.argv[1] == "--dump":
        dump, fused = Path(sys.argv[2]), Path(sys.argv[3])
        return 0 if report(dump.name, *check_dump(dump, fused)) else 1
    opt, importer, out = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
    passed = failed = 0
    for model in sys.argv[4:]:
        model = Path(model)
        name = model.name.replace(".", "_")
        work = out / name
        work.mkdir(parents=True, exist_ok=True)
        source = model
        if model.suffix == ".onnx":
            source = work / "model.mlir"
            subprocess.run([importer, model, "-q", "-o", source], check=True)
        fused = work / "fused.mlir"
        run = subprocess.run(
            [opt, source, f"--pass-pipeline={PIPELINE}", f"--dump-fusion={work / 'dump'}", "-o", fused],
            capture_output=True, text=True)
        if run.returncode != 0:
            problems = [f"autofuse-opt exit {run.returncode}: {run.stderr.strip()[-300:]}"]
            result = (problems, 0, 0, 0)
        else:
            result = check_dump(work / "dump", fused)
        if report(model.name, *result):
            passed += 1
        else:
            failed += 1
    print(f"dump-fusion: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
