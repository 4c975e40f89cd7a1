"""Builds the autofuse tools with cargo and ships them, with the Ascend C emulation's
headers, inside the package (see docs/pytorch.md, "Installing").

- ``AUTOFUSE_BIN_DIR=DIR``: take the tools already built in DIR instead of building;
- ``AUTOFUSE_CARGO_PROFILE`` (default ``release``): the cargo profile to build.
"""

import os
import shutil
import subprocess
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
TOOLS = ("autofuse-opt", "autofuse-translate", "autofuse-run")


class BuildWithTools(build_py):
    def run(self):
        super().run()
        target = Path(self.build_lib) / "autofuse"
        bin_dir = os.environ.get("AUTOFUSE_BIN_DIR")
        if bin_dir:
            source = Path(bin_dir)
        else:
            profile = os.environ.get("AUTOFUSE_CARGO_PROFILE", "release")
            cmd = ["cargo", "build", "--bins", "-p", "autofuse-tools"]
            if profile != "debug":
                cmd += ["--profile", profile]
            subprocess.run(cmd, cwd=REPO, check=True)
            source = REPO / "target" / ("debug" if profile == "debug" else profile)
        (target / "_bin").mkdir(parents=True, exist_ok=True)
        for tool in TOOLS:
            built = source / tool
            if not built.is_file():
                raise SystemExit(f"autofuse: {built} is missing (build the tools first)")
            shutil.copy2(built, target / "_bin" / tool)
        sim = target / "_sim" / "include"
        if sim.exists():
            shutil.rmtree(sim)
        shutil.copytree(REPO / "sim" / "include", sim)


setup(cmdclass={"build_py": BuildWithTools})
