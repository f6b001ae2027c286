"""Nothing a run starts outlives its timeout, and step output is capped while it is read (stdout and stderr apart)."""

from __future__ import annotations

import json
import os
import secrets
import shutil
import time
from pathlib import Path
from typing import Any

import pytest

from lobsterlang.cli import main
from lobsterlang.interpret.toolcall import call_tool

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc") or shutil.which("setsid") is None, reason="needs /proc and setsid")


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "LOBSTER_STATE_DIR": str(tmp_path / "state")}


def survivors(marker: str) -> list[int]:
    """Live processes whose command line holds `marker`."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{name}/cmdline").read_bytes()
        except OSError:
            continue
        if marker.encode() in cmdline:
            found.append(int(name))
    return found


def unique_sleep() -> str:
    """A `sleep` argument no other process uses: the marker searched for in /proc."""
    return f"{30 + secrets.randbelow(1000) / 1000:.3f}{secrets.randbelow(10**6):06d}"


def wait_gone(marker: str, seconds: float = 3.0) -> list[int]:
    deadline = time.monotonic() + seconds
    while survivors(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    return survivors(marker)


def test_tool_timeout_kills_children_that_called_setsid(tmp_path: Path, env: dict[str, str]) -> None:
    marker = unique_sleep()
    request = {"action": "run", "pipeline": f"exec --shell 'setsid sleep {marker} & sleep 5'", "timeoutMs": 300}
    envelope = call_tool(request, tmp_path, env)
    assert envelope["error"]["message"] == "lobster runtime timed out"
    assert wait_gone(marker) == []


def test_step_timeout_kills_children_that_called_setsid(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    marker = unique_sleep()
    path = tmp_path / "wf.lobster"
    path.write_text(f"steps:\n  - id: s\n    timeout_ms: 300\n    run: setsid sleep {marker} >/dev/null 2>&1 & sleep 5\n", encoding="utf-8")
    monkeypatch.setenv("LOBSTER_STATE_DIR", str(tmp_path / "state"))
    code = main(["run", "--mode", "tool", "--file", str(path)])
    assert code == 1 and "timed out" in json.loads(capsys.readouterr().out)["error"]["message"]
    assert wait_gone(marker) == []


def test_run_exit_kills_what_a_step_left_running(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    marker = unique_sleep()
    monkeypatch.setenv("LOBSTER_STATE_DIR", str(tmp_path / "state"))
    code = main(["run", "--mode", "tool", f"exec --shell 'setsid sleep {marker} >/dev/null 2>&1 & echo started'"])
    assert code == 0 and json.loads(capsys.readouterr().out)["output"] == ["started"]
    assert wait_gone(marker) == []


def test_tool_cap_stops_an_endless_writer(tmp_path: Path, env: dict[str, str]) -> None:
    request = {"action": "run", "pipeline": "exec --shell yes", "maxStdoutBytes": 1024, "timeoutMs": 15000}
    assert call_tool(request, tmp_path, env)["error"]["message"] == "lobster stdout exceeded maxStdoutBytes"


def test_tool_cap_counts_step_output_not_the_envelope(tmp_path: Path, env: dict[str, str]) -> None:
    (tmp_path / "wf.lobster").write_text("steps:\n  - id: s\n    run: printf '%0900d' 0 | tr 0 '\"'\n", encoding="utf-8")
    envelope = call_tool({"action": "run", "pipeline": "wf.lobster", "maxStdoutBytes": 1024}, tmp_path, env)
    assert envelope["ok"] is True and envelope["output"] == ['"' * 900]


def write_workflow(tmp_path: Path, command: str) -> Path:
    path = tmp_path / "wf.lobster"
    path.write_text(f"steps:\n  - id: s\n    run: {command}\n", encoding="utf-8")
    return path


def test_run_caps_step_stderr(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    monkeypatch.setenv("LOBSTER_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("LOBSTER_MAX_OUTPUT_BYTES", "100000")
    path = write_workflow(tmp_path, "head -c 3000000 /dev/zero >&2")
    assert main(["run", "--mode", "tool", "--file", str(path)]) == 1
    message = json.loads(capsys.readouterr().out)["error"]["message"]
    assert message == "lobster stderr exceeded LOBSTER_MAX_OUTPUT_BYTES"


def test_stdout_and_stderr_are_counted_apart(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    monkeypatch.setenv("LOBSTER_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("LOBSTER_MAX_OUTPUT_BYTES", "100000")
    path = write_workflow(tmp_path, "head -c 60000 /dev/zero >&2; head -c 60000 /dev/zero | tr '\\0' a")
    assert main(["run", "--mode", "tool", "--file", str(path)]) == 0
    assert json.loads(capsys.readouterr().out)["output"] == ["a" * 60000]


def test_max_output_bytes_flag_sets_the_cap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    monkeypatch.setenv("LOBSTER_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.delenv("LOBSTER_MAX_OUTPUT_BYTES", raising=False)
    assert main(["run", "--mode", "tool", "--max-output-bytes", "2048", "exec --shell 'seq 1 5000'"]) == 1
    assert json.loads(capsys.readouterr().out)["error"]["message"] == "lobster stdout exceeded --max-output-bytes"
    assert main(["run", "--mode", "tool", "--max-output-bytes=100000", "exec --shell 'seq 1 5000'"]) == 0
    assert len(json.loads(capsys.readouterr().out)["output"]) == 5000
