"""compare() on the MLP block of compile_models.py at [2, 8, 16]."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import autofuse.torch as aft  # noqa: E402
from compile_models import block_model  # noqa: E402

model, inputs = block_model("mlp")
aft.compare(model, *inputs(2, 8))
