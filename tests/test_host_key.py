"""A signing key the host supplies never reaches a step (issue 29 item 17).

`LOBSTER_SIGNING_KEY` (or `LOBSTER_SIGNING_KEY_FD`) replaces `signing.key`. A step's environment
never has it; the `lobster` process wipes it from its own environment block and makes itself
non-dumpable; the tool call's runner gets it on stdin. A step that runs `lobster resume` on its
own (without the key) cannot answer a gate.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from lobsterlang.cli import main
from lobsterlang.interpret.signing import Signer
from lobsterlang.interpret.toolcall import call_tool

KEY = "5eed" * 16
PROBE = "env > seen-env; tr '\\0' '\\n' < /proc/$PPID/environ > seen-parent-env; ls /proc/$PPID/fd > seen-parent-fds"
GATED = f"""\
steps:
  - id: probe
    run: {json.dumps(PROBE)}
  - id: gate
    approval: {{prompt: Ship it?}}
  - id: ship
    run: touch shipped
    when: $gate.approved
"""


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LOBSTER_STATE_DIR", str(tmp_path / "state"))
    for name in ("LOBSTER_SIGNING_KEY", "LOBSTER_SIGNING_KEY_FD", "LOBSTER_BACKEND", "LOBSTER_TOOL_COMMANDS"):
        monkeypatch.delenv(name, raising=False)
    (tmp_path / "flow.lobster").write_text(GATED)
    return tmp_path


def token_of(envelope: dict[str, Any]) -> str:
    return str(envelope["requiresApproval"]["resumeToken"])


def signed_by_the_host(token: str) -> bool:
    try:
        Signer(bytes.fromhex(KEY)).verify(token)
    except ValueError:
        return False
    return True


def nothing_seen(work: Path) -> bool:
    """The probe step saw the key neither in its environment nor in its parent's (the lobster process)."""
    seen = "".join((work / name).read_text() for name in ("seen-env", "seen-parent-env"))
    return "LOBSTER_SIGNING_KEY" not in (work / "seen-env").read_text() and KEY not in seen


def lobster(work: Path, *args: str, **kwargs: Any) -> dict[str, Any]:
    """`python -m lobsterlang ARGS` as its own process (argv from the command line, as the installed `lobster`)."""
    proc = subprocess.run([sys.executable, "-m", "lobsterlang", *args], cwd=work, capture_output=True, text=True,
                          timeout=120, check=False, **kwargs)
    return json.loads(proc.stdout)  # type: ignore[no-any-return]


def test_the_host_key_signs_and_no_key_file_is_made(work: Path, capsys: pytest.CaptureFixture[str],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LOBSTER_SIGNING_KEY", KEY)
    assert main(["run", "--mode", "tool", "flow.lobster"]) == 0
    token = token_of(json.loads(capsys.readouterr().out))
    assert signed_by_the_host(token) and not (work / "state" / "signing.key").exists()
    assert nothing_seen(work)
    assert main(["resume", "--token", token, "--approve", "yes"]) == 0 and (work / "shipped").exists()


def test_a_step_never_sees_the_key_in_the_environment_or_its_parent(work: Path) -> None:
    env = {**os.environ, "LOBSTER_SIGNING_KEY": KEY}
    halted = lobster(work, "run", "--mode", "tool", "flow.lobster", env=env)
    assert signed_by_the_host(token_of(halted)) and nothing_seen(work)
    (work / "seen-env").unlink()
    lobster(work, "run", "--mode", "tool", f"exec --shell {json.dumps(PROBE)}", env=env)
    assert nothing_seen(work)


def test_a_key_from_a_descriptor_is_read_then_closed(work: Path) -> None:
    read_end, write_end = os.pipe()
    os.write(write_end, (KEY + "\n").encode())
    os.close(write_end)
    env = {**os.environ, "LOBSTER_SIGNING_KEY_FD": str(read_end)}
    try:
        halted = lobster(work, "run", "--mode", "tool", "flow.lobster", env=env, pass_fds=(read_end,))
    finally:
        os.close(read_end)
    assert signed_by_the_host(token_of(halted)) and nothing_seen(work)
    assert str(read_end) not in (work / "seen-parent-fds").read_text().split()
    assert "LOBSTER_SIGNING_KEY_FD" not in (work / "seen-env").read_text()


def test_the_process_holding_the_key_is_not_dumpable() -> None:
    code = ("import ctypes; from lobsterlang.interpret import hostkey; hostkey.take_from_process(); "
            "print(ctypes.CDLL(None).prctl(3, 0, 0, 0, 0), hostkey._held.hex())")
    if not sys.platform.startswith("linux"):
        pytest.skip("PR_SET_DUMPABLE is Linux")
    out = subprocess.run([sys.executable, "-c", code], env={**os.environ, "LOBSTER_SIGNING_KEY": KEY},
                         capture_output=True, text=True, check=True).stdout.split()
    assert out == ["0", KEY]


def test_the_tool_runner_gets_the_key_on_stdin_not_in_its_environment(work: Path) -> None:
    env = {**os.environ, "LOBSTER_SIGNING_KEY": KEY}
    halted = call_tool({"action": "run", "pipeline": "flow.lobster"}, work, env)
    assert signed_by_the_host(token_of(halted)) and nothing_seen(work)
    done = call_tool({"action": "resume", "token": token_of(halted), "approve": True}, work, env)
    assert done["status"] == "ok" and (work / "shipped").exists()


SELF_APPROVAL = """\
steps:
  - id: approve-it
    run: '"$PYTHON" -m lobsterlang resume --run "$RUN" --approve yes > answer.json; echo done'
"""


def test_a_step_cannot_answer_a_gate_without_the_key(work: Path, capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A step of another run calls `lobster resume --run ID --approve yes` itself: without the key, the seal fails."""
    monkeypatch.setenv("LOBSTER_SIGNING_KEY", KEY)
    assert main(["run", "--mode", "tool", "flow.lobster"]) == 0
    capsys.readouterr()
    assert main(["runs", "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    (work / "self.lobster").write_text(SELF_APPROVAL)
    monkeypatch.setenv("RUN", row["id"])
    monkeypatch.setenv("PYTHON", sys.executable)
    assert main(["run", "--mode", "tool", "self.lobster"]) == 0
    answer = json.loads((work / "answer.json").read_text())
    assert answer["error"]["type"] == "state_integrity" and not (work / "shipped").exists()


def test_an_unusable_host_key_signs_nothing(work: Path, capsys: pytest.CaptureFixture[str],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LOBSTER_SIGNING_KEY", "not-a-key")
    assert main(["run", "--mode", "tool", "flow.lobster"]) == 1
    envelope = json.loads(capsys.readouterr().out)
    assert envelope["error"]["type"] == "state_integrity" and "LOBSTER_SIGNING_KEY must be 64 hex" in envelope["error"]["message"]
    assert not list((work / "state").glob("workflow_resume_*"))
