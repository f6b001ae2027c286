"""One shellcheck scheduler per lint run: the parallel path (workers check, this process runs shellcheck and
finishes each file) says exactly what the in-process path says, checks each distinct script once, and
ends with shrinking batches."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from lobsterlang.cli import main
from lobsterlang.lint import Config, Source, jobs, lint_sources
from lobsterlang.lint.rules.shellcheck import ScriptMemo, binary
from lobsterlang.lint.shellcheck_runs import LEAST, ShellcheckRuns

pytestmark = pytest.mark.skipif(binary() is None, reason="needs shellcheck")
Capture = pytest.CaptureFixture[str]

MIXED = {
    "heredoc.lobster": """\
name: heredoc
args:
  repo:
    default: lobster
steps:
  - id: fetch
    run: |
      cat <<EOT > /tmp/out.txt
      repo: ${repo}
      EOT
      for f in $(ls /tmp/*.txt); do echo $f; done
  - id: report
    stdin: $fetch.json
    run: |
      jq -r '.items[] | .name' <<< "$fetch.json" | while read line; do
        echo "got $line" ${repo}
      done
      [ "${repo}" = lobster ] && echo yes
""",
    "ignored.lobster": """\
name: ignored
steps:
  # lobster: ignore[L310]
  - id: quiet
    run: |
      ls $1 | grep foo
  - id: loud
    run: |
      ls $1 | grep bar  # lobster: ignore[L310]
      echo `date`
  - id: unused  # lobster: ignore[L310]
    run: echo "fine"
""",
    "broken.lobster": "name: broken\nsteps:\n  - id: a\n    run: echo $1\n   bad: [\n",
    "same.lobster": "steps:\n  - id: list\n    run: |\n      ls $1 | grep foo\n  - id: again\n    run: ls $1 | grep foo\n",
    "pipeline.lobster": "steps:\n  - id: p\n    pipeline: exec --json --shell 'ls $1' | head --n 2\n",
}
"""Heredocs, `${arg}` placeholders, `$step.json` in shell text, a YAML error, ignore comments on shellcheck's
findings (used and unused), the same script twice, and no shell script at all."""


def _mixed(folder: Path, copies: int) -> Path:
    for copy in range(copies):
        part = folder / f"part{copy}"
        part.mkdir(parents=True)
        for name, text in MIXED.items():
            (part / name).write_text(text, encoding="utf-8")
    return folder


def _lint(args: list[str], capsys: Capture, parallel: bool, monkeypatch: pytest.MonkeyPatch) -> tuple[int, str]:
    monkeypatch.setattr(jobs, "PARALLEL_FROM", 2 if parallel else 10**9)
    monkeypatch.setattr(jobs, "usable_cpus", lambda: 3)  # three workers even on a small machine
    monkeypatch.setattr(jobs, "CHUNK", 2)
    code = main(["lint", *args])
    return code, capsys.readouterr().out


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_parallel_and_in_process_paths_agree_on_a_mixed_set(fmt: str, tmp_path: Path, capsys: Capture,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LOBSTER_CACHE_DIR", str(tmp_path / "cache"))
    folder = _mixed(tmp_path / "flows", 4)
    in_process = _lint(["--no-cache", "--format", fmt, str(folder)], capsys, False, monkeypatch)
    assert in_process[0] == 1
    for _ in range(2):  # a cold cache, then a warm one
        assert _lint(["--format", fmt, str(folder)], capsys, True, monkeypatch) == in_process
    assert _lint(["--no-cache", "--format", fmt, str(folder)], capsys, True, monkeypatch) == in_process
    out = in_process[1]
    for expected in ("YAML syntax error", "SC2045:", "SC3011:", "SC2006:", "pasted into the shell text", "suppresses nothing"):
        assert out.count(expected) == 4, expected
    assert "grep bar" not in out and "SC2010" in out  # the ignore on the line and on the step hold


def test_the_api_says_what_the_command_says(tmp_path: Path) -> None:
    """`lint_sources` (the editor's path) against the parallel run, finding for finding."""
    folder = _mixed(tmp_path, 3)
    paths = sorted(str(p) for p in folder.rglob("*.lobster"))
    sources = [Source(path, Path(path).read_bytes()) for path in paths]
    in_process = lint_sources(sources, Config())
    parallel = jobs.lint_in_parallel(sources, Config(), None, keep_ir=True)
    assert [r.diagnostics for r in parallel] == [r.diagnostics for r in in_process]
    assert [r.workflow for r in parallel] == [r.workflow for r in in_process]
    assert any(d.code == "L310" for r in in_process for d in r.diagnostics)


@pytest.fixture
def logged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """`shellcheck` on PATH writes the scripts of each run to a file of the returned folder, then runs the real one."""
    log = tmp_path / "runs"
    log.mkdir()
    wrapper = tmp_path / "bin" / "shellcheck"
    wrapper.parent.mkdir()
    each = 'for a in "$@"; do case "$a" in *.sh) cat "$a"; printf "\\n--- end\\n";; esac; done'
    wrapper.write_text(f'#!/bin/sh\n{{ {each}; }} > "{log}/$$.log"\nexec "{binary()}" "$@"\n', encoding="utf-8")
    wrapper.chmod(0o755)
    monkeypatch.setenv("PATH", f"{wrapper.parent}{os.pathsep}{os.environ['PATH']}")
    return log


def _runs(log: Path) -> list[list[str]]:
    """The scripts of each shellcheck run that checked any."""
    runs = [run.read_text(encoding="utf-8").split("\n--- end\n")[:-1] for run in log.iterdir()]
    return [run for run in runs if run]


def test_each_distinct_script_is_checked_once_in_a_run(tmp_path: Path, logged: Path, capsys: Capture,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "flows"
    folder.mkdir()
    for number in range(30):
        (folder / f"f{number}.lobster").write_text(
            f"steps:\n  - id: a\n    run: ls $1 | grep common\n  - id: b\n    run: echo {number} $2\n", encoding="utf-8")
    assert _lint(["--no-cache", str(folder)], capsys, True, monkeypatch)[0] == 1
    checked = [script for run in _runs(logged) for script in run]
    assert len(checked) == 31 and len(set(checked)) == 31  # one common script, thirty others


def test_files_are_ready_once_their_scripts_are_answered_and_the_tail_shrinks(logged: Path) -> None:
    program = shutil.which("shellcheck")
    assert program is not None
    texts = [f"echo {n} $1\n" for n in range(100)]
    runs: ShellcheckRuns[str] = ShellcheckRuns(program, ScriptMemo(), batch=40, workers=2)
    with runs:
        runs.add("none", [])
        assert runs.ready() == ["none"]
        for number in range(0, 100, 10):
            runs.add(f"file{number}", [*texts[number : number + 10], texts[0]])  # the first text in every file
        assert sorted(runs.rest()) == sorted(f"file{n}" for n in range(0, 100, 10))
        assert all([c["code"] for c in runs.comments(text)] == [2086] for text in texts)
    sizes = [len(run) for run in _runs(logged)]
    assert sorted(script for run in _runs(logged) for script in run) == sorted(texts)
    assert max(sizes) <= 40
    assert len(sizes) >= 5  # after the last file, the texts left go out in shares of what is left (not 40, 40, 10, 10)
    assert sorted(sizes)[1] >= LEAST  # a share is never less than LEAST, but for the very last


def test_a_shellcheck_that_cannot_start_loses_nothing(tmp_path: Path, capsys: Capture, monkeypatch: pytest.MonkeyPatch) -> None:
    """No traceback: the run reports what it can, and nothing is remembered as clean."""
    broken = tmp_path / "bin" / "shellcheck"
    broken.parent.mkdir()
    broken.write_bytes(b"\x7fELF not a program")
    broken.chmod(0o755)
    monkeypatch.setenv("LOBSTER_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("PATH", f"{broken.parent}{os.pathsep}{os.environ['PATH']}")
    folder = _mixed(tmp_path / "flows", 1)
    code, out = _lint(["--format", "json", str(folder)], capsys, False, monkeypatch)
    assert code == 1 and "YAML syntax error" in out and "SC2045" not in out
    monkeypatch.setenv("PATH", os.environ["PATH"].split(os.pathsep, 1)[1])
    assert "SC2045" in _lint(["--format", "json", str(folder)], capsys, False, monkeypatch)[1]
