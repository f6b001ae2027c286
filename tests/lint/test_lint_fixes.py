"""`--fix` edits: raw `${arg}` → quoted env var (per shell and YAML quoting), groupBy, `--flag=true`."""

from __future__ import annotations

import pytest

from lobsterlang.compile import compile_workflow
from lobsterlang.lint import Config, Source, lint_source
from lobsterlang.lint.fixes import apply_fixes, unified_diff
from lobsterlang.lint.shelltext import variable_for
from lobsterlang.syntax.shellparse import parse

NO_SHELLCHECK = Config(shellcheck=False, target="reference")
"""L301 reports raw args for files written for the reference runtime."""
ARGS = "args:\n  msg:\n    default: hi\n"


def fixed(text: str, path: str = "f.lobster", unsafe: bool = True) -> str:
    result = lint_source(Source(path, text), NO_SHELLCHECK)
    out, _ = apply_fixes(result.text, result.diagnostics, unsafe=unsafe)
    return out


@pytest.mark.parametrize(
    ("run", "after"),
    [
        ("run: echo ${msg}", 'run: echo "$LOBSTER_ARG_MSG"'),
        ("run: echo \"a ${msg} b\"", "run: echo \"a $LOBSTER_ARG_MSG b\""),
        ("run: echo \"${msg}s\"", "run: echo \"$LOBSTER_ARG_MSG\"\"s\""),
        ("run: echo '${msg}'", "run: echo ''\"$LOBSTER_ARG_MSG\"''"),
        ('run: "echo ${msg}"', 'run: "echo \\"$LOBSTER_ARG_MSG\\""'),
        ("run: 'echo ${msg}'", "run: 'echo \"$LOBSTER_ARG_MSG\"'"),
        ("run: |\n      echo ${msg}\n", 'run: |\n      echo "$LOBSTER_ARG_MSG"\n'),
        ("command: >-\n      printf '%s' ${msg}\n", "command: >-\n      printf '%s' \"$LOBSTER_ARG_MSG\"\n"),
    ],
)
def test_raw_arg_fix_quotes_for_shell_and_yaml(run: str, after: str) -> None:
    before = f"{ARGS}steps:\n  - id: a\n    {run}\n"
    out = fixed(before)
    assert out == f"{ARGS}steps:\n  - id: a\n    {after}\n"
    assert compile_workflow(out, "f.lobster").ok
    assert "L301" not in {d.code for d in lint_source(Source("f.lobster", out), NO_SHELLCHECK).diagnostics}


def test_raw_arg_fix_keeps_the_value_identical_for_the_shell() -> None:
    out = fixed(f"{ARGS}steps:\n  - id: a\n    run: echo '${{msg}}' x\n")
    command = compile_workflow(out, "f.lobster").ir.steps[0].action.command.text  # type: ignore[union-attr]
    assert command == "echo ''\"$LOBSTER_ARG_MSG\"'' x"


def test_no_fix_where_a_plain_scalar_would_start_with_a_quote() -> None:
    text = f"{ARGS}steps:\n  - id: a\n    run: ${{msg}} --version\n"
    result = lint_source(Source("f.lobster", text), NO_SHELLCHECK)
    [diag] = [d for d in result.diagnostics if d.code == "L301"]
    assert diag.fix is None


def test_no_fix_for_an_undeclared_arg() -> None:
    text = "steps:\n  - id: a\n    run: echo ${nope}\n"
    assert all(d.fix is None for d in lint_source(Source("f.lobster", text), NO_SHELLCHECK).diagnostics)


def test_raw_arg_fix_in_a_json_file() -> None:
    text = '{"args": {"msg": {"default": "hi"}}, "steps": [{"id": "a", "run": "echo ${msg}"}]}'
    out = fixed(text, "f.json")
    assert out == '{"args": {"msg": {"default": "hi"}}, "steps": [{"id": "a", "run": "echo \\"$LOBSTER_ARG_MSG\\""}]}'
    assert compile_workflow(out, "f.json").ok


def test_group_by_and_bare_flag_fixes() -> None:
    text = "steps:\n  - id: a\n    pipeline: llm.invoke --refresh \"Summarize\" | group_by --key k\n"
    out = fixed(text)
    assert out == "steps:\n  - id: a\n    pipeline: llm.invoke --refresh=true \"Summarize\" | groupBy --key k\n"
    assert lint_source(Source("f.lobster", out), NO_SHELLCHECK).diagnostics == ()


def test_overlapping_fixes_apply_once() -> None:
    text = f"{ARGS}steps:\n  - id: a\n    run: echo ${{msg}}\n"
    result = lint_source(Source("f.lobster", text), NO_SHELLCHECK)
    doubled = result.diagnostics + result.diagnostics
    out, count = apply_fixes(text, doubled, unsafe=True)
    assert count == 1 and out.count("LOBSTER_ARG_MSG") == 1


@pytest.mark.parametrize(
    ("script", "at", "state"),
    [("echo x", 5, "code"), ("echo 'a x'", 8, "single"), ('echo "a x"', 8, "double"), ("echo \\' x", 8, "code"),
     ("echo \"it's\" x", 12, "code"), ("cat <<'EOF'\n$x\nEOF\n", 12, "quoted-heredoc"), ("cat <<EOF\n$x\nEOF\n", 10, "heredoc"),
     ("# echo $x\n", 7, "comment"), ('echo "$(date $x)"', 14, "code")],
)
def test_shell_context(script: str, at: int, state: str) -> None:
    assert parse(script).context(at) == state


def test_unquoted_raw_arg_fix_is_unsafe_and_quoted_one_safe() -> None:
    """`echo ${msg}` splits the value into words; `"$LOBSTER_ARG_MSG"` would not: only --unsafe-fixes applies it."""
    before = f"{ARGS}steps:\n  - id: a\n    run: |\n      for t in ${{msg}}; do echo \"$t ${{msg}}\"; done\n"
    assert fixed(before, unsafe=False) == before.replace('"$t ${msg}"', '"$t $LOBSTER_ARG_MSG"')
    assert fixed(before, unsafe=True).count("LOBSTER_ARG_MSG") == 2


def test_variable_for_each_state() -> None:
    assert variable_for("code", "X") == '"$X"'
    assert variable_for("heredoc", "X", "y") == "${X}"
    assert variable_for("double", "X", " ") == "$X"
    assert variable_for("double", "X", "y") == '$X""'
    assert variable_for("single", "X") == "'\"$X\"'"


def test_unified_diff_names_the_file() -> None:
    diff = unified_diff("f.lobster", "a\n", "b\n")
    assert diff.startswith("--- f.lobster\n+++ f.lobster\n") and "-a\n+b\n" in diff
