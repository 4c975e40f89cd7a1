"""The autofuse tools the package drives: found once, run as subprocesses for each
compile (a compile is once per graph; the calls of the compiled graph are in process).

Where the tools come from, first match wins: ``$AUTOFUSE_BIN_DIR``; the binaries
``pip install ./python`` built into the package (``autofuse/_bin``); the repository's
``target/release`` or ``target/debug`` when the package runs from a checkout.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent


class ToolError(RuntimeError):
    """A tool failed: its diagnostics (located, as it printed them)."""


def _candidates() -> list[Path]:
    found = []
    if os.environ.get("AUTOFUSE_BIN_DIR"):
        found.append(Path(os.environ["AUTOFUSE_BIN_DIR"]))
    found.append(PACKAGE / "_bin")
    repo = PACKAGE.parent.parent
    found += [repo / "target" / "release", repo / "target" / "debug"]
    return found


def tool(name: str) -> Path:
    for d in _candidates():
        p = d / name
        if p.is_file() and os.access(p, os.X_OK):
            return p
    raise ToolError(
        f"{name} not found (looked in {', '.join(str(d) for d in _candidates())}); "
        "build the tools (cargo build) or set AUTOFUSE_BIN_DIR"
    )


def _environment() -> dict[str, str]:
    env = dict(os.environ)
    # An installed package carries the emulation's headers; a checkout's tools know
    # their own.
    sim = PACKAGE / "_sim" / "include"
    if sim.is_dir():
        env.setdefault("AUTOFUSE_SIM_INCLUDE", str(sim))
        env.setdefault("AUTOFUSE_CACHE_DIR", str(Path.home() / ".cache" / "autofuse" / "kernels"))
    env.setdefault("AUTOFUSE_PROGRESS", "off")
    return env


def emit_library(mlir: Path, out_dir: Path, extra: list[str] | None = None) -> None:
    """Compiles `mlir` with autofuse-run's pipeline and builds its kernels as a shared
    library with the launch plan in `out_dir` (``autofuse-run --emit-library``)."""
    cmd = [str(tool("autofuse-run")), str(mlir), "--emit-library", str(out_dir), "--quiet", *(extra or [])]
    done = subprocess.run(cmd, capture_output=True, text=True, env=_environment())
    if done.returncode != 0:
        raise ToolError((done.stderr or done.stdout).strip())
