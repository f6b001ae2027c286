"""A newcomer's first hour (issue 30 items 5-11, issue 36 items 3-4): what a person reads on the terminal."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from lobsterlang.cli import main

Capture = pytest.CaptureFixture[str]
LOBSTER = Path(sys.executable).parent / "lobster"


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("LOBSTER_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _complete(words: str, cword: str) -> list[str]:
    env = {**os.environ, "_LOBSTER_COMPLETE": "bash_complete", "COMP_WORDS": words, "COMP_CWORD": cword}
    done = subprocess.run([str(LOBSTER)], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


# ── 30.11: one error style, explain by name, unclosed quotes where they open, completion ──

@pytest.mark.parametrize("argv", [
    ["graph", "--file", "x.lobster", "--format", "svg"],
    ["graph"],
    ["graph", "--file", "x.lobster", "--args-json", "{"],
    ["explain", "L999"],
    ["help", "grpah"],
    ["run", "--dryrun", "x"],
    ["nosuch-thing.lobster"],
])
def test_every_error_starts_with_error(argv: list[str], work: Path, capsys: Capture) -> None:
    assert main(argv) != 0
    lines = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert any(line.startswith("Error: ") for line in lines), lines


def test_graph_format_error_suggests_the_format(work: Path, capsys: Capture) -> None:
    assert main(["graph", "--file", "x.lobster", "--format", "mermiad"]) == 2
    assert "Error: graph --format must be one of: mermaid, dot, ascii. Did you mean 'mermaid'?" in capsys.readouterr().err


def test_explain_takes_a_rule_name(capsys: Capture) -> None:
    assert main(["explain", "raw-arg-in-shell"]) == 0
    assert capsys.readouterr().out.startswith("# L301 `raw-arg-in-shell`")
    assert main(["explain", "raw-arg-in-shel"]) == 2
    assert "Did you mean 'raw-arg-in-shell'?" in capsys.readouterr().err


@pytest.mark.parametrize("quote", ['"', "'"])
def test_an_unclosed_yaml_quote_is_reported_where_it_opens(quote: str, work: Path, capsys: Capture) -> None:
    (work / "q.lobster").write_text(f"name: q\nsteps:\n  - id: a\n    run: {quote}echo hi\n  - id: b\n    run: echo b\n")
    assert main(["lint", "q.lobster"]) == 1
    out = capsys.readouterr().out
    assert f"q.lobster:4:10: E003 YAML syntax error: unclosed quote: this {quote} is never closed" in out, out
    assert main(["run", "q.lobster"]) == 1
    assert "at line 4, column 10" in capsys.readouterr().err


@pytest.mark.parametrize("words, cword, expected", [
    ("lobster graph --format ", "3", ["plain,mermaid", "plain,dot", "plain,ascii"]),
    ("lobster help gr", "2", ["plain,graph", "plain,groupBy"]),
    ("lobster run --approval", "2", ["plain,--approval-ttl"]),
    ("lobster run --ov", "2", ["plain,--overlap"]),
    ("lobster run --overlap ", "3", ["plain,skip", "plain,queue"]),
    ("lobster run --de", "2", ["plain,--detach"]),
    ("lobster resume --acc", "2", ["plain,--accept-unsigned-state"]),
    ("lobster resume --b", "2", ["plain,--backend"]),
])
def test_completion_covers_formats_help_and_every_run_and_resume_flag(words: str, cword: str, expected: list[str]) -> None:
    assert _complete(words, cword) == expected
