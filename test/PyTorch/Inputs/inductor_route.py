"""Route 2 in one process: the MLP block through backend="autofuse-inductor" (prints
report() and the path of the AscGraphs it generated), then the same model through
Inductor's own backend="inductor", which must still generate Inductor's C++ kernels
(the autofuse device backend is registered for "cpu" only during its own compile).
"""

import sys
from pathlib import Path

import torch
import torch._dynamo
from torch._inductor.utils import run_and_get_code

sys.path.insert(0, str(Path(__file__).resolve().parent))

import autofuse.torch as aft  # noqa: E402
from compile_models import block_model, max_error  # noqa: E402

model, inputs = block_model("mlp")
args = inputs(2, 8)
with torch.no_grad():
    want = model(*args)
    got = torch.compile(model, backend="autofuse-inductor", dynamic=True)(*args)
print(f"autofuse-inductor: max error {max_error(got, want):.3e}")
(report,) = aft.reports()
print(f"ascgraphs: {report.mlir_path}")
sys.stdout.write(aft.report())

torch._dynamo.reset()
with torch.no_grad():
    got, codes = run_and_get_code(torch.compile(model, backend="inductor", dynamic=True), *args)
print(f"inductor: max error {max_error(got, want):.3e}")
code = "\n".join(codes)
print(f"inductor: C++ kernels {code.count('cpp_fused_') > 0}, autofuse calls {'_autofuse_graphs' in code}")
