"""The mypyc-compiled wheel the compiled-build test checks, built in the background while the other tests run.

The build is a minute of C compilation in other processes; the tests run in one. When collection selects
the compiled-build test, conftest.py starts the build and moves that test to the end of the run, which
then finds the wheel ready (or waits for it). Run alone, the test builds it then and there.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

from helpers import ROOT

from tools import mypyc_hook

TEST = "test_compiled_build.py::test_compiled_wheel_matches_pure_python"


def c_compiler() -> str | None:
    command = (sysconfig.get_config_var("CC") or "cc").split()
    return shutil.which(command[0]) if command else None


class Build:
    """One `pip wheel` of the checkout with LOBSTERLANG_MYPYC=1 (at -O0: the tests check behaviour, not speed)."""

    def __init__(self) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="lobster-compiled-wheel-"))
        self._log = (self.folder / "build.log").open("w+")
        env = {**os.environ, mypyc_hook.ENABLE: "1", mypyc_hook.OPT_LEVEL: "0"}
        command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                   "-w", str(self.folder / "wheels"), str(ROOT)]
        self._process = subprocess.Popen(command, stdout=self._log, stderr=subprocess.STDOUT, env=env)

    def wheel(self) -> Path:
        """The built wheel, once the build has finished (the test fails with pip's output if it did not)."""
        code = self._process.wait()
        self._log.seek(0)
        assert code == 0, self._log.read()
        (wheel,) = (self.folder / "wheels").glob("lobsterlang-*.whl")
        return wheel

    def discard(self) -> None:
        """Stop the build if it still runs (a session ended early) and remove its folder."""
        if self._process.poll() is None:
            self._process.kill()
            self._process.wait()
        self._log.close()
        shutil.rmtree(self.folder, ignore_errors=True)


_started: list[Build] = []


def start_if_selected(nodeids: list[str]) -> None:
    """Begin the build when the compiled-build test is among `nodeids` and a C compiler is present."""
    if not _started and c_compiler() is not None and any(nodeid.endswith(TEST) for nodeid in nodeids):
        _started.append(Build())


def build() -> Build:
    """The background build, or one started now."""
    if not _started:
        _started.append(Build())
    return _started[0]


def discard() -> None:
    while _started:
        _started.pop().discard()
