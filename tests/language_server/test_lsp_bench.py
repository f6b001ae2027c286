"""bench/lsp_bench.py runs end to end on a tiny project (its figures are not asserted)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from helpers import ROOT


@pytest.mark.slow
def test_lsp_bench_runs() -> None:
    args = ["--files", "3", "--steps", "10", "--edits", "2"]
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / "lsp_bench.py"), *args], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    for figure in ("diagnostics after debounce", "server CPU per edit", "completion", "hover", "rename over the workspace", "server RSS"):
        assert figure in proc.stdout
    assert "(4 files changed)" in proc.stdout, "the child and its 3 callers"
