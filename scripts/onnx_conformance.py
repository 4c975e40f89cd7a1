#!/usr/bin/env python3
"""ONNX backend node conformance of autofuse (run by scripts/onnx-conformance.sh).

1. Writes out the ONNX backend node test cases with the `onnx` package
   (`onnx.backend.test.case.node.collect_testcases()`): per case `model.onnx` and
   `test_data_set_0/{input,output}_<j>.pb`, converted to `.npy` with `onnx.numpy_helper`.
2. Decides applicability: a case is applicable when every node is a default-domain
   operator the importer covers (`autofuse-import-onnx --list-ops`) and every tensor of
   the graph has an element type the compiler supports. Others are counted as not
   applicable with the reason (uncovered op, element type, non-tensor value).
3. Runs each applicable case: `autofuse-import-onnx` -> `autofuse-opt
   --infer-symbolic-shapes --decompose --narrow-index-types --lower-to-ascir [--fuse]` (the lowered module is
   kept) -> `autofuse-opt --interpret` of the lowered module on the case's inputs (fused
   kernels run by the AscIR interpreter, boundary ops by the Ascend IR interpreter) and,
   when `autofuse-run` exists and takes `--input`/`--output-dir`, through it as well
   (emulated Ascend C; with `$AUTOFUSE_VENDOR_HEADERS` set, also built against the vendor's
   headers and run; a kernel left to the interpreter keeps the case from counting as
   emulated). Outputs are compared with the expected ones using the suite's
   tolerances (rtol 1e-3, atol 1e-7, and never below 2 ulps of a half-precision output's
   format: rtol 2e-3 for f16, 1.6e-2 for bf16; exact for integers and booleans).
4. A passed case "ran as kernels" when its lowered graph function holds no `ascend` op
   other than constants, i.e. every op became an AscGraph call (fused kernels are not
   lifted back to graph ops: `--fuse=lifting=false`); otherwise the ops left (matmul,
   which is a boundary by design, or ops without a lowering) are listed and the pass is
   a fallback.
5. Writes `docs/onnx-conformance.md` and `<work>/results.json`; exits 1 when an
   applicable case fails.
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import onnx
from onnx import numpy_helper

REPO = Path(__file__).resolve().parent.parent
RTOL, ATOL = 1e-3, 1e-7
SUPPORTED_TYPES = {
    onnx.TensorProto.FLOAT,
    onnx.TensorProto.FLOAT16,
    onnx.TensorProto.BFLOAT16,
    onnx.TensorProto.INT64,
    onnx.TensorProto.INT32,
    onnx.TensorProto.INT16,
    onnx.TensorProto.INT8,
    onnx.TensorProto.UINT8,
    onnx.TensorProto.BOOL,
}
# The family of `_expanded` cases whose tested operator is not covered but whose function
# body uses covered operators only.
EXPANDED_FAMILY = "expanded (other ops)"
# autofuse-run also builds and runs every kernel against the vendor's Ascend C headers
# when this names them (the second Ascend C path).
VENDOR_ENV = "AUTOFUSE_VENDOR_HEADERS"

# Operand positions that the compiler needs as constants (axes, shapes, slice bounds,
# split sizes). The test cases feed some of them as graph inputs; the runner binds
# those inputs to the case's values as initializers (the compiler specializes on them,
# as a deployment does).
SHAPE_OPERANDS = {
    "Reshape": [1],
    "Unsqueeze": [1],
    "Squeeze": [1],
    "Expand": [1],
    "Slice": [1, 2, 3, 4],
    "Split": [1],
    "ConstantOfShape": [0],
    "Tile": [1],
    "Pad": [1, 2, 3],
    "CenterCropPad": [1],
    "HannWindow": [0],
    "HammingWindow": [0],
    "BlackmanWindow": [0],
    "CumSum": [1],
    "CumProd": [1],
    "Range": [0, 1, 2],
    "Trilu": [1],
    "OneHot": [1],
    "Resize": [1, 2, 3],
    **{
        op: [1]
        for op in [
            "ReduceSum",
            "ReduceMean",
            "ReduceMax",
            "ReduceMin",
            "ReduceProd",
            "ReduceL1",
            "ReduceL2",
            "ReduceLogSum",
            "ReduceLogSumExp",
            "ReduceSumSquare",
        ]
    },
}


def run(cmd: list[str], timeout: int = 120) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(cmd, 124, "", f"timed out after {timeout}s")


# ---------------------------------------------------------------------------------
# Writing the cases
# ---------------------------------------------------------------------------------


def to_proto(value, name: str) -> onnx.TensorProto | None:
    if isinstance(value, onnx.TensorProto):
        return value
    if isinstance(value, np.ndarray) or np.isscalar(value):
        return numpy_helper.from_array(np.asarray(value), name)
    return None  # sequences, maps, optionals


def write_cases(out: Path) -> list[dict]:
    """Writes every node test case; returns their descriptions."""
    import warnings

    import onnx.backend.test.case.node as node_cases

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cases = node_cases.collect_testcases()
    if out.exists():
        shutil.rmtree(out)
    described = []
    for case in cases:
        directory = out / case.name
        data = directory / "test_data_set_0"
        data.mkdir(parents=True)
        (directory / "model.onnx").write_bytes(case.model.SerializeToString())
        inputs, outputs = case.data_sets[0]
        tensor_data = True
        for kind, values in (("input", inputs), ("output", outputs)):
            for j, value in enumerate(values):
                proto = to_proto(value, f"{kind}_{j}")
                if proto is None:
                    tensor_data = False
                    continue
                (data / f"{kind}_{j}.pb").write_bytes(proto.SerializeToString())
        described.append(
            {
                "name": case.name,
                "rtol": getattr(case, "rtol", RTOL),
                "atol": getattr(case, "atol", ATOL),
                "tensor_data": tensor_data,
            }
        )
    return described


def freeze_shape_inputs(model: onnx.ModelProto, inputs: list[Path]) -> tuple[onnx.ModelProto, list[Path], list[str]]:
    """Turns graph inputs that feed shape operands into initializers holding the case's
    values; returns the model, the remaining input files and the frozen names."""
    names = [vi.name for vi in model.graph.input]
    producer = {out: node for node in model.graph.node for out in node.output}
    # Graph inputs a shape operand is computed from (a window length cast to the Range
    # limit), found by walking the producers back from every shape operand.
    wanted = set()
    pending = [
        node.input[position]
        for node in model.graph.node
        for position in SHAPE_OPERANDS.get(node.op_type, [])
        if position < len(node.input) and node.input[position]
    ]
    seen = set()
    while pending:
        value = pending.pop()
        if value in seen:
            continue
        seen.add(value)
        if value in names:
            wanted.add(value)
        elif value in producer and producer[value].op_type not in ("Shape", "Size"):
            # Shape and Size read only their input's dims, never its values.
            pending.extend(i for i in producer[value].input if i)
    if not wanted:
        return model, inputs, []
    frozen = onnx.ModelProto()
    frozen.CopyFrom(model)
    del frozen.graph.input[:]
    remaining = []
    for vi, path in zip(model.graph.input, inputs):
        if vi.name in wanted:
            tensor = numpy_helper.from_array(np.load(path), vi.name)
            declared = vi.type.tensor_type.elem_type
            if declared in (onnx.TensorProto.BFLOAT16, onnx.TensorProto.FLOAT16) and tensor.data_type != declared:
                # The .npy holds half-precision values widened to float32 (numpy has no
                # bfloat16): store them in the declared type again.
                values = np.load(path).astype(np.float32)
                tensor = onnx.helper.make_tensor(vi.name, declared, values.shape, values.flatten().tolist())
            frozen.graph.initializer.append(tensor)
        else:
            frozen.graph.input.append(vi)
            remaining.append(path)
    return frozen, remaining, sorted(wanted)


def pb_to_npy(directory: Path) -> dict[str, list[Path]]:
    """Converts `test_data_set_0/*.pb` to `.npy` (bf16 as f32, the compiler's npy form)."""
    files: dict[str, list[Path]] = {"input": [], "output": []}
    data = directory / "test_data_set_0"
    for kind in files:
        j = 0
        while (data / f"{kind}_{j}.pb").exists():
            proto = onnx.TensorProto()
            proto.ParseFromString((data / f"{kind}_{j}.pb").read_bytes())
            array = numpy_helper.to_array(proto)
            if proto.data_type == onnx.TensorProto.BFLOAT16:
                array = array.astype(np.float32)
            path = data / f"{kind}_{j}.npy"
            np.save(path, array)
            files[kind].append(path)
            j += 1
    return files


# ---------------------------------------------------------------------------------
# Applicability
# ---------------------------------------------------------------------------------


def covered_ops(importer: str) -> dict[str, str]:
    listed = run([importer, "--list-ops"])
    if listed.returncode != 0:
        sys.exit(f"onnx-conformance: '{importer} --list-ops' failed: {listed.stderr}")
    ops = {}
    for line in listed.stdout.splitlines():
        family, op = line.split()
        ops[op] = family
    return ops


def tensor_types(model: onnx.ModelProto):
    g = model.graph
    for vi in list(g.input) + list(g.output):
        yield vi.name, vi.type
    for init in g.initializer:
        yield init.name, onnx.helper.make_tensor_type_proto(init.data_type, None)


def node_attr_types(model: onnx.ModelProto):
    """Element types named by Cast/Constant nodes (inner values of the graph)."""
    for node in model.graph.node:
        for a in node.attribute:
            if node.op_type == "Cast" and a.name == "to":
                yield a.i
            if a.type == onnx.AttributeProto.TENSOR:
                yield a.t.data_type


def base_op(name: str, single_op: dict[str, str]) -> str | None:
    """The operator a case tests: its node, or for an `_expanded` (function body)
    case the node of the case it expands."""
    if name in single_op:
        return single_op[name]
    base = re.sub(r"_expanded(_ver\d+)?$", "", name)
    return single_op.get(base)


def classify(cases: list[dict], root: Path, covered: dict[str, str]) -> None:
    models = {}
    single_op = {}
    for case in cases:
        model = onnx.load(root / case["name"] / "model.onnx")
        models[case["name"]] = model
        nodes = [n for n in model.graph.node]
        if not re.search(r"_expanded(_ver\d+)?$", case["name"]) and len(nodes) >= 1:
            single_op[case["name"]] = nodes[0].op_type
    for case in cases:
        model = models[case["name"]]
        ops = [n.op_type if n.domain in ("", "ai.onnx") else f"{n.domain}.{n.op_type}" for n in model.graph.node]
        case["ops"] = sorted(set(ops))
        case["opset"] = next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), None)
        op = base_op(case["name"], single_op) or (ops[0] if ops else "?")
        case["op"] = op
        case["family"] = covered.get(op)
        reasons = []
        missing = sorted({o for o in ops if o not in covered})
        if missing:
            reasons.append("ops not covered: " + ", ".join(missing))
        for name, t in tensor_types(model):
            kind = t.WhichOneof("value")
            if kind != "tensor_type":
                reasons.append(f"'{name}' is a {kind}")
            elif t.tensor_type.elem_type not in SUPPORTED_TYPES:
                reasons.append(
                    "element type " + onnx.TensorProto.DataType.Name(t.tensor_type.elem_type)
                )
        for code in node_attr_types(model):
            if code not in SUPPORTED_TYPES:
                reasons.append("element type " + onnx.TensorProto.DataType.Name(code))
        if not case["tensor_data"]:
            reasons.append("non-tensor test data")
        for n in model.graph.node:
            # Dropout with a training_mode input draws random masks: outside the
            # inference graphs autofuse compiles (the importer refuses it).
            if n.op_type == "Dropout" and len(n.input) >= 3 and n.input[2]:
                reasons.append("Dropout in training mode (random masks)")
            # BatchNormalization in training mode computes batch statistics and updates
            # running ones: outside inference graphs (the importer refuses it).
            if n.op_type == "BatchNormalization" and (
                any(a.name == "training_mode" and a.i != 0 for a in n.attribute)
                or sum(1 for o in n.output if o) > 1
            ):
                reasons.append("BatchNormalization in training mode (batch statistics)")
            # MaxPool's second output (the flat argmax indices) is not covered: the
            # importer leaves such a node to a boundary call.
            if n.op_type == "MaxPool" and len(n.output) >= 2 and n.output[1]:
                reasons.append("MaxPool with its Indices output (not covered)")
        case["reasons"] = sorted(set(reasons))
        if case["family"] is None and not reasons:
            # The function body of an uncovered operator (Attention, RotaryEmbedding,
            # GroupNormalization, ...) written with covered operators only.
            case["family"] = EXPANDED_FAMILY
        case["applicable"] = not reasons and case["family"] is not None


