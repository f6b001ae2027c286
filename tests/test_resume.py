"""Approval and input gates: resume yes/no/cancel, single use (also under concurrency), tampered tokens, state files."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from lobsterlang.cli import main

Capture = pytest.CaptureFixture[str]
GATED = "exec --json --shell 'echo [1,2]' | approve --prompt 'Send?' | exec --stdin json --shell 'cat >> effects.txt; echo sent'"


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LOBSTER_STATE_DIR", str(tmp_path / "state"))
    return tmp_path


def run_tool(pipeline: str, capsys: Capture) -> dict[str, Any]:
    assert main(["run", "--mode", "tool", pipeline]) == 0
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def resume(args: list[str], capsys: Capture) -> tuple[int, dict[str, Any]]:
    code = main(["resume", *args])
    return code, json.loads(capsys.readouterr().out)


def halt(capsys: Capture, pipeline: str = GATED) -> dict[str, Any]:
    envelope = run_tool(pipeline, capsys)
    assert envelope["status"] == "needs_approval"
    return envelope["requiresApproval"]  # type: ignore[no-any-return]


def state_files(workspace: Path) -> list[str]:
    """The state directory's files besides its signing key."""
    folder = workspace / "state"
    return sorted(p.name for p in folder.iterdir() if p.name != "signing.key") if folder.exists() else []


def test_approve_yes_runs_the_rest_once(workspace: Path, capsys: Capture) -> None:
    request = halt(capsys)
    assert request["items"] == [1, 2] and request["prompt"] == "Send?"
    assert not (workspace / "effects.txt").exists()
    code, envelope = resume(["--token", request["resumeToken"], "--approve", "yes"], capsys)
    assert (code, envelope["status"], envelope["output"]) == (0, "ok", ["sent"])
    assert (workspace / "effects.txt").read_text() == "[1,2]"
    assert state_files(workspace) == []


def test_approve_no_cancels_and_runs_nothing(workspace: Path, capsys: Capture) -> None:
    request = halt(capsys)
    code, envelope = resume(["--id", request["approvalId"], "--approve", "no"], capsys)
    assert (code, envelope["status"], envelope["output"]) == (0, "cancelled", [])
    assert not (workspace / "effects.txt").exists()
    assert state_files(workspace) == []


def test_double_resume_is_refused(workspace: Path, capsys: Capture) -> None:
    request = halt(capsys)
    assert resume(["--token", request["resumeToken"], "--approve", "yes"], capsys)[0] == 0
    code, envelope = resume(["--token", request["resumeToken"], "--approve", "yes"], capsys)
    assert (code, envelope["error"]) == (1, {"type": "runtime_error", "message": "Pipeline resume state not found"})
    code, envelope = resume(["--id", request["approvalId"], "--approve", "yes"], capsys)
    message = f'Approval ID "{request["approvalId"]}" not found or expired'
    assert (code, envelope["error"]) == (2, {"type": "parse_error", "message": message})
    assert (workspace / "effects.txt").read_text() == "[1,2]"


def _token(payload: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(payload).encode()).rstrip(b"=").decode()


def _tampered(token: str) -> list[tuple[str, str, str]]:
    payload = json.loads(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)))
    other = {**payload, "stateKey": "pipeline_resume_00000000-0000-4000-8000-000000000000"}
    return [
        (token[:-3] + "!!!", "parse_error", "Invalid token"),
        (_token({**payload, "protocolVersion": 2}), "parse_error", "Unsupported protocol version"),
        (_token({**payload, "v": 9}), "parse_error", "Unsupported token version"),
        (_token({**payload, "kind": "other"}), "parse_error", "Invalid token"),
        (_token({**payload, "pipeline": [{"name": "exec", "args": {"_": ["touch", "pwned"]}}]}), "parse_error", "Invalid token"),
        (_token(other), "parse_error", "Invalid token"),
        (_token({**payload, "stateKey": "../../etc/passwd"}), "parse_error", "Invalid token"),
    ]


def test_tampered_tokens_are_refused_and_nothing_runs(workspace: Path, capsys: Capture) -> None:
    request = halt(capsys)
    for token, error_type, message in _tampered(request["resumeToken"]):
        code, envelope = resume(["--token", token, "--approve", "yes"], capsys)
        assert envelope["error"] == {"type": error_type, "message": message}, token
        assert code == (2 if error_type == "parse_error" else 1)
    assert not (workspace / "effects.txt").exists() and not (workspace / "pwned").exists()
    assert resume(["--token", request["resumeToken"], "--approve", "yes"], capsys)[0] == 0


def test_concurrent_resumes_exactly_one_wins(workspace: Path, capsys: Capture) -> None:
    token = halt(capsys)["resumeToken"]
    argv = [sys.executable, "-m", "lobsterlang", "resume", "--token", token, "--approve", "yes"]
    procs = [subprocess.Popen(argv, stdout=subprocess.PIPE, text=True, env=os.environ.copy()) for _ in range(8)]
    results = [(proc.wait(timeout=60), json.loads(proc.communicate()[0])) for proc in procs]
    winners = [envelope for code, envelope in results if code == 0]
    losers = [envelope["error"]["message"] for code, envelope in results if code == 1]
    assert len(winners) == 1 and winners[0]["output"] == ["sent"]
    assert losers == ["Pipeline resume state not found"] * 7
    assert (workspace / "effects.txt").read_text() == "[1,2]"


