"""Fuzz: deep nesting, long `&&` chains, huge JSON integers, long paths and many stages give diagnostics.

Each generated file goes through compile, lint, fmt, graph and run (in process, as the CLI runs
them); none may print a traceback or an internal error, and every limit has its own code.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lobsterlang.cli import main
from lobsterlang.syntax.condparse import MAX_DEPTH
from lobsterlang.syntax.pipeline import MAX_STAGES

FUZZ = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
SIZES = st.one_of(st.sampled_from([1, 99, 100, 101, 326, 331, 1000]), st.integers(1, 1500))
COMMANDS = (["compile"], ["lint", "--no-shellcheck"], ["fmt", "--check"], ["graph"], ["graph", "--format", "dot"],
            ["run", "--mode", "tool"], ["run", "--dry-run"])
FIRST_STEP = "  - id: a\n    run: printf '{\"ok\":true}'\n"


def _cli(args: list[str], capsys: Any) -> tuple[int, str, str]:
    try:
        code = main(args)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 2
    out, err = capsys.readouterr()
    return code, out, err


def _every_command(path: Path, capsys: Any) -> dict[str, tuple[int, str, str]]:
    """Each command's exit code, stdout and stderr; none crashed."""
    results = {}
    for command in COMMANDS:
        code, out, err = _cli([*command, str(path)], capsys)
        for text in (out, err):
            assert "Traceback" not in text and "internal error" not in text and "RecursionError" not in text, (command, text[-2000:])
        if command[0] == "run" and command[1] == "--mode":
            assert json.loads(out)["protocolVersion"] == 1, out[-500:]
        results[" ".join(command)] = (code, out, err)
    return results


def _condition(kind: str, size: int) -> tuple[str, int]:
    """A condition of `kind` with `size` repetitions, and the depth of its tree."""
    if kind == "parens":
        return "(" * size + "$a.json.ok" + ")" * size, 1
    if kind == "and":
        return " && ".join(["$a.json.ok"] * size), size
    if kind == "or-compare":
        return " || ".join(["($a.json.ok == true)"] * size), size + 1
    return "!" * size + "$a.json.ok", size + 1


@pytest.mark.parametrize("kind", ["parens", "and", "or-compare", "not"])
@FUZZ
@given(size=SIZES)
def test_deep_conditions_give_x003_never_a_traceback(kind: str, size: int, tmp_path: Path, capsys: Any) -> None:
    condition, depth = _condition(kind, size)
    path = tmp_path / "deep.lobster"
    path.write_text(f"steps:\n{FIRST_STEP}  - id: b\n    run: echo b\n    when: {json.dumps(condition)}\n")
    results = _every_command(path, capsys)
    code, _, err = results["compile"]
    if depth > MAX_DEPTH:
        assert code == 1 and f"X003 Condition nests deeper than {MAX_DEPTH} levels" in err
        assert "X003" in results["run --mode tool"][1] or "nests deeper" in results["run --mode tool"][1]
    else:
        assert code == 0, err
        assert json.loads(results["run --mode tool"][1])["ok"]


@FUZZ
@given(digits=st.integers(4000, 20000), negative=st.booleans(), where=st.sampled_from(["timeout_ms", "default"]))
def test_huge_json_integers_give_e009(digits: int, negative: bool, where: str, tmp_path: Path, capsys: Any) -> None:
    number = ("-" if negative else "") + "9" * digits
    step = {"id": "a", "run": "echo a"}
    doc: dict[str, Any] = {"steps": [step]}
    if where == "timeout_ms":
        step["timeout_ms"] = "@"
    else:
        doc["args"] = {"n": {"default": "@"}}
    path = tmp_path / "w.lobster.json"
    path.write_text(json.dumps(doc).replace('"@"', number))
    code, _, err = _every_command(path, capsys)["compile"]
    assert (f"E009 number has {digits:,} digits; the limit is 4,300" in err) == (digits > 4300), err
    assert code != 0 or digits <= 4300


