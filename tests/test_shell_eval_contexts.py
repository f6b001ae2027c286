"""Where bash (or another program) evaluates an arg's value: each construct runs under real bash and dash.

A caller's value reaches the shell as a quoted variable, but bash still evaluates that value in
arithmetic (`let`, `declare -i`, subscripts…), in variable names (`printf -v`, `read`, `declare`,
`[[ -v … ]]`…) and in a quoted array assignment, where `a[$(touch x)]` or `$(touch x)` runs a
command; and a program fed a here-document or here-string runs it as its code. In each construct
below a hostile value is refused before the step starts (whichever shell runs it), and a harmless
value still runs. docs/security.md lists what stays outside these checks.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from lobsterlang.cli import main

SUBSCRIPT = "a[$(touch {canary})]"
COMMAND = "$(touch {canary})"
PYTHON = "');open({canary!r},'w');print('"


@dataclass(frozen=True)
class Construct:
    """A `run:` script with `${x}`, a value that must still work and what the step then prints, and the hostile value."""

    script: str
    benign: str
    prints: str
    payload: str = SUBSCRIPT


CONSTRUCTS = {
    # issue 29 item 1: arithmetic reached through another spelling of `let` / `declare -i`
    "builtin_let": Construct('builtin let "v=${x}"; echo $v', "41", "41"),
    "command_let": Construct('command let "v=${x}"; echo $v', "41", "41"),
    "backslash_let": Construct('\\let "v=${x}"; echo $v', "41", "41"),
    "quoted_let": Construct('"let" "v=${x}"; echo $v', "41", "41"),
    "split_quoted_let": Construct("l''et \"v=${x}\"; echo $v", "41", "41"),
    "ansi_c_let": Construct("$'let' \"v=${x}\"; echo $v", "41", "41"),
    "time_let": Construct('time let "v=${x}"; echo $v', "41", "41"),
    "builtin_declare_i": Construct("builtin declare -i v=${x}; echo $v", "41", "41"),
    "command_declare_i": Construct("command declare -i v=${x}; echo $v", "41", "41"),
    "integer_variable": Construct("declare -i v; v=${x}; echo $v", "41", "41"),
    "array_element": Construct("a[${x}]=1; echo ${#a[@]}", "41", "1"),
    "array_literal_key": Construct("a=([${x}]=1); echo ${#a[@]}", "41", "1"),
    "arithmetic_of_output": Construct("echo $(( $(echo ${x}) + 1 ))", "41", "42"),
    # issue 29 item 2: variable names
    "printf_v": Construct("printf -v ${x} %s 1; echo ok", "v", "ok"),
    "printf_v_prefixed": Construct('printf -v "v_${x}" %s 1; echo ok', "v", "ok"),
    "read": Construct("read ${x} <<< 1; echo ok", "v", "ok"),
    "read_array": Construct("read -r -a ${x} <<< 1; echo ok", "v", "ok"),
    "mapfile": Construct("mapfile -t ${x} < /dev/null; echo ok", "v", "ok"),
    "declare": Construct("declare ${x}=1; echo ok", "v", "ok"),
    "declare_global": Construct("declare -g ${x}=1; echo ok", "v", "ok"),
    "typeset": Construct("typeset ${x}=1; echo ok", "v", "ok"),
    "local": Construct("f() { local ${x}=1; echo ok; }; f", "v", "ok"),
    "export": Construct("export ${x}=1; echo ok", "v", "ok"),
    "readonly": Construct("readonly ${x}=1; echo ok", "v", "ok"),
    "test_v_double_brackets": Construct("[[ -v ${x} ]]; echo ok", "v", "ok"),
    "test_v_command": Construct("test -v ${x}; echo ok", "v", "ok"),
    "test_v_brackets": Construct("[ -v ${x} ]; echo ok", "v", "ok"),
    "nameref": Construct('declare -n r=${x}; echo "ok$r"', "v", "ok"),
    "wait_p": Construct("sleep 0 & wait -n -p ${x}; echo ok", "v", "ok"),
    "unset": Construct("a=(1 2); unset ${x}; echo ok", "v", "ok"),
    "getopts": Construct("getopts ab ${x}; echo ok", "v", "ok"),
    "quoted_array_assignment": Construct('a=(0); declare -a "a=(${x})"; echo ${#a[@]}', "1 2", "2", COMMAND),
}

PROGRAMS = {
    # issue 29 item 18: a here-document or here-string that another program runs as its code
    "python_quoted_heredoc": Construct("python3 <<'EOF'\nprint('${x}')\nEOF", "41", "41", PYTHON),
    "python_heredoc": Construct("python3 - <<EOF\nprint('${x}')\nEOF", "41", "41", PYTHON),
    "cat_into_python": Construct("cat <<'EOF' | python3 -\nprint('${x}')\nEOF", "41", "41", PYTHON),
    "bash_quoted_heredoc": Construct("bash <<'EOF'\necho ${x}\nEOF", "41", "41", COMMAND),
    "python_herestring": Construct("python3 <<< \"print('${x}')\"", "41", "41", PYTHON),
}

DATA = {
    # not refused: the value stays data
    "cat_quoted_heredoc": ("cat <<'EOF'\n${x}\nEOF", "{value}"),
    "python_reads_stdin": ("python3 -c 'import sys; print(sys.stdin.read().strip())' <<'EOF'\n${x}\nEOF", "{value}"),
    "printf_format_operand": ('printf "%s" "$(printf %s ${x})"', "{value}"),
    "arithmetic_of_file_output": ("echo $(( $(wc -c < ${x}) ))", "0"),
    "plain_assignment": ("declare v=${x}; echo \"$v\"", "{value}"),
    "assoc_key": ("declare -A m=([${x}]=1); echo ${#m[@]}", "1"),
}


def shells() -> list[Any]:
    return [pytest.param(name, marks=pytest.mark.skipif(shutil.which(name) is None, reason=f"needs {name}")) for name in ("bash", "dash")]


@pytest.fixture(autouse=True)
def _state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LOBSTER_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.chdir(tmp_path)


def run_step(tmp_path: Path, step: str, value: str, shell: str, capsys: Any, *extra: str) -> tuple[int, dict[str, Any]]:
    """Run a one-step workflow (`step` is the step's YAML line) with arg x = `value` under `shell`."""
    path = tmp_path / "wf.lobster"
    path.write_text(f'args:\n  x: {{default: ""}}\nsteps:\n  - id: s\n    {step}\n', encoding="utf-8")
    argv = ["run", "--mode", "tool", *extra, "--file", str(path), "--args-json", json.dumps({"x": value})]
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("LOBSTER_SHELL", shutil.which(shell) or shell)
        code = main(argv)
    return code, json.loads(capsys.readouterr().out)


def run_line(script: str) -> str:
    return "run: " + json.dumps(script)


def exec_line(script: str) -> str:
    """The script as `exec --shell` text in a `pipeline:` step (single quotes in it are closed and reopened)."""
    return "pipeline: " + json.dumps("exec --shell '" + script.replace("'", "'\"'\"'") + "'")


def printed(envelope: dict[str, Any]) -> str:
    return "\n".join(str(item) for item in envelope["output"]).strip()


def assert_refused(code: int, envelope: dict[str, Any], canary: Path) -> None:
    assert not canary.exists(), "the payload ran"
    assert code == 1 and "arg x is used" in envelope["error"]["message"], envelope


@pytest.mark.parametrize("shell", shells())
@pytest.mark.parametrize("name", sorted(CONSTRUCTS))
def test_hostile_value_is_refused_where_bash_evaluates_it(name: str, shell: str, tmp_path: Path, capsys: Any) -> None:
    canary = tmp_path / "canary"
    construct = CONSTRUCTS[name]
    code, envelope = run_step(tmp_path, run_line(construct.script), construct.payload.format(canary=str(canary)), shell, capsys)
    assert_refused(code, envelope, canary)


@pytest.mark.parametrize("shell", shells())
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_hostile_value_is_refused_where_a_program_runs_it(name: str, shell: str, tmp_path: Path, capsys: Any) -> None:
    canary = tmp_path / "canary"
    construct = PROGRAMS[name]
    code, envelope = run_step(tmp_path, run_line(construct.script), construct.payload.format(canary=str(canary)), shell, capsys)
    assert_refused(code, envelope, canary)


@pytest.mark.parametrize("name", sorted(CONSTRUCTS) + sorted(PROGRAMS))
def test_exec_shell_refuses_the_same(name: str, tmp_path: Path, capsys: Any) -> None:
    canary = tmp_path / "canary"
    construct = CONSTRUCTS.get(name) or PROGRAMS[name]
    code, envelope = run_step(tmp_path, exec_line(construct.script), construct.payload.format(canary=str(canary)), "bash", capsys)
    assert_refused(code, envelope, canary)


@pytest.mark.parametrize("script", ["builtin let v=${x}; echo $v", "printf -v ${x} %s 1", "python3 <<< ${x}"])
def test_exec_implicit_shell_refuses_the_same(script: str, tmp_path: Path, capsys: Any) -> None:
    canary = tmp_path / "canary"
    code, envelope = run_step(tmp_path, "pipeline: " + json.dumps(f"exec '{script}'"), SUBSCRIPT.format(canary=canary), "bash", capsys)
    assert_refused(code, envelope, canary)


@pytest.mark.parametrize("name", sorted(CONSTRUCTS) + sorted(PROGRAMS))
def test_harmless_value_still_runs(name: str, tmp_path: Path, capsys: Any) -> None:
    construct = CONSTRUCTS.get(name) or PROGRAMS[name]
    code, envelope = run_step(tmp_path, run_line(construct.script), construct.benign, "bash", capsys)
    assert code == 0 and printed(envelope) == construct.prints, envelope


@pytest.mark.parametrize("name", sorted(CONSTRUCTS) + sorted(PROGRAMS))
def test_dry_run_refuses_what_the_run_refuses(name: str, tmp_path: Path, capsys: Any) -> None:
    construct = CONSTRUCTS.get(name) or PROGRAMS[name]
    code, envelope = run_step(tmp_path, run_line(construct.script), construct.payload.format(canary="c"), "bash", capsys, "--dry-run")
    assert code == 1 and "arg x is used" in envelope["error"]["message"], envelope


@pytest.mark.parametrize("name", sorted(DATA))
def test_data_contexts_take_any_value(name: str, tmp_path: Path, capsys: Any) -> None:
    script, expected = DATA[name]
    value = "/dev/null" if "wc -c" in script else "a[$(touch canary)] it's"
    code, envelope = run_step(tmp_path, run_line(script), value, "bash", capsys)
    assert code == 0 and printed(envelope) == expected.format(value=value), envelope
    assert not (tmp_path / "canary").exists()


def test_raw_args_turn_the_checks_off(tmp_path: Path, capsys: Any) -> None:
    code, envelope = run_step(tmp_path, run_line("python3 <<'EOF'\nprint('${x}')\nEOF"), "hi", "bash", capsys, "--raw-args")
    assert code == 0 and printed(envelope) == "hi", envelope


def test_an_arg_after_a_step_reference_is_found(tmp_path: Path, capsys: Any) -> None:
    path = tmp_path / "wf.lobster"
    path.write_text('args:\n  x: {default: ""}\nsteps:\n  - id: prev\n    run: echo hi\n  - id: s\n    run: \'echo "$prev.stdout"; let "v=${x}"\'\n', encoding="utf-8")
    code = main(["run", "--mode", "tool", "--file", str(path), "--args-json", json.dumps({"x": "a[1]"})])
    envelope = json.loads(capsys.readouterr().out)
    assert code == 1 and "arg x is used in let" in envelope["error"]["message"], envelope


LOADED = """\
import json, sys
from lobsterlang.cli import main
main(["run", "--mode", "tool", "--file", sys.argv[1], "--args-json", '{"x": "41"}'])
print(json.dumps("tree_sitter" in sys.modules))
"""


@pytest.mark.parametrize("script, parsed", [('echo "${x}" | tr 4 5', False), ('let "v = ${x}"; echo $v', True)])
def test_tree_sitter_is_loaded_only_for_text_that_may_evaluate(script: str, parsed: bool, tmp_path: Path) -> None:
    path = tmp_path / "wf.lobster"
    path.write_text(f'args:\n  x: {{default: ""}}\nsteps:\n  - id: s\n    {run_line(script)}\n', encoding="utf-8")
    env = {**os.environ, "LOBSTER_STATE_DIR": str(tmp_path / "state")}
    done = subprocess.run([sys.executable, "-c", LOADED, str(path)], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1]) is parsed