# ---------------------------------------------------------------------------------
# Running
# ---------------------------------------------------------------------------------


# 2 ulps of each half-precision format, relative (f16: 2 * 2^-10, bf16: 2 * 2^-7).
HALF_RTOL = {"float16": 2e-3, "bfloat16": 1.6e-2}


def compare(expected: np.ndarray, actual: np.ndarray, rtol: float, atol: float, declared: int = 0) -> str | None:
    if expected.shape != actual.shape:
        return f"shape {list(actual.shape)}, expected {list(expected.shape)}"
    if expected.dtype.kind in "fc" or expected.dtype.name == "bfloat16":
        # Half-precision results that round at other points of the computation (one
        # rounding of a fused f32 softmax against the reference's per-op roundings)
        # differ by an ulp or two of the format: compare within 2 ulps.
        # The .npy files hold bfloat16 widened to float32: the declared type decides.
        name = {onnx.TensorProto.FLOAT16: "float16", onnx.TensorProto.BFLOAT16: "bfloat16"}.get(
            declared, expected.dtype.name
        )
        rtol = max(rtol, HALF_RTOL.get(name, 0.0))
        e = expected.astype(np.float64)
        a = actual.astype(np.float64)
        try:
            np.testing.assert_allclose(a, e, rtol=rtol, atol=atol)
        except AssertionError as err:
            lines = [l for l in str(err).splitlines() if l.strip()]
            return " ".join(lines[1:4])[:300]
        return None
    if not np.array_equal(expected.astype(np.int64), actual.astype(np.int64)):
        bad = int(np.sum(expected.astype(np.int64) != actual.astype(np.int64)))
        return f"{bad} of {expected.size} elements differ"
    return None


