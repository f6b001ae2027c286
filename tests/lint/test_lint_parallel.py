"""`lobster lint` over worker processes says exactly what the serial run says: output, exit code and --fix."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from helpers import ROOT

from lobsterlang.cli import main
from lobsterlang.lint import jobs

CORPUS = ROOT / "tests" / "lint" / "corpus_real"
Capture = pytest.CaptureFixture[str]


def _lint(args: list[str], capsys: Capture, parallel: bool, monkeypatch: pytest.MonkeyPatch) -> tuple[int, str]:
    monkeypatch.setattr(jobs, "PARALLEL_FROM", 2 if parallel else 10**9)
    monkeypatch.setattr(jobs, "usable_cpus", lambda: 3)  # three workers even on a small machine
    code = main(["lint", *args])
    return code, capsys.readouterr().out


def _copy(tmp_path: Path, name: str) -> Path:
    target = tmp_path / name
    shutil.copytree(CORPUS, target, ignore=shutil.ignore_patterns("*.expect"))
    return target


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "github"])
def test_parallel_output_is_the_serial_output(fmt: str, tmp_path: Path, capsys: Capture,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(_copy(tmp_path, "corpus"))
    args = ["--format", fmt, "."]
    serial = _lint(args, capsys, False, monkeypatch)
    parallel = _lint(args, capsys, True, monkeypatch)
    assert serial[0] == 1 and serial[1].count("\n") > 100
    assert parallel == serial


def test_parallel_fix_writes_what_the_serial_fix_writes(tmp_path: Path, capsys: Capture,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    outputs = []
    for name, parallel in (("serial", False), ("parallel", True)):
        monkeypatch.chdir(_copy(tmp_path, name))
        outputs.append(_lint(["--target", "reference", "--fix", "--unsafe-fixes", "--show-fixes", "."], capsys, parallel, monkeypatch))
    assert outputs[0] == outputs[1] and "(272 fixed, " in outputs[0][1]
    serial = {p.name: p.read_bytes() for p in (tmp_path / "serial").iterdir()}
    assert serial == {p.name: p.read_bytes() for p in (tmp_path / "parallel").iterdir()}
    assert serial != {p.name: p.read_bytes() for p in _copy(tmp_path, "original").iterdir()}