@FUZZ
@given(digits=st.integers(4000, 20000), sign=st.sampled_from(["", "-", "+"]), where=st.sampled_from(["timeout_ms", "default", "list"]))
def test_huge_yaml_integers_give_e009_as_in_json(digits: int, sign: str, where: str, tmp_path: Path, capsys: Any) -> None:
    # before: the YAML integer silently became a string (a `timeout_ms` error, or a default that was text)
    number = sign + "9" * digits
    text = {"timeout_ms": f"steps:\n  - id: a\n    run: echo a\n    timeout_ms: {number}\n",
            "default": f"args:\n  n:\n    default: {number}\nsteps:\n  - id: a\n    run: echo a\n",
            "list": f"args:\n  n:\n    default: [1, {{a: {number}}}]\nsteps:\n  - id: a\n    run: echo a\n"}[where]
    path = tmp_path / "w.lobster"
    path.write_text(text)
    code, _, err = _every_command(path, capsys)["compile"]
    line, col = next((n + 1, row.index(number) + 1) for n, row in enumerate(text.splitlines()) if number in row)
    assert (f"w.lobster:{line}:{col}: E009 number has {digits:,} digits; the limit is 4,300" in err) == (digits > 4300), err
    assert code != 0 or digits <= 4300


def test_long_yaml_numbers_that_python_reads_are_kept(tmp_path: Path, capsys: Any) -> None:
    long, hex_digits = "9" * 5000, "f" * 3000  # 0xfff… of 3,000 digits has 3,613 decimal digits
    path = tmp_path / "w.lobster"
    path.write_text(f"args:\n  h:\n    default: 0x{hex_digits}\n  q:\n    default: '{long}'\n"
                    f"  a:\n    default: &n {'9' * 4300}\n  b:\n    default: *n\nsteps:\n  - id: a\n    run: echo a\n")
    code, out, err = _cli(["compile", str(path)], capsys)
    assert code == 0 and "E009" not in err, err
    defaults = {arg["name"]: arg["default"] for arg in json.loads(out)["args"]}
    assert defaults["q"] == long and defaults["h"] == int(hex_digits, 16)
    assert str(defaults["a"]) == str(defaults["b"]) == "9" * 4300


@pytest.mark.parametrize(("number", "digits"), [("0x" + "f" * 3572, 4302), ("0o" + "7" * 4762, 4301), ("0x" + "9" * 5000, 6021)])
def test_yaml_hex_and_octal_integers_count_their_decimal_digits(number: str, digits: int, tmp_path: Path, capsys: Any) -> None:
    path = tmp_path / "w.lobster"
    path.write_text(f"args:\n  n:\n    default: {number}\nsteps:\n  - id: a\n    run: echo a\n")
    code, _, err = _cli(["compile", str(path)], capsys)
    assert code != 0 and f"w.lobster:3:14: E009 number has {digits:,} digits; the limit is 4,300" in err, err


@FUZZ
@given(length=st.integers(200, 5000), nested=st.booleans())
def test_long_workflow_paths_never_crash(length: int, nested: bool, tmp_path: Path, capsys: Any) -> None:
    name = "d/" * (length // 4) + "x.lobster" if nested else "x" * length + ".lobster"
    path = tmp_path / "parent.lobster"
    path.write_text(f"steps:\n  - id: child\n    workflow: {name}\n")
    results = _every_command(path, capsys)
    code, out, _ = results["run --mode tool"]
    assert code == 1 and "workflow file not found" in json.loads(out)["error"]["message"]


@FUZZ
@given(stages=SIZES)
def test_many_stages_give_p004(stages: int, tmp_path: Path, capsys: Any) -> None:
    pipeline = " | ".join(["exec --json --shell 'echo 1'", *["map --wrap x"] * (stages - 1)])
    path = tmp_path / "stages.lobster"
    path.write_text(f"steps:\n  - id: a\n    pipeline: {json.dumps(pipeline)}\n")
    results = _every_command(path, capsys)
    code, out, _ = results["run --mode tool"]
    assert (code == 0) == (stages <= MAX_STAGES), out[-500:]
    if stages > MAX_STAGES:
        assert f"the limit is {MAX_STAGES}" in results["compile"][2]
    code, out, _ = _cli(["run", "--mode", "tool", pipeline], capsys)
    assert (code == 0) == (stages <= MAX_STAGES) and json.loads(out)["protocolVersion"] == 1
