"""Nothing a run starts outlives its timeout, and step output is capped while it is read (stdout and stderr apart)."""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from lobsterlang.cli import main
from lobsterlang.interpret.outputcap import OutputCap
from lobsterlang.interpret.process import Cancellation, CappedReader, OutputTooLarge, run_to_end
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
    message = call_tool(request, tmp_path, env)["error"]["message"]
    assert re.fullmatch(r"lobster stdout exceeded maxStdoutBytes \(1024 bytes\): the command was still writing after \d+ bytes and was stopped", message)


def overflow(message: str, stream: str, setting: str, limit: int, size: int) -> bool:
    """Whether `message` is the cap error for `stream`: it names the setting and its value, and what the command
    wrote (exactly `size` when the command ended while it was counted, else how far it had got)."""
    head = f"lobster {stream} exceeded {setting} ({limit} bytes): the command "
    exact = f"wrote {size} bytes; raise {setting} to at least {size}"
    stopped = re.fullmatch(r"was still writing after (\d+) bytes and was stopped", message.removeprefix(head))
    return message.startswith(head) and (message == head + exact or (stopped is not None and limit < int(stopped[1]) < size))


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
    assert overflow(message, "stderr", "LOBSTER_MAX_OUTPUT_BYTES", 100000, 3000000), message


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
    message = json.loads(capsys.readouterr().out)["error"]["message"]
    assert overflow(message, "stdout", "--max-output-bytes", 2048, len("".join(f"{n}\n" for n in range(1, 5001)))), message
    assert main(["run", "--mode", "tool", "--max-output-bytes=100000", "exec --shell 'seq 1 5000'"]) == 0
    assert len(json.loads(capsys.readouterr().out)["output"]) == 5000


def test_the_cap_error_says_what_the_command_wrote() -> None:
    """Past the cap the rest of the stream is counted, not kept, so the error can give the value the cap needs."""
    proc = subprocess.Popen(["true"])
    proc.wait()
    read_end, write_end = os.pipe()
    os.write(write_end, b"x" * 5000)
    os.close(write_end)
    reader = CappedReader(proc, "stdout", OutputCap(1024))
    reader.read_all(read_end)
    os.close(read_end)
    assert reader.data == b""
    with pytest.raises(OutputTooLarge) as caught:
        reader.check()
    assert caught.value.message == (
        "lobster stdout exceeded LOBSTER_MAX_OUTPUT_BYTES (1024 bytes): the command wrote 5000 bytes; "
        "raise LOBSTER_MAX_OUTPUT_BYTES to at least 5000"
    )


def test_exec_json_beyond_16_mib_fits_the_default_cap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    """The default cap leaves room for ordinary data work: 20 MiB of JSON was refused at the old 16 MiB."""
    monkeypatch.setenv("LOBSTER_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.delenv("LOBSTER_MAX_OUTPUT_BYTES", raising=False)
    (tmp_path / "big.json").write_text("[" + ",".join(f'{{"id":{n},"pad":"{"x" * 60}"}}' for n in range(300_000)) + "]")
    assert (tmp_path / "big.json").stat().st_size > 20 << 20
    pipeline = f"exec --json --shell 'cat {tmp_path / 'big.json'}' | head --n 1 | pick id"
    assert main(["run", "--mode", "tool", pipeline]) == 0
    assert json.loads(capsys.readouterr().out)["output"] == [{"id": 0}]


@pytest.mark.parametrize("value", ["abc", "0", "-5", "1.5", "²", "٣٠٠٠", "9007199254740992"])
def test_max_output_bytes_flag_must_be_a_positive_integer(value: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    monkeypatch.setenv("LOBSTER_STATE_DIR", str(tmp_path / "state"))
    assert main(["run", "--mode", "tool", "--max-output-bytes", value, "exec echo hi"]) == 2
    error = json.loads(capsys.readouterr().out)["error"]
    assert error == {"type": "parse_error", "message": f"--max-output-bytes must be a positive whole number of bytes (got {value})"}


def test_max_output_bytes_flag_takes_any_positive_integer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    """As LOBSTER_MAX_OUTPUT_BYTES: a cap below 1 KiB is honoured, not raised to 1024."""
    monkeypatch.setenv("LOBSTER_STATE_DIR", str(tmp_path / "state"))
    assert main(["run", "--mode", "tool", "--max-output-bytes", "100", "exec --shell 'seq 1 30'"]) == 0
    assert len(json.loads(capsys.readouterr().out)["output"]) == 30
    assert main(["run", "--mode", "tool", "--max-output-bytes", "100", "exec --shell 'seq 1 1000'"]) == 1
    message = json.loads(capsys.readouterr().out)["error"]["message"]
    assert overflow(message, "stdout", "--max-output-bytes", 100, len("".join(f"{n}\n" for n in range(1, 1001)))), message


def _run_capped(script: str, cap: int) -> tuple[int, str, str]:
    return run_to_end(Cancellation(), ["/bin/sh", "-c", script], dict(os.environ), os.getcwd(), OutputCap(cap))


def test_a_command_s_two_pipes_are_read_without_a_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    """Starting and joining a reader thread cost every step a wake-up (issue 33): both pipes are polled in the
    calling thread; a thread writes stdin only when there is some."""

    def no_thread(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("a step's output must be read without starting a thread")

    monkeypatch.setattr(threading, "Thread", no_thread)
    assert _run_capped("echo out; echo err >&2; echo more", 1024) == (0, "out\nmore\n", "err\n")


def test_a_stream_past_its_cap_is_counted_while_the_other_is_still_read() -> None:
    """stdout goes over the cap; stderr (under it) must still be drained, or the child would block on it and
    the count of stdout would stop short."""
    script = "head -c 200000 /dev/zero; head -c 100000 /dev/zero >&2; head -c 100000 /dev/zero"
    with pytest.raises(OutputTooLarge) as caught:
        _run_capped(script, 150000)
    assert caught.value.stream == "stdout"
    assert "the command wrote 300000 bytes" in caught.value.message


def test_a_stream_that_goes_quiet_past_its_cap_is_stopped() -> None:
    marker = unique_sleep()
    with pytest.raises(OutputTooLarge) as caught:
        _run_capped(f"head -c 5000 /dev/zero; exec sleep {marker}", 1024)
    assert "the command was still writing after 5000 bytes and was stopped" in caught.value.message
    assert wait_gone(marker) == []
