"""Author text is code, caller text is data: the file's own arg defaults run as shell text (as in the reference),
a value the caller supplies stays a quoted LOBSTER_ARG_<NAME> reference."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers import write_file

from lobsterlang.cli import main
from lobsterlang.compile import compile_workflow
from lobsterlang.interpret.workflow.argvars import authored_args

Capture = pytest.CaptureFixture[str]


@pytest.fixture(autouse=True)
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LOBSTER_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.delenv("NEWS_CHANNEL", raising=False)


def _run(path: Path, capsys: Capture, *extra: str) -> Any:
    assert main(["run", "--mode", "tool", "--file", str(path), *extra]) == 0
    return json.loads(capsys.readouterr().out)["output"]


def test_a_default_runs_as_shell_text_and_a_callers_value_is_data(tmp_path: Path, capsys: Capture,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    authored, given = tmp_path / "authored", tmp_path / "given"
    path = write_file(tmp_path, "w.lobster", f"""args:
  channel:
    default: "${{NEWS_CHANNEL:-whatsapp}}"
  stamp:
    default: "$(touch {authored}; echo made)"
steps:
  - id: send
    run: printf '%s|' ${{channel}} ${{stamp}}
""")
    assert _run(path, capsys) == ["whatsapp|made|"]
    assert authored.exists()
    monkeypatch.setenv("NEWS_CHANNEL", "sms")
    assert _run(path, capsys) == ["sms|made|"]
    hostile = json.dumps({"channel": "${NEWS_CHANNEL:-x}", "stamp": f"$(touch {given})"})
    assert _run(path, capsys, "--args-json", hostile) == [f"${{NEWS_CHANNEL:-x}}|$(touch {given})|"]
    assert not given.exists()


def test_exec_shell_in_a_pipeline_follows_the_same_rule(tmp_path: Path, capsys: Capture) -> None:
    path = write_file(tmp_path, "w.lobster", """args:
  greeting:
    default: "$(echo hello) world"
steps:
  - id: say
    pipeline: exec --shell 'printf "%s|" ${greeting}'
""")
    assert _run(path, capsys) == ["hello|world|"]
    assert _run(path, capsys, "--args-json", '{"greeting": "$(echo hi) there"}') == ["$(echo hi) there|"]


def test_a_default_is_not_held_to_the_arithmetic_check_a_callers_value_is(tmp_path: Path, capsys: Capture) -> None:
    path = write_file(tmp_path, "w.lobster", "args:\n  n: {default: '2 * 3'}\nsteps:\n  - id: a\n    run: echo $(( ${n} + 1 ))\n")
    assert _run(path, capsys) == [7]
    assert main(["run", "--mode", "tool", "--file", str(path), "--args-json", '{"n": "2 * 4"}']) == 1
    assert "must be an integer, got '2 * 4'" in json.loads(capsys.readouterr().out)["error"]["message"]


def test_a_sub_workflows_own_default_is_author_text_and_a_parents_value_is_data(tmp_path: Path, capsys: Capture) -> None:
    write_file(tmp_path, "child.lobster", """args:
  what: {default: "$(echo child-default)"}
  given: {default: plain}
steps:
  - id: show
    run: printf '%s|%s' ${what} ${given}
""")
    path = write_file(tmp_path, "w.lobster", """steps:
  - id: call
    workflow: child.lobster
    workflow_args: {given: "$(echo from-parent)"}
""")
    assert _run(path, capsys) == ["child-default|$(echo from-parent)"]


@pytest.mark.parametrize(
    "given, authored",
    [
        ({}, {"text", "count", "flag"}),
        ({"text": "${X:-y}", "count": 3, "flag": True}, {"text", "count", "flag"}),  # the very same values
        ({"text": "other", "count": "3", "flag": 1}, set()),  # a string is not the number, 1 is not true
    ],
)
def test_only_the_declared_default_itself_is_author_text(given: dict[str, Any], authored: set[str]) -> None:
    text = "args:\n  text: {default: '${X:-y}'}\n  count: {default: 3}\n  flag: {default: true}\n  bare: {}\nsteps:\n  - id: a\n    run: echo\n"
    workflow = compile_workflow(text, "w.lobster").ir
    assert workflow is not None
    args = {"text": "${X:-y}", "count": 3, "flag": True, **given, "bare": "x"}
    assert authored_args(workflow.args, args) == authored
