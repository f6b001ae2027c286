"""Args are data wherever a shell reads them: `run:`, `command:`, `exec --shell` and exec's implicit-shell form."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from lobsterlang.cli import main

HOSTILE = ["$(touch {canary})", "`touch {canary}`", "; touch {canary}", "'; touch {canary}; '", "x\ntouch {canary}"]

PLACES = {
    "run": "run: printf '%s' ${x}",
    "command": "command: printf '%s' \"${x}\"",
    "exec_shell": "pipeline: exec --shell 'printf %s ${x}'",
    "exec_shell_equals": "pipeline: exec --shell='printf %s \"${x}\"'",
    "exec_bare_shell_flag": "pipeline: exec 'printf %s ${x}' --shell",
    "exec_implicit_shell": "pipeline: exec 'printf %s ${x}'",
    "exec_shell_then_more": "pipeline: exec --shell 'printf %s ${x}' | map --wrap v",
}


def run_file(tmp_path: Path, step: str, value: str, capsys: Any, *extra: str) -> tuple[int, dict[str, Any]]:
    path = tmp_path / "wf.lobster"
    path.write_text(f'args:\n  x: {{default: ""}}\nsteps:\n  - id: s\n    {step}\n', encoding="utf-8")
    code = main(["run", "--mode", "tool", *extra, "--file", str(path), "--args-json", json.dumps({"x": value})])
    return code, json.loads(capsys.readouterr().out)


@pytest.fixture(autouse=True)
def _state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LOBSTER_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.chdir(tmp_path)


@pytest.mark.parametrize("place", sorted(PLACES))
@pytest.mark.parametrize("template", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_value_is_printed_not_run(place: str, template: str, tmp_path: Path, capsys: Any) -> None:
    canary = tmp_path / "canary"
    value = template.format(canary=canary)
    code, envelope = run_file(tmp_path, PLACES[place], value, capsys)
    assert code == 0, envelope
    assert not canary.exists()
    printed = envelope["output"]
    expected: list[Any] = value.split("\n") if place.startswith("exec") else [value]
    if place == "exec_shell_then_more":
        expected = [{"v": line} for line in expected]
    assert printed == expected


@pytest.mark.parametrize("place", ["exec_shell", "exec_implicit_shell"])
def test_raw_args_keep_the_reference_substitution(place: str, tmp_path: Path, capsys: Any) -> None:
    canary = tmp_path / "canary"
    code, envelope = run_file(tmp_path, PLACES[place], f"$(touch {canary})", capsys, "--raw-args")
    assert code == 0, envelope
    assert canary.exists()


def test_exec_argv_form_is_untouched(tmp_path: Path, capsys: Any) -> None:
    code, envelope = run_file(tmp_path, "pipeline: exec printf '%s|' ${x} b", "a b", capsys)
    assert code == 0 and envelope["output"] == ["a b|b|"]


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
@pytest.mark.parametrize("place", ["exec_shell", "exec_implicit_shell", "run"])
def test_args_are_data_under_bash_too(place: str, tmp_path: Path, capsys: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LOBSTER_SHELL", shutil.which("bash") or "bash")
    canary = tmp_path / "canary"
    code, envelope = run_file(tmp_path, PLACES[place], f"$(touch {canary})", capsys)
    assert code == 0 and not canary.exists(), envelope


ARITHMETIC = {
    "dollar_parens": ('echo $((${n} + 1))', "42"),
    "dollar_parens_quoted": ('echo $(( "${n}" + 1 ))', "42"),
    "double_parens": ('(( ${n} > 1 )) && echo 42', "42"),
    "test_eq": ('[[ ${n} -eq 41 ]] && echo 42', "42"),
    "test_eq_quoted_right": ('[[ 41 -eq "${n}" ]] && echo 42', "42"),
    "let": ('let "m = ${n} + 1"; echo $m', "42"),
    "declare_i": ('declare -i m=${n}; echo $((m + 1))', "42"),
    "local_i_in_function": ('f() { local -ri m=${n}; echo $((m + 1)); }; f', "42"),
    "subscript": ('a=(0 42); i=$((${n} - 40)); echo "${a[${n}-40]}"', "42"),
    "offset": ('s=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx42; echo "${s:${n}}"', "42"),
    "old_brackets": ('echo $[${n} + 1]', "42"),
    "array_slice": ('a=($(seq 0 42)); echo "${a[@]:${n}:1}" | tr -d " "', "41"),
}


@pytest.fixture
def bash(monkeypatch: pytest.MonkeyPatch) -> None:
    path = shutil.which("bash")
    if path is None:
        pytest.skip("needs bash")
    monkeypatch.setenv("LOBSTER_SHELL", path)


@pytest.mark.usefixtures("bash")
@pytest.mark.parametrize("place", sorted(ARITHMETIC))
def test_arithmetic_contexts_refuse_code(place: str, tmp_path: Path, capsys: Any) -> None:
    canary = tmp_path / "canary"
    command, _ = ARITHMETIC[place]
    step = "run: " + json.dumps(command.replace("${n}", "${x}"))
    code, envelope = run_file(tmp_path, step, f"a[$(touch {canary})]", capsys)
    assert not canary.exists()
    assert code == 1 and "where bash evaluates it as arithmetic" in envelope["error"]["message"], envelope


@pytest.mark.usefixtures("bash")
@pytest.mark.parametrize("place", sorted(ARITHMETIC))
def test_arithmetic_contexts_take_integers(place: str, tmp_path: Path, capsys: Any) -> None:
    command, expected = ARITHMETIC[place]
    code, envelope = run_file(tmp_path, "run: " + json.dumps(command.replace("${n}", "${x}")), "41", capsys)
    assert code == 0 and [str(item).strip() for item in envelope["output"]] == [expected], envelope


@pytest.mark.usefixtures("bash")
@pytest.mark.parametrize(
    "command",
    ['[[ ${x} == "a[1]" ]] && echo same', 'echo "${x:-none}" $((1 + 1))', 'echo "[[ ${x} -eq" ]]', "echo let ${x}"],
)
def test_string_contexts_keep_any_value(command: str, tmp_path: Path, capsys: Any) -> None:
    code, envelope = run_file(tmp_path, "run: " + json.dumps(command), "a[1]", capsys)
    assert code == 0, envelope


def test_raw_args_do_not_check_arithmetic(tmp_path: Path, capsys: Any) -> None:
    code, envelope = run_file(tmp_path, "run: echo $((${x} + 1))", "1 + 1", capsys, "--raw-args")
    assert code == 0 and envelope["output"] == [3]


@pytest.mark.parametrize(
    "prefix, kind",
    [("echo ${a[", "subscript"), ("echo ${a[1+", "subscript"), ("echo ${x:", "offset"), ("echo ${x:1:", "offset"),
     ("echo ${x:-", "param"), ('echo "${a[@]:', "offset"), ("echo ${a[1]:0:", "offset"), ("echo ${x/a:", "param"), ("(( ", "arith"), ("echo $[1 + ", "brackets"), ("echo $[a[1] + ", "brackets"), ("(( (1+2) + ", "arith"),
     ("(cd x; ( ", "paren"), ("echo ${a[1]} ", "top"), ("echo ${x:1} ", "top"), ("(( 1 )); echo ", "top")],
)
def test_arithmetic_shell_contexts(prefix: str, kind: str) -> None:
    from lobsterlang.interpret.workflow.shellscan import context_at_end

    assert context_at_end(prefix).kind == kind


@pytest.mark.parametrize("step", ["run: echo $((${x} + 1))", "pipeline: exec --shell 'echo $((${x} + 1))'"])
def test_dry_run_refuses_what_the_run_refuses(step: str, tmp_path: Path, capsys: Any) -> None:
    code, envelope = run_file(tmp_path, step, "a[1]", capsys, "--dry-run")
    assert code == 1 and "where bash evaluates it as arithmetic" in envelope["error"]["message"]
    code, envelope = run_file(tmp_path, step, "41", capsys, "--dry-run")
    assert code == 0, envelope
