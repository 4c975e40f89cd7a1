"""Builds the NPU glue of a generated NPU tree with the kernels on the Ascend C emulation
instead of CANN: what `cmake` + CANN would build on a machine with an NPU, with the
vendor's parts stood in for by declarations written from their documentation.

Usage (as AUTOFUSE_NPU_BUILD): npu_emulated_build.py <tree> <library to write>

- `acl/acl_base.h`: `aclrtStream` is an opaque pointer (AscendCL API reference).
- `aclrtlaunch_<kernel>.h`: what CANN's `ascendc_library()` generates per kernel:
  `ACLRT_LAUNCH_KERNEL(k)` expands to `aclrtlaunch_k`, declared
  `extern "C" uint32_t aclrtlaunch_k(uint32_t blockDim, aclrtStream stream, void* args...)`
  with the kernel's GM arguments in order (ascendc_api.md §8.3).
- The launch functions run the kernel on the emulation (sim/include) with the block
  dim given, and pass the kernel the workspace after the system workspace, as the
  HAVE_WORKSPACE kernel-launch flow does on the device (ascendc_api.md §8.3).
- `af_npu_platform`: the chip of the plan (its vector cores and usable UB), with a
  system workspace of SYSTEM_WORKSPACE bytes.
- The platform source the glue ships (`af_npu_platform.cpp`, over CANN's
  `PlatformAscendCManager`) is compiled against the vendor's own header
  ($AUTOFUSE_VENDOR_HEADERS, else ../shared/vendor), syntax only: it cannot run here.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

SYSTEM_WORKSPACE = 1 << 20
ENTRY = re.compile(r'extern "C" __global__ __aicore__ void (\w+)\(([^)]*)\)')

REPO = Path(__file__).resolve().parents[3]


def main() -> int:
    tree, target = Path(sys.argv[1]), Path(sys.argv[2])
    plan = json.loads((tree.parent / "plan.json").read_text())
    chips = {k["symbol"]: k for k in plan["kernels"].values()}
    emul = target.parent / "emulation"
    (emul / "acl").mkdir(parents=True, exist_ok=True)
    (emul / "acl" / "acl_base.h").write_text(
        "#pragma once\n#include <cstdint>\ntypedef void* aclrtStream;\ntypedef int aclError;\n"
    )
    device = [
        '#include <cstdint>\n#include <cstdio>\n#include "kernel_operator.h"\n#include "af_kernel_utils.h"\n'
        '#include "af_tiling_host.h"\n#include "af_npu_glue.h"\n'
    ]
    included: set[str] = set()
    launches = []
    dirs = sorted(d for d in tree.iterdir() if d.is_dir() and d.name.startswith(("afk_", "afl_")))
    for d in dirs:
        source = (d / f"{d.name}.cpp").read_text()
        m = ENTRY.search(source)
        if m is None or m.group(1) != d.name:
            print(f"{d}: no kernel entry named {d.name}", file=sys.stderr)
            return 1
        count = len([p for p in m.group(2).split(",") if p.strip()])
        params = ", ".join(f"void* a{i}" for i in range(count))
        (emul / f"aclrtlaunch_{d.name}.h").write_text(
            "#pragma once\n#include \"acl/acl_base.h\"\n#ifndef ACLRT_LAUNCH_KERNEL\n"
            "#define ACLRT_LAUNCH_KERNEL(kernel_func) aclrtlaunch_##kernel_func\n#endif\n"
            f'extern "C" uint32_t aclrtlaunch_{d.name}(uint32_t blockDim, aclrtStream stream, {params});\n'
        )
        device.append(f'#include "aclrtlaunch_{d.name}.h"\n')
        for cpp in sorted(d.glob("*.cpp")):
            if cpp.name not in included:
                included.add(cpp.name)
                device.append(f'#include "{cpp.name}"\n')
        # The kernel's GM arguments: inputs, outputs, workspace, tiling (the last two).
        args = [f"static_cast<uint8_t*>(a{i})" for i in range(count - 2)]
        args.append(f"static_cast<uint8_t*>(a{count - 2}) + {SYSTEM_WORKSPACE}")
        args.append(f"static_cast<uint8_t*>(a{count - 1})")
        chip = chips[d.name]["chip"]
        launches.append(
            f'extern "C" uint32_t aclrtlaunch_{d.name}(uint32_t blockDim, aclrtStream stream, {params}) {{\n'
            f"    (void)stream;\n"
            f'    ascendc_sim::launch("{d.name}", {d.name}, blockDim, ascendc_sim::profile("{chip}"), {", ".join(args)});\n'
            f"    return 0;\n}}\n"
        )
    first = next(iter(chips.values()))
    device += launches
    device.append(
        'extern "C" int af_npu_platform(uint32_t* cores, uint64_t* ub, uint64_t* system_workspace) {\n'
        f"    *cores = {first['cores']};\n    *ub = {first['ub']};\n    *system_workspace = {SYSTEM_WORKSPACE};\n"
        "    return 0;\n}\n"
    )
    (emul / "device.cpp").write_text("".join(device))
    sim = Path(os.environ.get("AUTOFUSE_SIM_INCLUDE", REPO / "sim" / "include"))
    includes = [f"-I{emul}", f"-I{tree / 'glue'}", f"-I{tree / 'include'}", f"-I{sim}"]
    includes += [f"-I{d}" for d in dirs]
    target.parent.mkdir(parents=True, exist_ok=True)
    vendor_root = os.environ.get("AUTOFUSE_VENDOR_HEADERS") or REPO.parent / "shared" / "vendor" / "cann-8.1.RC1"
    vendor = Path(vendor_root) / "ascendc" / "include" / "highlevel_api"
    steps = [
        ["g++", "-std=c++17", "-fsyntax-only", f"-I{tree / 'glue'}", f"-I{vendor}", str(tree / "glue" / "af_npu_platform.cpp")],
        ["g++", "-std=c++20", "-O1", "-w", "-shared", "-fPIC", *includes,
         str(tree / "glue" / "af_npu_glue.cpp"), str(emul / "device.cpp"), "-o", str(target)],
    ]
    for cmd in steps:
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            print(" ".join(cmd), file=sys.stderr)
            print(done.stderr[-4000:], file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