def lowered_leftovers(mlir: str) -> list[str]:
    """`ascend` ops (other than constants) and boundary calls left in the graph
    functions of a lowered module."""
    left = []
    in_kernel = False
    for line in mlir.splitlines():
        stripped = line.strip()
        if stripped.startswith("func.func"):
            in_kernel = "ascir.axes" in stripped or "private" in stripped.split("@")[0]
            continue
        if in_kernel:
            continue
        m = re.search(r'"ascend\.([a-z_]+)"', stripped)
        if m and m.group(1) != "constant":
            left.append(m.group(1))
            continue
        m = re.search(r"call @\"?([\w.]+)", stripped)
        if m and not m.group(1).startswith("autofuse_"):
            left.append("call:" + m.group(1))
    return left


def run_case(case: dict, root: Path, tools: dict, passes: list[str]) -> dict:
    directory = root / case["name"]
    work = directory / "autofuse"
    work.mkdir(exist_ok=True)
    files = pb_to_npy(directory)
    result = {"name": case["name"], "status": "fail", "detail": "", "mode": None, "left": []}
    model, files["input"], result["frozen"] = freeze_shape_inputs(onnx.load(directory / "model.onnx"), files["input"])
    declared = [o.type.tensor_type.elem_type for o in model.graph.output]
    onnx.save(model, work / "model.onnx")
    mlir = work / "model.mlir"
    imported = run([tools["import"], str(work / "model.onnx"), "-o", str(mlir), "--quiet"])
    if imported.returncode != 0:
        result["detail"] = "import: " + imported.stderr.strip()[-400:]
        return result
    lowered = work / "lowered.mlir"
    opt = run([tools["opt"], str(mlir), *passes, "-o", str(lowered)])
    if opt.returncode != 0:
        result["detail"] = "pipeline: " + opt.stderr.strip()[-400:]
        return result
    result["left"] = lowered_leftovers(lowered.read_text())
    out_dir = work / "out"
    if out_dir.exists():
        shutil.rmtree(out_dir)
    out_dir.mkdir()
    inputs = [f"--input={p}" for p in files["input"]]
    interp = run([tools["opt"], str(lowered), "--interpret", *inputs, f"--output-dir={out_dir}"])
    if interp.returncode != 0:
        result["detail"] = "interpret: " + interp.stderr.strip()[-400:]
        return result
    problems = []
    for j, expected_path in enumerate(files["output"]):
        produced = out_dir / f"out{j}.npy"
        if not produced.exists():
            problems.append(f"output {j} missing")
            continue
        expected = np.load(expected_path)
        message = compare(expected, np.load(produced), case["rtol"], case["atol"], declared[j] if j < len(declared) else 0)
        if message:
            problems.append(f"output {j}: {message}")
    if not problems and tools.get("run") and case.get("emulate"):
        # Generated Ascend C on the CPU emulation: one kernel per lowered op
        # (--no-fuse), so every op of the case runs as its own generated kernel.
        run_dir = work / "run"
        if run_dir.exists():
            shutil.rmtree(run_dir)
        run_dir.mkdir()
        emulated = run(
            [tools["run"], str(mlir), "-v", "--no-fuse", *inputs, f"--output-dir={run_dir}"],
            timeout=900,
        )
        log = emulated.stdout + emulated.stderr
        built = re.search(r"^build: (\d+) kernel", log, re.M)
        result["emulated_kernels"] = int(built.group(1)) if built else 0
        # Kernels autofuse-run left to the interpreter (AF-SC001 and the like): the case
        # then ran partly on the interpreter, so it does not count as emulated.
        result["interpreted"] = re.findall(r"^\s*kernel (\S+): interpreted \((.*)\)$", log, re.M)
        if os.environ.get(VENDOR_ENV):
            vendor_runs = re.findall(r"^\s*vendor path: (\d+) kernel\(s\) run.*: (PASS|FAIL)$", log, re.M)
            vendor_ok = bool(vendor_runs) and all(v == "PASS" for _, v in vendor_runs) and emulated.returncode == 0
            result["vendor"] = "pass" if vendor_ok else "fail"
        if emulated.returncode != 0:
            tail = (emulated.stdout + emulated.stderr).strip().splitlines()[-3:]
            problems.append("autofuse-run: " + " ".join(tail)[-300:])
        else:
            for j, expected_path in enumerate(files["output"]):
                produced = run_dir / f"out{j}.npy"
                if not produced.exists():
                    problems.append(f"autofuse-run wrote no output {j}")
                    continue
                message = compare(
                    np.load(expected_path), np.load(produced), case["rtol"], case["atol"], declared[j] if j < len(declared) else 0
                )
                if message:
                    problems.append(f"autofuse-run output {j}: {message}")
        if result.get("vendor") == "fail":
            problems.append("vendor path: " + " ".join(re.findall(r"vendor path[^\n]*", log))[-300:])
        result["emulated"] = "fail" if problems else "interpreted" if result["interpreted"] else "pass"
    if problems:
        result["detail"] = "; ".join(problems)[:500]
        return result
    result["status"] = "pass"
    result["mode"] = "kernel" if not result["left"] else "fallback"
    return result


