"""LOBSTER_TOOL_COMMANDS: a host lists the commands tool requests may use, so `exec` and shell steps can be refused (issue 29 item 17).

Checked before anything of the request runs: pipelines stage by stage, workflow files step by
step (a `run:` / `command:` step is the command `run`), sub-workflows as they start, resumes as
they continue. Gates are always allowed. Outside a tool call the setting changes nothing.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from lobsterlang.interpret.toolcall import call_tool

SHELL_FLOW = """\
steps:
  - id: first
    pipeline: commands.list | pick name | head --n 1
  - id: touch
    run: touch ran
"""
GATED_PIPELINE_FLOW = """\
steps:
  - id: list
    pipeline: commands.list | pick name | head --n 2
  - id: gate
    approval: {prompt: Go?}
  - id: after
    pipeline: commands.list | head --n 1
    when: $gate.approved
"""
PARENT = """\
steps:
  - id: first
    pipeline: commands.list | head --n 1
  - id: child
    workflow: child.lobster
"""


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("LOBSTER_STATE_DIR", str(tmp_path / "state"))
    for name, text in (("shell.lobster", SHELL_FLOW), ("gated.lobster", GATED_PIPELINE_FLOW), ("parent.lobster", PARENT),
                       ("child.lobster", SHELL_FLOW)):
        (tmp_path / name).write_text(text)
    return tmp_path


def call(workspace: Path, allow: str | None, **request: Any) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if k != "LOBSTER_TOOL_COMMANDS"}
    if allow is not None:
        env["LOBSTER_TOOL_COMMANDS"] = allow
    return call_tool({"action": "run", **request}, workspace, env)


def refused(envelope: dict[str, Any], what: str) -> bool:
    return envelope["ok"] is False and "does not allow" in envelope["error"]["message"] and what in envelope["error"]["message"]


@pytest.mark.parametrize("pipeline", ["exec --shell 'touch ran'", "commands.list | exec --json --shell 'touch ran; echo []'",
                                      "exec touch ran", "commands.list | head --n 1 | exec --shell 'touch ran'"])
def test_exec_is_refused_before_any_stage_runs(workspace: Path, pipeline: str) -> None:
    envelope = call(workspace, "commands.list,head,pick", pipeline=pipeline)
    assert refused(envelope, "`exec`") and envelope["error"]["type"] == "parse_error", envelope
    assert not (workspace / "ran").exists()


def test_listed_commands_and_gates_run(workspace: Path) -> None:
    envelope = call(workspace, "commands.list,head,pick", pipeline="commands.list | pick name | head --n 1 | approve --prompt ok")
    assert envelope["status"] == "needs_approval", envelope
    token = envelope["requiresApproval"]["resumeToken"]
    env = {**os.environ, "LOBSTER_TOOL_COMMANDS": "commands.list,head,pick"}
    assert call_tool({"action": "resume", "token": token, "approve": True}, workspace, env)["status"] == "ok"


def test_a_workflow_with_a_shell_step_is_refused_before_its_first_step(workspace: Path) -> None:
    envelope = call(workspace, "commands.list,head,pick", pipeline="shell.lobster")
    assert refused(envelope, "shell steps"), envelope
    assert not (workspace / "ran").exists() and not (workspace / "state" / "runs").exists()
    assert call(workspace, "commands.list,head,pick,run", pipeline="shell.lobster")["status"] == "ok"
    assert (workspace / "ran").exists()


def test_a_sub_workflow_is_checked_when_it_starts(workspace: Path) -> None:
    envelope = call(workspace, "commands.list,head,pick", pipeline="parent.lobster")
    assert refused(envelope, "shell steps"), envelope
    assert not (workspace / "ran").exists()


def test_a_resumed_workflow_is_checked_again(workspace: Path) -> None:
    """A gate issued while the host allowed more: the continuation is held to today's list."""
    halted = call(workspace, "commands.list,head,pick", pipeline="gated.lobster")
    assert halted["status"] == "needs_approval", halted
    env = {**os.environ, "LOBSTER_TOOL_COMMANDS": "pick"}
    token = halted["requiresApproval"]["resumeToken"]
    envelope = call_tool({"action": "resume", "token": token, "approve": True}, workspace, env)
    assert refused(envelope, "`commands.list`"), envelope
    env["LOBSTER_TOOL_COMMANDS"] = "commands.list,head,pick"
    assert call_tool({"action": "resume", "token": token, "approve": True}, workspace, env)["status"] == "ok"


def test_a_typo_in_the_setting_is_named(workspace: Path) -> None:
    envelope = call(workspace, "commands.list,exce", pipeline="commands.list | head --n 1")
    assert envelope["ok"] is False and "`exce`, which is no command (did you mean `exec`?)" in envelope["error"]["message"]


def test_outside_a_tool_call_the_setting_changes_nothing(workspace: Path, capsys: pytest.CaptureFixture[str],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from lobsterlang.cli import main

    monkeypatch.chdir(workspace)
    monkeypatch.setenv("LOBSTER_TOOL_COMMANDS", "pick")
    monkeypatch.delenv("LOBSTER_TOOL_WORKSPACE", raising=False)
    assert main(["run", "--mode", "tool", "exec --shell 'touch ran'"]) == 0 and (workspace / "ran").exists()
