"""The persistent shellcheck cache: a warm run starts no shellcheck, changes are re-checked, damage is a miss."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from lobsterlang.cli import main
from lobsterlang.lint.rules.shellcheck import binary

pytestmark = pytest.mark.skipif(binary() is None, reason="needs shellcheck")
Capture = pytest.CaptureFixture[str]
FLOW = "steps:\n  - id: list\n    run: |\n      ls $1 | grep {word}\n      echo done\n"


@pytest.fixture
def logged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """`shellcheck` on PATH is a wrapper that logs each start to the returned file, then runs the real one."""
    real, bin_dir, log = binary(), tmp_path / "bin", tmp_path / "calls.log"
    bin_dir.mkdir()
    wrapper = bin_dir / "shellcheck"
    wrapper.write_text(f'#!/bin/sh\necho "$1" >> "{log}"\nexec "{real}" "$@"\n', encoding="utf-8")
    wrapper.chmod(0o755)
    log.touch()
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("LOBSTER_CACHE_DIR", str(tmp_path / "cache"))
    return log


def _flows(tmp_path: Path, count: int = 3) -> Path:
    folder = tmp_path / "flows"
    folder.mkdir(exist_ok=True)
    for number in range(count):
        (folder / f"f{number}.lobster").write_text(FLOW.format(word=f"w{number}"), encoding="utf-8")
    return folder


def _lint(folder: Path, capsys: Capture, *extra: str) -> str:
    assert main(["lint", "--format", "json", *extra, str(folder)]) == 1
    out = capsys.readouterr().out
    assert out.count("SC2086: ") == 3
    return out


def _calls(log: Path) -> int:
    return len(log.read_text(encoding="utf-8").splitlines())


def test_a_warm_run_starts_no_shellcheck_and_says_the_same(tmp_path: Path, logged: Path, capsys: Capture) -> None:
    folder = _flows(tmp_path)
    cold = _lint(folder, capsys)
    assert _calls(logged) >= 1
    logged.write_text("", encoding="utf-8")
    assert _lint(folder, capsys) == cold
    assert _calls(logged) == 0


def test_a_changed_script_is_checked_again(tmp_path: Path, logged: Path, capsys: Capture) -> None:
    folder = _flows(tmp_path)
    _lint(folder, capsys)
    logged.write_text("", encoding="utf-8")
    (folder / "f1.lobster").write_text(FLOW.format(word="changed"), encoding="utf-8")
    _lint(folder, capsys)
    assert _calls(logged) == 1


def test_a_damaged_entry_is_a_miss_and_is_repaired(tmp_path: Path, logged: Path, capsys: Capture) -> None:
    folder = _flows(tmp_path)
    cold = _lint(folder, capsys)
    entries = [p for p in (tmp_path / "cache" / "shellcheck").rglob("*.json") if not p.name.startswith("v-")]
    assert len(entries) == 3
    entries[0].write_text('[{"line": 1', encoding="utf-8")
    entries[1].write_text('{"not": "a list"}', encoding="utf-8")
    logged.write_text("", encoding="utf-8")
    assert _lint(folder, capsys) == cold
    assert 1 <= _calls(logged) <= 2  # the two damaged scripts, in one batch or two parallel ones
    logged.write_text("", encoding="utf-8")
    assert _lint(folder, capsys) == cold and _calls(logged) == 0


def test_no_cache_neither_reads_nor_writes(tmp_path: Path, logged: Path, capsys: Capture) -> None:
    folder = _flows(tmp_path)
    _lint(folder, capsys, "--no-cache")
    assert not (tmp_path / "cache").exists()
    logged.write_text("", encoding="utf-8")
    _lint(folder, capsys, "--no-cache")
    assert _calls(logged) >= 1


def test_two_concurrent_lints_share_the_cache(tmp_path: Path, logged: Path, capsys: Capture) -> None:
    folder = _flows(tmp_path, 30)
    command = [sys.executable, "-m", "lobsterlang", "lint", "--format", "json", str(folder)]
    runs = [subprocess.Popen(command, stdout=subprocess.PIPE, text=True) for _ in range(2)]
    outputs = [run.communicate(timeout=120)[0] for run in runs]
    assert [run.returncode for run in runs] == [1, 1]
    assert outputs[0] == outputs[1] and outputs[0].count("SC2086: ") == 30
    assert not [p for p in (tmp_path / "cache").rglob(".tmp-*")]
    logged.write_text("", encoding="utf-8")
    assert main(["lint", "--format", "json", str(folder)]) == 1
    assert capsys.readouterr().out == outputs[0] and _calls(logged) == 0
