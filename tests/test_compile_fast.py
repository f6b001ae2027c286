"""`lobster compile` answers plain calls without click; every call gives what the click command gives."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import EXAMPLES, write_file

from lobsterlang.cli import main
from lobsterlang.cli.app import run as run_with_click
from lobsterlang.cli.compile_main import fast_compile

Capture = pytest.CaptureFixture[str]
HELLO = str(EXAMPLES / "hello.lobster")
BROKEN = "steps:\n  - id: a\n    run: echo\n    pipeline: json\n  - id: a\n    when: yes\n    run: echo\n"

PLAIN = [
    [HELLO],
    [HELLO, "--compact"],
    ["--compact", HELLO, "--format", "json"],
    [HELLO, "--format=json", "--color=never"],
    ["--pipeline", "exec --json --shell 'echo [1]' | json"],
    ["--pipeline=where a==1 | head --n 2", "--compact"],
    ["--pipeline", "a | 'unclosed"],
    ["--pipeline", "a | 'unclosed", "--format", "json"],
    ["--pipeline", "a | 'unclosed", "--color", "always"],
]
HANDED_TO_CLICK = [
    [],
    [HELLO, "--pipeline", "json"],
    [HELLO, HELLO],
    ["missing.lobster"],
    ["notes.txt"],
    [HELLO, "--format", "xml"],
    [HELLO, "--format"],
    [HELLO, "--colour", "never"],
    [HELLO, "--", "x"],
    ["--pipeline", "-x"],
    ["--pipeline", "a", "--pipeline", "b"],
    [HELLO, "-o", "out.json"],
]


def _both(args: list[str], capsys: Capture) -> tuple[tuple[int, str, str], tuple[int, str, str]]:
    fast = (main(["compile", *args]), *capsys.readouterr())
    slow = (run_with_click(["compile", *args]), *capsys.readouterr())
    return fast, slow


@pytest.mark.parametrize("args", PLAIN, ids=repr)
def test_plain_calls_take_the_fast_path_and_match_click(args: list[str], capsys: Capture) -> None:
    assert fast_compile(args) is not None
    capsys.readouterr()
    fast, slow = _both(args, capsys)
    assert fast == slow


@pytest.mark.parametrize("args", HANDED_TO_CLICK, ids=repr)
def test_other_calls_go_to_click(args: list[str], capsys: Capture, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert fast_compile(args) is None
    fast, slow = _both(args, capsys)
    assert fast == slow


def test_files_with_problems_match_click(tmp_path: Path, capsys: Capture) -> None:
    path = str(write_file(tmp_path, "broken.lobster", BROKEN))
    fast, slow = _both([path], capsys)
    assert fast == slow
    assert fast[0] == 1
    assert "S120" in fast[2]


def test_stdin_matches_click(capsys: Capture, monkeypatch: pytest.MonkeyPatch) -> None:
    text = '{"steps": [{"id": "a", "run": "echo hi"}]}'
    results = []
    for runner in (main, run_with_click):
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode())))
        results.append((runner(["compile", "-", "--stdin-filename", "w.json"]), *capsys.readouterr()))
    assert results[0] == results[1]
    assert results[0][0] == 0


def test_compiling_a_file_does_not_import_click() -> None:
    code = f"import sys; from lobsterlang.cli import main; main(['compile', {HELLO!r}]); print('click' in sys.modules, file=sys.stderr)"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stderr.strip() == "False"