def test_state_files_are_private_whatever_the_umask(workspace: Path, capsys: Capture) -> None:
    old = os.umask(0)
    try:
        halt(capsys)
    finally:
        os.umask(old)
    folder = workspace / "state"
    assert folder.stat().st_mode & 0o777 == 0o700
    assert {p.stat().st_mode & 0o777 for p in folder.iterdir()} == {0o600}
    assert not [p for p in folder.iterdir() if p.name.endswith(".tmp")]


def test_two_gates_in_a_row(workspace: Path, capsys: Capture) -> None:
    first = halt(capsys, "exec --json --shell 'echo [1]' | approve --prompt one | approve --prompt two | pick a")
    code, envelope = resume(["--token", first["resumeToken"], "--approve", "yes"], capsys)
    assert (code, envelope["status"], envelope["requiresApproval"]["prompt"]) == (0, "needs_approval", "two")
    code, envelope = resume(["--id", envelope["requiresApproval"]["approvalId"], "--approve", "y"], capsys)
    assert (code, envelope["output"]) == (0, [1])
    assert state_files(workspace) == []


def test_cancel_then_cancel_again_succeeds(workspace: Path, capsys: Capture) -> None:
    """Issue 14 item 14: cancelling an already-cancelled approval succeeds, as in the reference."""
    request = halt(capsys)
    assert resume(["--token", request["resumeToken"], "--cancel"], capsys)[1]["status"] == "cancelled"
    code, envelope = resume(["--token", request["resumeToken"], "--cancel=true"], capsys)
    assert (code, envelope["status"]) == (0, "cancelled")
    code, envelope = resume(["--token", request["resumeToken"], "--approve", "yes"], capsys)
    assert (code, envelope["error"]["message"]) == (1, "Pipeline resume state not found")
    assert not (workspace / "effects.txt").exists()


ASK = "exec --json --shell 'echo [7]' | ask --prompt 'Decide' --subject-from-stdin | pick decision"


def test_input_request_round_trip(workspace: Path, capsys: Capture) -> None:
    envelope = run_tool(ASK, capsys)
    request = envelope["requiresInput"]
    assert (envelope["status"], request["prompt"], request["subject"]) == ("needs_input", "Decide", {"text": "7"})
    assert "approvalId" not in request and "items" not in request
    token = request["resumeToken"]
    code, answer = resume(["--token", token, "--approve", "yes"], capsys)
    assert (code, answer["error"]["message"]) == (2, "pipeline input resumes require --response-json <json>")
    code, answer = resume(["--token", token, "--response-json", '{"feedback": "x"}'], capsys)
    expected = "pipeline input response failed schema validation at /: must have required property 'decision'"
    assert (code, answer["error"]["message"]) == (2, expected)
    code, answer = resume(["--token", token, "--response-json", '{"decision": "maybe"}'], capsys)
    assert answer["error"]["message"].endswith("at /decision: must be equal to one of the allowed values")
    code, answer = resume(["--token", token, "--response-json", '{"decision": "approve", "feedback": "ok"}'], capsys)
    assert (code, answer["status"], answer["output"]) == (0, "ok", [{"decision": "approve"}])


def test_approval_refuses_a_response(workspace: Path, capsys: Capture) -> None:
    request = halt(capsys)
    code, envelope = resume(["--token", request["resumeToken"], "--response-json", "{}"], capsys)
    assert (code, envelope["error"]["message"]) == (2, "approval resumes require --approve yes|no, not --response-json")
    assert resume(["--token", request["resumeToken"], "--approve", "yes"], capsys)[0] == 0


@pytest.mark.parametrize(
    "args, message",
    [
        (["--token", "t", "--cancel", "maybe"], "resume --cancel must be true or false"),
        (["--approve", "yes"], "resume requires --token or --id"),
        (["--token", "t", "--approve", "yes", "--cancel"], "resume accepts only one of --approve, --response-json, or --cancel"),
        (["--token", "t"], "resume requires --approve yes|no, --response-json, or --cancel"),
        (["--token", "t", "--response-json", "{nope"], "resume --response-json must be valid JSON"),
        (["--token", "t", "--approve", "maybe"], "resume --approve must be yes or no"),
        (["--id", "DEADBEEF", "--approve", "yes"], 'Approval ID "DEADBEEF" not found or expired'),
    ],
)
def test_resume_argument_errors(workspace: Path, args: list[str], message: str, capsys: Capture) -> None:
    code, envelope = resume(args, capsys)
    assert (code, envelope) == (2, {"protocolVersion": 1, "ok": False, "error": {"type": "parse_error", "message": message}})


GATED_FILE = "steps:\n  - id: ok\n    approval: Ship it?\n  - id: ship\n    run: echo shipped\n    when: $ok.approved\n"


def test_workflow_files_and_their_tokens_go_to_the_workflow_engine(workspace: Path, capsys: Capture) -> None:
    (workspace / "gate.lobster").write_text(GATED_FILE)
    request = halt(capsys, "gate.lobster")
    code, envelope = resume(["--id", request["approvalId"], "--approve", "yes"], capsys)
    assert (code, envelope["output"]) == (0, ["shipped\n"])
