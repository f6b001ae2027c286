"""The benchmark harnesses run (smoke test with tiny inputs; figures are not asserted)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from helpers import ROOT

SMOKE = [
    ["run.py", "--quick"],
    ["lint_bench.py", "--files", "5", "--passes", "1"],
]


@pytest.mark.parametrize("args", SMOKE, ids=lambda a: a[0])
def test_benchmark_runs(args: list[str]) -> None:
    proc = subprocess.run([sys.executable, str(ROOT / "bench" / args[0]), *args[1:]], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "files/s" in proc.stdout
    assert "load average" in proc.stdout, "figures from the shared machines come with its load"
