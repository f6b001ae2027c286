"""Bad input gets a positioned diagnostic and exit 1 — never a traceback, a hang or a crash."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from lobsterlang.cli import main

BILLION_LAUGHS = "\n".join(
    [
        'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
        *(f"{c}: &{c} [{','.join(['*' + p] * 9)}]" for p, c in zip("abcdefgh", "bcdefghi", strict=True)),
        "steps: [{id: x, run: echo, stdin: *i}]",
        "",
    ]
)

BAD_FILES: dict[str, tuple[bytes, str, str]] = {
    # name: (content, file suffix, expected code)
    "empty-file": (b"", ".lobster", "S001"),
    "binary-file": (b"\x7fELF\x02\x01\x01\x00\x00\x00steps", ".lobster", "E002"),
    "invalid-utf8": (b"steps:\n  - id: a\n    run: echo \xff\xfe\n", ".lobster", "E001"),
    "yaml-syntax-error": (b"steps:\n  - id: a\n    run: echo\n   bad: [\n", ".lobster", "E003"),
    "alias-bomb": (BILLION_LAUGHS.encode(), ".lobster", "E005"),
    "tabs-for-indentation": (b"steps:\n\t- id: a\n\t  run: echo\n", ".lobster", "E003"),
    "top-level-list": (b"- id: a\n  run: echo\n", ".lobster", "S002"),
    "nested-10000-deep-yaml": (b"steps: " + b"[" * 10_000 + b"]" * 10_000 + b"\n", ".lobster", "E003"),
    "nested-10000-deep-json": (b'{"steps": ' + b"[" * 10_000 + b"]" * 10_000 + b"}", ".json", "E006"),
    "nested-300-deep-yaml-stdin": (
        b"steps:\n  - id: a\n    run: cat\n    stdin: " + b"[" * 300 + b"]" * 300 + b"\n", ".lobster", "E006",
    ),
    "duplicate-yaml-keys": (b"steps:\n  - id: a\n    run: echo 1\n    run: echo 2\n", ".lobster", "E007"),
    "recursive-alias": (b"x: &x [*x]\nsteps: [{id: a, run: echo}]\n", ".lobster", "E005"),
    "json-syntax-error": (b'{"steps": [}', ".json", "E004"),
    "scalar-document": (b"just a string\n", ".yaml", "S001"),
    "multiple-documents": (b"steps: []\n---\nsteps: []\n", ".yml", "E003"),
    "json-nan": (b'{"steps": [{"id": "a", "run": "echo", "stdin": NaN}]}', ".json", "E004"),
    "json-infinity": (b'{"steps": [{"id": "a", "run": "echo", "stdin": -Infinity}]}', ".json", "E004"),
    "json-byte-order-mark": (b'\xef\xbb\xbf{"steps": [{"id": "a", "run": "echo"}]}', ".json", "E004"),
}


@pytest.mark.parametrize("name", BAD_FILES)
def test_bad_file_gets_a_diagnostic(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    content, suffix, code = BAD_FILES[name]
    path = tmp_path / f"bad{suffix}"
    path.write_bytes(content)
    assert main(["compile", str(path)]) == 1
    err = capsys.readouterr().err
    assert f" {code} " in err, err[:500]
    assert "Traceback" not in err
    first = err.splitlines()[0]
    assert first.startswith(f"{path}:") and first.split(":")[1].isdigit() and first.split(":")[2].isdigit()


@pytest.mark.parametrize(("content", "where", "code"), [
    (b"steps:\n  - id: a\n    run: echo \x01 hi\n", ":3:15:", "U+0001"),
    (b"steps:\n  - id: a\n    run: echo \xc3\xa9 \x7f\n", ":3:17:", "U+007F"),
])
def test_a_control_character_is_named_where_it_is(content: bytes, where: str, code: str, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """PyYAML's reader refuses it with a character offset and no mark: E003 was at 1:1, with the parser's noise."""
    path = tmp_path / "c.lobster"
    path.write_bytes(content)
    assert main(["compile", str(path)]) == 1
    first, *rest = capsys.readouterr().err.splitlines()
    assert first == f"{path}{where} E003 YAML error: the character {code} is not allowed in YAML"
    assert any("hint: remove it, or write it as an escape" in line for line in rest)


def test_pipeline_of_ten_thousand_stages(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compile", "--pipeline", " | ".join(["json"] * 10_000)]) == 1
    assert "P004 pipeline has 10,000 stages; the limit is 500" in capsys.readouterr().err


def test_pipeline_of_five_hundred_stages_compiles(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compile", "--compact", "--pipeline", " | ".join(["json"] * 500)]) == 0


def test_no_traceback_from_a_real_process(tmp_path: Path) -> None:
    path = tmp_path / "bomb.lobster"
    path.write_text(BILLION_LAUGHS)
    proc = subprocess.run(
        [sys.executable, "-m", "lobsterlang", "compile", str(path)], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 1
    assert "E005" in proc.stderr and "Traceback" not in proc.stderr


def test_invalid_utf8_column_counts_characters(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "u.lobster"
    path.write_bytes("x: éé".encode() + b"\xff\n")
    assert main(["compile", str(path)]) == 1
    assert f"{path}:1:6: E001 invalid UTF-8: byte 0xff at byte offset 7" in capsys.readouterr().err


@pytest.mark.parametrize("value, expected", [(".inf", None), ("-.Inf", None), (".nan", None), ("1e3", 1000), ("1.5", 1.5), ("0o17", 15), ("0x1F", 31)])
def test_numbers_are_held_as_javascript_holds_them(value: str, expected: object) -> None:
    from lobsterlang.compile import compile_workflow
    from lobsterlang.ir import StdinValue

    result = compile_workflow(f"steps:\n  - id: a\n    run: cat\n    stdin: {value}\n", "n.lobster")
    assert result.ir is not None
    stdin = result.ir.steps[0].stdin
    assert isinstance(stdin, StdinValue) and stdin.value == expected and type(stdin.value) is type(expected)
