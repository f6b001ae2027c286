"""Special files anywhere in the state directory are refused, never followed, blocked on or read whole (issue 29 item 4).

The adversarial matrix: every path lobster reads or writes in the state directory (the signing
key, a resume state, an approval index, another gate's index, a run journal, a run lock, the
`runs` folder, a `state.set` value, a claimed state) replaced by each kind of file someone with
write access could put there (a FIFO, a socket, a device node, a symlink to a device, a symlink to
a copy of the real file, a directory, a sparse file larger than the read limit). Each command
that touches it answers at once: `state_integrity` (or the command's own error), nothing past
the gate runs, no traceback, and the planted file stays where it was. A watchdog turns a hang
into a failure.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from lobsterlang.cli import main
from lobsterlang.interpret.statefiles import MAX_INDEX_BYTES, MAX_STATE_BYTES

Capture = pytest.CaptureFixture[str]
GATED = """\
steps:
  - id: gate
    approval: {prompt: Ship it?}
  - id: ship
    run: touch shipped
    when: $gate.approved
"""
KINDS = ["fifo", "socket", "device", "device-symlink", "copy-symlink", "directory", "oversize"]
HANG_S = 120
"""Only a hang reaches this: every command here answers in well under a second."""


class Hung(Exception):
    pass


@pytest.fixture(autouse=True)
def watchdog() -> Iterator[None]:
    def hung(*_: Any) -> None:
        raise Hung("a command hung on a special file in the state directory")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(HANG_S)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


class Gate:
    """A workflow halted at its gate in a fresh state directory, and how to reach each of its files."""

    def __init__(self, root: Path, capsys: Capture) -> None:
        self.root, self.capsys = root, capsys
        self.state = root / "state"
        (root / "flow.lobster").write_text(GATED)
        request = self.cli("run", "--mode", "tool", "flow.lobster")[1]["requiresApproval"]
        self.token, self.approval_id = request["resumeToken"], request["approvalId"]
        (self.journal,) = (self.state / "runs").glob("*.jsonl")
        self.run_id = self.journal.stem
        (self.state_file,) = self.state.glob("workflow_resume_*.json")

    def cli(self, *args: str) -> tuple[int, Any]:
        code = main(list(args))
        out = self.capsys.readouterr().out
        try:
            return code, json.loads(out)
        except ValueError:
            return code, out

    def path(self, name: str) -> Path:
        return {
            "signing.key": self.state / "signing.key",
            "state": self.state_file,
            "approval": self.state / f"approval_{self.approval_id}.json",
            "other-approval": self.state / "approval_0badf00d.json",
            "journal": self.journal,
            "lock": self.state / "runs" / f"{self.run_id}.lock",
            "runs": self.state / "runs",
            "value": self.state / "notes.json",
        }[name]

    def shipped(self) -> bool:
        return (self.root / "shipped").exists()


def plant(path: Path, kind: str, limit: int) -> None:
    """Put a file of `kind` at `path` (what was there is moved aside as `<name>.real`)."""
    real = path.with_name(path.name + ".real")
    if os.path.lexists(path):
        path.rename(real)
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "socket":
        _bind_socket(path)
    elif kind == "device":
        if os.geteuid() != 0:
            pytest.skip("making a device node needs root")
        os.mknod(path, stat.S_IFCHR | 0o600, os.makedev(1, 5))  # /dev/zero
    elif kind == "device-symlink":
        path.symlink_to("/dev/zero")
    elif kind == "copy-symlink":
        copy = path.with_name(path.name + ".copy")
        if real.is_dir():
            shutil.copytree(real, copy)
        elif real.exists():
            shutil.copy2(real, copy)
        else:
            copy.write_text("{}")
        path.symlink_to(copy)
    elif kind == "directory":
        path.mkdir()
    else:
        with path.open("wb") as handle:
            handle.truncate(limit + 1)
        path.chmod(0o600)


def _bind_socket(path: Path) -> None:
    here = os.getcwd()
    os.chdir(path.parent)  # a socket's path must be short: bind the bare name
    try:
        with socket.socket(socket.AF_UNIX) as sock:
            sock.bind(path.name)
    finally:
        os.chdir(here)


LIMITS = {"signing.key": 128, "approval": MAX_INDEX_BYTES, "other-approval": MAX_INDEX_BYTES}


@pytest.fixture
def gate(tmp_path: Path, capsys: Capture, monkeypatch: pytest.MonkeyPatch) -> Gate:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LOBSTER_STATE_DIR", str(tmp_path / "state"))
    for name in ("LOBSTER_APPROVAL_TTL", "LOBSTER_ACCEPT_UNSIGNED_STATE", "LOBSTER_BACKEND", "LOBSTER_SIGNING_KEY"):
        monkeypatch.delenv(name, raising=False)
    return Gate(tmp_path, capsys)


def planted(gate: Gate, name: str, kind: str) -> Path:
    path = gate.path(name)
    plant(path, kind, LIMITS.get(name, MAX_STATE_BYTES))
    return path


def refused(result: tuple[int, Any], error_type: str = "state_integrity") -> bool:
    code, envelope = result
    return code == 1 and isinstance(envelope, dict) and envelope["error"]["type"] == error_type


Check = Callable[[Gate, Path], None]


def resume_by_token_is_refused(gate: Gate, path: Path) -> None:
    assert refused(gate.cli("resume", "--token", gate.token, "--approve", "yes"))
    assert not gate.shipped() and os.path.lexists(path)


def resume_by_id_is_refused(gate: Gate, path: Path) -> None:
    assert refused(gate.cli("resume", "--id", gate.approval_id, "--approve", "yes"))
    assert not gate.shipped() and os.path.lexists(path)


def resume_by_run_is_refused(gate: Gate, path: Path) -> None:
    assert refused(gate.cli("resume", "--run", gate.run_id, "--approve", "yes"))
    assert not gate.shipped() and os.path.lexists(path)


def a_new_halt_is_refused(gate: Gate, path: Path) -> None:
    assert refused(gate.cli("run", "--mode", "tool", "flow.lobster"))
    assert os.path.lexists(path)


def runs_lists_what_it_can(gate: Gate, path: Path) -> None:
    code, rows = gate.cli("runs", "--json")
    assert code == 0 and isinstance(rows, list) and os.path.lexists(path)


def the_gate_still_resumes(gate: Gate, path: Path) -> None:
    """A special file that is not this gate's (another gate's index) does not stop it."""
    code, envelope = gate.cli("resume", "--token", gate.token, "--approve", "yes")
    assert (code, envelope["status"]) == (0, "ok") and gate.shipped() and os.path.lexists(path)


def the_gate_still_resumes_by_run(gate: Gate, path: Path) -> None:
    """A lock file is never read whole: a large one is taken (and removed) like any other."""
    code, envelope = gate.cli("resume", "--run", gate.run_id, "--approve", "yes")
    assert (code, envelope["status"]) == (0, "ok") and gate.shipped()


def reading_the_value_is_an_error(gate: Gate, path: Path) -> None:
    assert refused(gate.cli("run", "--mode", "tool", "state.get notes"), "runtime_error")
    assert os.path.lexists(path)


MATRIX: dict[str, list[Check]] = {
    "signing.key": [resume_by_token_is_refused, resume_by_id_is_refused, a_new_halt_is_refused],
    "state": [resume_by_token_is_refused, resume_by_id_is_refused, resume_by_run_is_refused, runs_lists_what_it_can],
    "approval": [resume_by_id_is_refused],
    "other-approval": [the_gate_still_resumes],
    "journal": [runs_lists_what_it_can, resume_by_run_is_refused, resume_by_token_is_refused],  # it holds the records
    "lock": [runs_lists_what_it_can, resume_by_run_is_refused, resume_by_token_is_refused],
    "runs": [runs_lists_what_it_can, resume_by_run_is_refused, resume_by_token_is_refused, a_new_halt_is_refused],
    "value": [reading_the_value_is_an_error],
}


CASES = [(name, kind) for name in MATRIX for kind in KINDS if (name, kind) != ("runs", "directory")]
"""Every path with every kind (an empty `runs` directory is just a state directory without runs)."""


@pytest.mark.parametrize(("name", "kind"), CASES)
def test_a_special_file_is_refused_at_once(gate: Gate, name: str, kind: str) -> None:
    if name == "value":
        assert gate.cli("run", "--mode", "tool", "exec --json --shell 'echo [1]' | state.set notes")[0] == 0
    path = planted(gate, name, kind)
    checks = [runs_lists_what_it_can, the_gate_still_resumes_by_run] if (name, kind) == ("lock", "oversize") else MATRIX[name]
    for check in checks:
        check(gate, path)


@pytest.mark.parametrize("kind", ["fifo", "directory", "device-symlink"])
def test_a_refused_state_file_leaves_the_token_valid(gate: Gate, kind: str) -> None:
    """Refusing changes nothing: once the real file is back, the same token resumes the gate."""
    path = planted(gate, "state", kind)
    resume_by_token_is_refused(gate, path)
    if path.is_dir() and not path.is_symlink():
        path.rmdir()
    else:
        path.unlink()
    path.with_name(path.name + ".real").rename(path)
    code, envelope = gate.cli("resume", "--token", gate.token, "--approve", "yes")
    assert (code, envelope["status"]) == (0, "ok") and gate.shipped()


@pytest.mark.parametrize("kind", ["fifo", "directory", "device-symlink"])
def test_a_claimed_special_file_of_a_dead_resume_is_refused(gate: Gate, kind: str) -> None:
    """A `.claimed-<pid>-…` file of a dead process is put back and checked like the state itself."""
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    claimed = gate.state / f".{gate.state_file.name}.claimed-{dead.pid}-0123abcd"
    gate.state_file.rename(gate.root / "real-state.json")
    plant(claimed, kind, MAX_STATE_BYTES)
    assert refused(gate.cli("resume", "--token", gate.token, "--approve", "yes"))
    assert not gate.shipped() and (os.path.lexists(claimed) or os.path.lexists(gate.state_file))
