"""The embedded tool call (`lobster tool` and `call_tool`): cwd sandbox, timeout, output cap, round trip."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from helpers import alive

from lobsterlang.interpret.toolcall import call_tool


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "LOBSTER_STATE_DIR": str(tmp_path / "state")}


def error(envelope: dict[str, Any]) -> tuple[str, str]:
    assert envelope["ok"] is False and envelope["protocolVersion"] == 1
    return envelope["error"]["type"], envelope["error"]["message"]


def test_run_and_resume_round_trip(tmp_path: Path, env: dict[str, str]) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "items.json").write_text('[{"id": 1}, {"id": 2}]')
    pipeline = "exec --json --shell 'cat items.json' | approve --prompt 'Tag them?' | map 'tag=done {{id}}'"
    halted = call_tool({"action": "run", "pipeline": pipeline, "cwd": "sub"}, tmp_path, env)
    assert halted["status"] == "needs_approval" and halted["requiresApproval"]["items"] == [{"id": 1}, {"id": 2}]
    approval = {"action": "resume", "approvalId": halted["requiresApproval"]["approvalId"], "approve": True}
    done = call_tool(approval, tmp_path, env)
    assert done["output"] == [{"id": 1, "tag": "done 1"}, {"id": 2, "tag": "done 2"}]
    assert error(call_tool(approval, tmp_path, env))[0] == "parse_error"


def test_renderers_never_leak_into_the_envelope(tmp_path: Path, env: dict[str, str]) -> None:
    envelope = call_tool({"action": "run", "pipeline": "exec --json --shell 'echo [1,2]' | table"}, tmp_path, env)
    assert envelope == {"protocolVersion": 1, "ok": True, "status": "ok", "output": [], "requiresApproval": None, "requiresInput": None}


@pytest.mark.parametrize(
    "cwd, message",
    [("/tmp", "cwd must be a relative path"), ("..", "cwd must stay within the gateway working directory"),
     ("a/../../b", "cwd must stay within the gateway working directory"), ("link/x", "cwd must stay within the gateway working directory"),
     ("link", "cwd must stay within the gateway working directory")],
)
def test_cwd_must_stay_inside_the_workspace(cwd: str, message: str, tmp_path: Path, env: dict[str, str]) -> None:
    outside = tmp_path / "outside"
    (outside / "x").mkdir(parents=True)
    workspace = tmp_path / "ws"
    (workspace / "a").mkdir(parents=True)
    (workspace / "link").symlink_to(outside)
    envelope = call_tool({"action": "run", "pipeline": "exec --shell 'touch ran'", "cwd": cwd}, workspace, env)
    assert error(envelope) == ("parse_error", message)
    assert not list(tmp_path.rglob("ran"))


def test_timeout_kills_the_whole_tree(tmp_path: Path, env: dict[str, str]) -> None:
    script = "sh -c 'trap \\\"\\\" TERM; sleep 60' & echo $! > grandchild; sleep 60"
    started = time.monotonic()
    envelope = call_tool({"action": "run", "pipeline": f'exec --shell "{script}"', "timeoutMs": 800}, tmp_path, env)
    assert error(envelope) == ("runtime_error", "lobster runtime timed out")
    assert time.monotonic() - started < 10
    time.sleep(0.3)
    assert not alive(int((tmp_path / "grandchild").read_text()))


def test_output_cap_aborts_the_run(tmp_path: Path, env: dict[str, str]) -> None:
    request = {"action": "run", "pipeline": "exec --shell 'seq 1 20000'", "maxStdoutBytes": 4096}
    kind, message = error(call_tool(request, tmp_path, env))
    assert kind == "runtime_error" and message.startswith("lobster stdout exceeded maxStdoutBytes (4096 bytes): the command ")
    request["maxStdoutBytes"] = 10_000_000
    assert len(call_tool(request, tmp_path, env)["output"]) == 20000


@pytest.mark.parametrize(
    "request_, message",
    [({"action": "run", "pipeline": "x.lobster", "argsJson": "{nope"}, "run --args-json must be valid JSON"),
     ({"action": "run"}, "pipeline required"), ({"action": "resume", "approve": True}, "token required"),
     ({"action": "resume", "token": "t"}, "approve required"), ({"action": "fly"}, 'action must be "run" or "resume"')],
)
def test_bad_requests(request_: dict[str, Any], message: str, tmp_path: Path, env: dict[str, str]) -> None:
    assert error(call_tool(request_, tmp_path, env)) == ("parse_error", message)


def test_lobster_tool_command(tmp_path: Path, env: dict[str, str]) -> None:
    request = json.dumps({"action": "run", "pipeline": "exec echo hi"})
    proc = subprocess.run([sys.executable, "-m", "lobsterlang", "tool"], input=request, capture_output=True, text=True, cwd=tmp_path, env=env)
    assert proc.returncode == 0 and json.loads(proc.stdout)["output"] == ["hi"]
    proc = subprocess.run([sys.executable, "-m", "lobsterlang", "tool"], input="{", capture_output=True, text=True, cwd=tmp_path, env=env)
    assert proc.returncode == 2 and json.loads(proc.stdout)["error"]["message"] == "tool request must be valid JSON"