# ---------------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------------


def write_report(path: Path, cases: list[dict], results: dict[str, dict], families: list[str], meta: dict) -> None:
    by_family = collections.defaultdict(list)
    for case in cases:
        if case["applicable"]:
            by_family[case["family"]].append(case)
    lines = [
        "# ONNX backend conformance",
        "",
        "<!-- Generated by scripts/onnx-conformance.sh; do not edit. -->",
        "",
        f"The ONNX backend node test cases of `onnx` {meta['onnx']} ({meta['total']} cases), run through "
        f"`autofuse-import-onnx` and `autofuse-opt {' '.join(meta['passes'])}`, executed by "
        f"{meta['execution']}, and compared with the expected outputs (rtol {RTOL:g}, atol {ATOL:g}, "
        "at least 2 ulps of a half-precision output's format: rtol 2e-3 for f16, 1.6e-2 for bf16; "
        "exact for integers and booleans).",
        "",
        "A case is *applicable* when all its nodes are covered operators (`autofuse-import-onnx --list-ops`) "
        "and all its tensors have element types the compiler supports (f32, f16, bf16, i64, i32, i16, i8, "
        "ui8, bool). Inputs that feed shape operands (axes, shapes, slice bounds, split sizes) are bound to "
        "the case's values as initializers: the compiler specializes on them, as a deployment does. A passed "
        "case *ran as kernels* when every op of its lowered graph became an AscGraph call (kernels are kept, "
        "not lifted back: `--fuse=lifting=false`); otherwise it is a *fallback* pass and the ops left as graph "
        "ops are listed below (matmul is a boundary op by design).",
        "",
        "*Emulated* counts the cases also run through `autofuse-run --no-fuse` (one generated Ascend C kernel "
        "per lowered op, compiled with g++ against the CPU emulation `sim/`) whose outputs matched the expected "
        "ones with no kernel left to the interpreter, of those run "
        f"({'all applicable cases' if meta['emulate'] == 'all' else 'one case per operator' if meta['emulate'] == 'sample' else 'none: autofuse-run was not available'}). "
        + (
            "Every emulated case also ran on the second Ascend C path: each kernel compiled against the vendor's "
            f"Ascend C headers (`{meta['vendor']}`) and run; *vendor path* counts those whose outputs matched."
            if meta.get("vendor")
            else "The vendor-header path was not run (`$AUTOFUSE_VENDOR_HEADERS` unset)."
        ),
        "",
        f"Totals: {meta['applicable']} applicable, {meta['passed']} passed "
        f"({meta['kernel']} as kernels, {meta['fallback']} with fallbacks), {meta['failed']} failed; "
        f"{meta['emulated_passed']} of {meta['emulated']} emulated"
        + (f" ({meta['vendor_passed']} of them also on the vendor path)" if meta.get("vendor") else "")
        + f", {meta.get('emulated_interpreted', 0)} with kernels left to the interpreter; "
        f"{meta['total'] - meta['applicable']} not applicable.",
        "",
    ]
    if meta.get("update"):
        lines += [meta["update"], ""]
    if meta.get("resumed"):
        lines += [
            f"The run was interrupted and resumed (`--resume`): {meta['resumed']} cases come from its "
            f"checkpoint, written by the same binaries (commit `{meta.get('commit', '?')[:12]}`).",
            "",
        ]
    lines += [
        "| family | applicable | passed | as kernels | fallback | failed | emulated | vendor path | failing cases |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for family in families:
        fc = by_family.get(family, [])
        res = [results[c["name"]] for c in fc if c["name"] in results]
        passed = [r for r in res if r["status"] == "pass"]
        failed = [r["name"] for r in res if r["status"] != "pass"]
        kernel = sum(1 for r in passed if r["mode"] == "kernel")
        emulated = [r for r in res if r.get("emulated")]
        emulated_ok = sum(1 for r in emulated if r["emulated"] == "pass")
        lines.append(
            f"| {family} | {len(fc)} | {len(passed)} | {kernel} | {len(passed) - kernel} | {len(failed)} | "
            f"{emulated_ok}/{len(emulated)} | "
            + (f"{sum(1 for r in emulated if r.get('vendor') == 'pass')}/{len(emulated)} | " if meta.get("vendor") else "— | ")
            + (", ".join(f"`{n}`" for n in failed) or "")
            + " |"
        )
    lines += ["", "## Fallback passes", "", "Passed cases whose lowered graph still holds graph ops (not kernel passes):", ""]
    fallback = collections.defaultdict(list)
    for name, r in sorted(results.items()):
        if r["status"] == "pass" and r["mode"] == "fallback":
            left = ", ".join(sorted(set(r["left"])))
            fallback[left].append(name)
    if not fallback:
        lines.append("None.")
    for left, names in sorted(fallback.items()):
        lines.append(f"- left `{left}`: " + ", ".join(f"`{n}`" for n in names))
    interpreted = collections.defaultdict(list)
    for name, r in sorted(results.items()):
        for kernel, why in r.get("interpreted") or []:
            interpreted[why].append(f"`{name}` ({kernel})")
    lines += ["", "## Kernels left to the interpreter", ""]
    lines.append("Kernels `autofuse-run` could not run as generated Ascend C (remark AF-SC001 and the like), by reason:")
    lines.append("")
    if not interpreted:
        lines.append("None.")
    for why, names in sorted(interpreted.items()):
        lines.append(f"- {why}: " + ", ".join(names))
    failed = [r for r in results.values() if r["status"] != "pass"]
    lines += ["", "## Failures", ""]
    if not failed:
        lines.append("None.")
    for r in sorted(failed, key=lambda r: r["name"]):
        detail = r["detail"].replace("|", "\\|").replace("\n", " ")
        lines.append(f"- `{r['name']}`: {detail}")
    lines += ["", "## Not applicable", ""]
    reasons = collections.Counter()
    uncovered = collections.Counter()
    for case in cases:
        if case["applicable"]:
            continue
        for reason in case["reasons"] or ["family unknown"]:
            if reason.startswith("ops not covered: "):
                for op in reason[len("ops not covered: "):].split(", "):
                    uncovered[op] += 1
                reasons["ops not covered"] += 1
            else:
                reasons[reason] += 1
    lines.append("Reasons (a case can have several):")
    lines.append("")
    for reason, n in reasons.most_common():
        lines.append(f"- {reason}: {n} cases")
    lines += ["", "Operators not covered (cases using them):", ""]
    lines.append(", ".join(f"{op} ({n})" for op, n in sorted(uncovered.items())))
    covered_na = collections.defaultdict(list)
    for case in cases:
        if not case["applicable"] and case["family"] and not any(r.startswith("ops not covered") for r in case["reasons"]):
            covered_na[case["family"]].append(f"`{case['name']}` ({'; '.join(case['reasons'])})")
    lines += ["", "Cases of covered operators that are not applicable (element types the compiler does not have):", ""]
    for family in families:
        if covered_na.get(family):
            lines.append(f"- {family}: " + ", ".join(covered_na[family]))
    path.write_text("\n".join(lines) + "\n")


# ---------------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin-dir", default=str(REPO / "target" / "debug"))
    parser.add_argument("--work", default=str(REPO / "target" / "onnx-conformance"))
    parser.add_argument("--report", default=str(REPO / "docs" / "onnx-conformance.md"))
    parser.add_argument("--no-report", action="store_true", help="do not rewrite the report")
    parser.add_argument("--filter", default="", help="only cases whose name matches this regex")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--verbose", "-v", action="store_true")
    parser.add_argument(
        "--report-from",
        metavar="RESULTS_JSON",
        help="only rewrite the report from the results.json of an earlier full run",
    )
    parser.add_argument(
        "--update",
        metavar="RESULTS_JSON",
        help="rerun only the cases matching --filter (e.g. the cases of operators just added) on top of the "
        "results.json of an earlier full run, and rewrite the report from the union; every applicable case "
        "must then have a result (the report says which cases were rerun)",
    )
    parser.add_argument(
        "--resume",
        metavar="CHECKPOINT_JSON",
        help="continue an interrupted run: take the results of the cases the checkpoint "
        "(<work>/checkpoint.json, written after every case) holds and run only the others; the "
        "checkpoint must come from the same commit and --emulate setting",
    )
    parser.add_argument(
        "--emulate",
        choices=["all", "sample", "none"],
        default="all",
        help="cases also run through autofuse-run (generated Ascend C on the CPU emulation), when it "
        "exists: all, one per operator (sample), or none",
    )
    args = parser.parse_args()

    if args.report_from:
        saved = json.loads(Path(args.report_from).read_text())
        meta = saved["meta"]
        families = meta.get("families") or list(
            dict.fromkeys(covered_ops(str(Path(args.bin_dir) / "autofuse-import-onnx")).values())
        ) + [EXPANDED_FAMILY]
        write_report(Path(args.report), saved["cases"], saved["results"], families, meta)
        print(f"onnx-conformance: wrote {args.report}")
        return 0

    bin_dir = Path(args.bin_dir)
    tools = {"import": str(bin_dir / "autofuse-import-onnx"), "opt": str(bin_dir / "autofuse-opt")}
    for tool in tools.values():
        if not os.access(tool, os.X_OK):
            sys.exit(f"onnx-conformance: {tool} is missing; run 'cargo build --workspace --bins' first")
    execution = "the reference interpreters: fused kernels by the AscIR interpreter, the rest by the Ascend IR interpreter"
    # The cases' tensors are a few elements: a driver compiled at -O0 runs them as fast and
    # compiles in half the time (both Ascend C paths).
    os.environ.setdefault("AUTOFUSE_CXX_OPT", "-O0")
    runner = bin_dir / "autofuse-run"
    if os.access(runner, os.X_OK):
        help_text = run([str(runner), "--help"]).stdout
        if "--input" in help_text and "--output-dir" in help_text:
            tools["run"] = str(runner)
            execution += "; and through autofuse-run (generated Ascend C on the CPU emulation)"
        else:
            print("onnx-conformance: autofuse-run has no --input/--output-dir; using the interpreters only")
    listed = run([tools["opt"], "--list-passes"]).stdout
    passes = ["--infer-symbolic-shapes", "--decompose", "--narrow-index-types", "--lower-to-ascir=remarks=false"]
    if re.search(r"^\s*--fuse\s", listed, re.M):
        # Keep single-op kernels as kernels (no lifting back to graph ops), so that every
        # lowered op of a case runs as a generated kernel.
        fuse_options = [o for o in ("lifting=false", "remarks=false") if re.search(rf"^\s+{o.split('=')[0]}=", listed, re.M)]
        passes.append("--fuse" + ("=" + ",".join(fuse_options) if fuse_options else ""))

    started = time.time()
    root = Path(args.work) / "node"
    cases = write_cases(root)
    covered = covered_ops(tools["import"])
    classify(cases, root, covered)
    selected = [c for c in cases if c["applicable"] and re.search(args.filter, c["name"])]
    sampled = set()
    for case in sorted(selected, key=lambda c: c["name"]):
        if args.emulate == "all" or (args.emulate == "sample" and case["op"] not in sampled):
            case["emulate"] = True
            sampled.add(case["op"])
    if "run" not in tools:
        args.emulate = "none"
    print(f"onnx-conformance: {len(cases)} node cases, {sum(c['applicable'] for c in cases)} applicable; running {len(selected)}")

    results: dict[str, dict] = {}
    # A long run (every case emulated on both Ascend C paths takes hours on two cores)
    # survives an interruption: the results so far are written after every case, and
    # --resume continues from them with binaries of the same commit.
    commit = run(["git", "-C", str(REPO), "rev-parse", "HEAD"]).stdout.strip()
    dirty = bool(run(["git", "-C", str(REPO), "status", "--porcelain", "--untracked-files=no"]).stdout.strip())
    checkpoint_key = {"commit": commit + ("+dirty" if dirty else ""), "emulate": args.emulate,
                      "vendor": os.environ.get(VENDOR_ENV, ""), "filter": args.filter}
    resumed = 0
    if args.resume:
        saved = json.loads(Path(args.resume).read_text())
        if saved.get("key") != checkpoint_key:
            sys.exit(f"onnx-conformance: --resume: {args.resume} was written for {saved.get('key')}, "
                     f"this run is {checkpoint_key}")
        wanted = {c["name"] for c in selected}
        results = {n: r for n, r in saved["results"].items() if n in wanted}
        resumed = len(results)
        selected = [c for c in selected if c["name"] not in results]
        print(f"onnx-conformance: resuming: {resumed} case(s) from {args.resume}, {len(selected)} to run")
    checkpoint = Path(args.work) / "checkpoint.json"
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = {pool.submit(run_case, c, root, tools, passes): c for c in selected}
        for future in concurrent.futures.as_completed(futures):
            r = future.result()
            results[r["name"]] = r
            if args.verbose or r["status"] != "pass":
                left = f" (left: {', '.join(sorted(set(r['left'])))})" if r["left"] else ""
                print(f"  {r['status'].upper()}: {r['name']} {r['detail']}{left}")
            partial = checkpoint.with_suffix(".tmp")
            partial.write_text(json.dumps({"key": checkpoint_key, "results": results}, default=str))
            partial.replace(checkpoint)

    applicable = [c for c in cases if c["applicable"]]
    update_note = ""
    if args.update:
        saved = json.loads(Path(args.update).read_text())
        names = {c["name"] for c in applicable}
        merged = {
            name: r
            for name, r in saved["results"].items()
            if name in names and not re.search(args.filter, name)
        }
        merged.update(results)
        missing = sorted(names - set(merged))
        if missing:
            sys.exit(
                f"onnx-conformance: --update: {len(missing)} applicable case(s) have no result in {args.update} "
                f"and do not match the filter: {', '.join(missing[:10])}"
            )
        update_note = (
            f"{len(results)} cases (those matching `{args.filter}`) were rerun on top of a full run "
            f"of {saved['meta'].get('applicable', '?')} applicable cases; the others keep that run's results."
        )
        results = merged
    passed = [r for r in results.values() if r["status"] == "pass"]
    meta = {
        "onnx": onnx.__version__,
        "total": len(cases),
        "applicable": len(applicable),
        "passed": len(passed),
        "kernel": sum(1 for r in passed if r["mode"] == "kernel"),
        "fallback": sum(1 for r in passed if r["mode"] == "fallback"),
        "failed": len(results) - len(passed),
        "passes": passes,
        "execution": execution,
        "emulate": args.emulate,
        "emulated": sum(1 for r in results.values() if r.get("emulated")),
        "emulated_passed": sum(1 for r in results.values() if r.get("emulated") == "pass"),
        "emulated_interpreted": sum(1 for r in results.values() if r.get("emulated") == "interpreted"),
        "vendor": os.environ.get(VENDOR_ENV, ""),
        "vendor_passed": sum(1 for r in results.values() if r.get("vendor") == "pass"),
        "update": update_note,
        "commit": checkpoint_key["commit"],
        "resumed": resumed,
    }
    families = list(dict.fromkeys(covered.values())) + [EXPANDED_FAMILY]
    meta["families"] = families
    (Path(args.work) / "results.json").write_text(
        json.dumps({"meta": meta, "cases": cases, "results": results}, indent=1, default=str)
    )
    full_run = (not args.filter and len(selected) == len(applicable)) or bool(args.update)
    if full_run and not args.no_report:
        write_report(Path(args.report), cases, results, families, meta)
        print(f"onnx-conformance: wrote {args.report}")
    elapsed = time.time() - started
    print(
        f"onnx-conformance: {meta['passed']} passed ({meta['kernel']} as kernels), {meta['failed']} failed, "
        f"{meta['total'] - meta['applicable']} not applicable, in {elapsed:.0f}s"
    )
    return 0 if meta["failed"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
