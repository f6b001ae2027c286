"""Issue 13 item 5: files with a lone CR, U+2028, U+2029 or U+0085 line break format like any other,
and keys longer than YAML's 1024-character limit for implicit keys are written as explicit keys."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from test_fmt_properties import _yaml_source, workflows

from lobsterlang.cli import main
from lobsterlang.compile import compile_workflow
from lobsterlang.fmt import format_text
from lobsterlang.fmt.meaning import meaning

BREAKS = ["\r", "\r\n", "\u2028", "\u2029", "\x85"]


def _same(source: str, out: str, path: str = "x.lobster") -> None:
    before, after = compile_workflow(source, path), compile_workflow(out, path)
    assert before.ok and before.ir is not None and after.ok and after.ir is not None, out
    assert meaning(after.ir) == meaning(before.ir)
    assert sorted(c.text for c in after.ir.comments) == sorted(c.text for c in before.ir.comments)
    assert format_text(out, path) == out


@pytest.mark.parametrize("br", BREAKS, ids=repr)
def test_a_comment_ends_at_any_yaml_line_break(br: str) -> None:
    source = f"name: x # c{br}steps:{br}  - id: a  # t{br}    run: |{br}      echo{br}    # end{br}  - id: b\n    run: echo\n"
    out = format_text(source, "x.lobster")
    assert out.count("steps:") == 1 and out.count("name:") == 1  # no key copied out of a comment
    _same(source, out)


@pytest.mark.parametrize("br", BREAKS, ids=repr)
def test_the_cli_formats_such_a_file(tmp_path: Path, br: str, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "flow.lobster"
    source = f"name: x  # the name{br}steps:{br}  - id: a{br}    run: echo a\n"
    path.write_bytes(source.encode())
    assert main(["fmt", "--diff", str(path)]) == 1  # --diff exits 1 when a file would change (docs/cli.md, exit codes)
    diff = capsys.readouterr().out
    assert "+name: x  # the name\n+steps:\n" in diff and diff.count("+steps:") == 1
    assert main(["fmt", str(path)]) == 0
    out = path.read_text(encoding="utf-8")
    assert out == "name: x  # the name\nsteps:\n  - id: a\n    run: echo a\n"
    _same(source, out)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(workflows(), st.data())
def test_any_line_break_character_keeps_meaning_and_comments(doc: dict[str, Any], data: Any) -> None:
    lines = format_text(_yaml_source(doc), "g.lobster").split("\n")
    for number in sorted(data.draw(st.sets(st.integers(0, len(lines) - 1), max_size=4)), reverse=True):
        if data.draw(st.booleans()):
            lines[number] += f"  # c{number}"
        else:
            indent = len(lines[number]) - len(lines[number].lstrip())
            lines.insert(number, " " * indent + f"# c{number}")
    breaks = data.draw(st.lists(st.sampled_from(["\n", *BREAKS]), min_size=len(lines), max_size=len(lines)))
    source = "".join(line + br for line, br in zip(lines, breaks, strict=True))
    assume(compile_workflow(source, "g.lobster").ok)
    _same(source, format_text(source, "g.lobster"), "g.lobster")


def test_keys_longer_than_1024_characters_are_explicit_keys() -> None:
    key = "k" * 1100
    doc = {"args": {key: {"default": 1}}, "steps": [{"id": "a", "run": "echo", "x-data": {key: {"a": [1]}, "short": 2}}]}
    source = json.dumps(doc)
    out = format_text(source, "x.json", to_yaml=True)
    assert f"  ? {key}\n  :\n    default: 1\n" in out
    assert f"      ? {key}\n      :\n        a:\n          - 1\n      short: 2\n" in out
    before, after = compile_workflow(source, "x.json"), compile_workflow(out, "x.lobster")
    assert after.ok and after.ir is not None and before.ir is not None
    assert meaning(after.ir) == meaning(before.ir)
    assert format_text(out, "x.lobster") == out
