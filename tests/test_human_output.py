"""What lobster prints for people: control characters from files and names are escaped in every human format, and
many findings on one long line print in proportion to their number (the excerpt of the line is capped)."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from lobsterlang.cli import main
from lobsterlang.report import EXCERPT_COLUMNS
from lobsterlang.terminal import visible

Capture = pytest.CaptureFixture[str]
RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
"""What must never reach a terminal from a file (tabs and line breaks are layout)."""
TITLE = "\\e]0;pwned\\a"
"""An OSC sequence that sets the terminal's title, written as YAML escapes (YAML refuses the raw characters)."""
HOSTILE = f'steps:\n  - id: a\n    pipeline: "{TITLE} x"\n  - id: "b{TITLE}"\n    run: cat\n    stdin: "$c{TITLE}.json"\n'
SHOWN = "\\x1b]0;pwned\\x07"


def _clean(text: str) -> str:
    assert not RAW_CONTROL.search(text), repr(RAW_CONTROL.search(text))
    return text


def test_visible_escapes_controls_and_keeps_text() -> None:
    assert visible("plain ünïcode 🦞\ttab") == "plain ünïcode 🦞\ttab"
    assert visible("a\x1b[2Jb\x07\x9b\u202e\r\n") == "a\\x1b[2Jb\\x07\\x9b\\u202e\\r\\n"
    assert visible("one\ntwo\x1b", lines=True) == "one\ntwo\\x1b"


@pytest.mark.parametrize("fmt", ["text", "github"])
def test_lint_output_shows_control_characters_escaped(fmt: str, tmp_path: Path, capsys: Capture) -> None:
    path = tmp_path / "hostile.lobster"
    path.write_text(HOSTILE, encoding="utf-8")
    assert main(["lint", "--no-cache", "--no-shellcheck", "--format", fmt, str(path)]) == 1
    out = _clean(capsys.readouterr().out)
    assert f"unknown command `{SHOWN}`" in out


def test_run_and_graph_errors_show_control_characters_escaped(tmp_path: Path, capsys: Capture) -> None:
    path = tmp_path / "hostile.lobster"
    path.write_text(HOSTILE, encoding="utf-8")
    assert main(["run", str(path)]) == 1
    assert f"Unknown command: {SHOWN}" in _clean(capsys.readouterr().err)
    assert main(["run", "--dry-run", str(path)]) == 1
    assert SHOWN in _clean(capsys.readouterr().err)
    assert main(["graph", "--format", "ascii", str(path)]) == 0
    assert f"(pipeline: {SHOWN} x)" in _clean(capsys.readouterr().out)


def test_pipeline_errors_show_control_characters_escaped(capsys: Capture) -> None:
    assert main(["run", "\x1b]0;pwned\x07"]) != 0
    assert SHOWN in _clean(capsys.readouterr().err)


def test_compile_and_fmt_show_control_characters_escaped(tmp_path: Path, capsys: Capture, monkeypatch: pytest.MonkeyPatch) -> None:
    """Diagnostics (a key and a step id holding an OSC sequence), and file names in fmt's lines."""
    path = tmp_path / "hostile.lobster"
    path.write_text(f'steps:\n  - id: "b{TITLE}"\n    run: echo\n    "{TITLE}": 1\n', encoding="utf-8")
    assert main(["compile", str(path)]) == 0
    assert f"unknown key '{SHOWN}' in step b{SHOWN}" in _clean(capsys.readouterr().err)
    named = tmp_path / "n\x1b]0;pwned\x07.lobster"
    named.write_text("steps:\n- id: a\n  run: echo\n", encoding="utf-8")
    assert main(["fmt", "--check", str(named)]) == 1
    assert f"would reformat {tmp_path}/n{SHOWN}.lobster" in _clean(capsys.readouterr().out)
    assert main(["fmt", str(named)]) == 0
    assert f"reformatted {tmp_path}/n{SHOWN}.lobster" in _clean(capsys.readouterr().err)
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(f'steps:\n  - id: a\n    pipeline: "{TITLE}"\n'.encode())))
    assert main(["fmt", "--stdin-filename", "x\x1b[2J.lobster", "-"]) == 0  # formats: unknown commands are for lint
    _clean(capsys.readouterr().err)


def test_many_findings_on_one_long_line_print_in_proportion(tmp_path: Path, capsys: Capture) -> None:
    """5,000 `$a.stdout` on one 50 KB line printed 376 MB (each finding repeated the whole line); now each finding
    prints its message and a window of the line around it."""
    refs = 2000
    path = tmp_path / "long.lobster"
    path.write_text("steps:\n  - id: a\n    run: echo hi\n  - id: b\n    run: echo " + " ".join(["$a.stdout"] * refs) + "\n",
                    encoding="utf-8")
    assert main(["lint", "--no-cache", "--no-shellcheck", "--select", "L302", str(path)]) == 1
    out = capsys.readouterr().out
    assert out.count("L302") == refs
    assert len(out) < 700 * refs, len(out)
    excerpts = [line for line in out.splitlines() if line.startswith(" 5 | ")]
    assert len(excerpts) == refs and max(len(line) for line in excerpts) <= EXCERPT_COLUMNS + 10
    middle = out.split(f"{path}:5:{15 + 10 * (refs // 2)}: L302", 1)[1].splitlines()
    excerpt, caret = middle[2], middle[3]
    assert excerpt.startswith(" 5 | …") and excerpt.endswith("…")
    assert excerpt[caret.index("^") : caret.rindex("^") + 1] == "$a.stdout"
