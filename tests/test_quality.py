"""The code passes ruff and mypy (strict): both run as part of the test suite."""

from __future__ import annotations

import subprocess
import sys

from helpers import ROOT


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True)


def test_ruff_check() -> None:
    proc = _run("ruff", "check", ".")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_mypy_strict() -> None:
    proc = _run("mypy")
    assert proc.returncode == 0, proc.stdout + proc.stderr
