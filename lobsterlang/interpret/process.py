"""Child processes in their own process group, killed as a whole tree on cancel, timeout or early stop."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence

from lobsterlang.interpret.errors import Cancelled

FORCE_KILL_AFTER_S = 0.25


class Cancellation:
    """Shared by one run: records why it was cancelled and kills the process groups it started."""

    def __init__(self) -> None:
        self.reason: str | None = None
        self.exit_code = 130
        self._live: set[subprocess.Popen[bytes]] = set()
        self._lock = threading.Lock()

    @property
    def cancelled(self) -> bool:
        return self.reason is not None

    def check(self) -> None:
        """Raise `Cancelled` if the run was cancelled."""
        if self.reason is not None:
            raise Cancelled(self.reason, self.exit_code)

    def cancel(self, reason: str, exit_code: int = 130) -> None:
        """Mark the run cancelled and kill every live process tree (SIGTERM, then SIGKILL)."""
        if self.reason is None:
            self.reason, self.exit_code = reason, exit_code
        for proc in self._snapshot():
            kill_tree(proc)

    def spawn(self, argv: Sequence[str], env: Mapping[str, str], cwd: str, *, stdin: bool) -> subprocess.Popen[bytes]:
        """Start `argv` (never through a shell) in a new process group and track it."""
        self.check()
        proc = subprocess.Popen(
            list(argv), env=dict(env), cwd=cwd, shell=False, start_new_session=True,
            stdin=subprocess.PIPE if stdin else subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )
        with self._lock:
            self._live.add(proc)
        if self.reason is not None:  # cancelled while it started: `cancel()` could not see it yet
            kill_tree(proc)
            self.forget(proc)
            self.check()
        return proc

    def forget(self, proc: subprocess.Popen[bytes]) -> None:
        with self._lock:
            self._live.discard(proc)

    def _snapshot(self) -> list[subprocess.Popen[bytes]]:
        with self._lock:
            return list(self._live)


def kill_tree(proc: subprocess.Popen[bytes], grace: float = FORCE_KILL_AFTER_S) -> None:
    """SIGTERM the child's whole process group, then SIGKILL it after `grace` seconds."""
    signal_group(proc.pid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    signal_group(proc.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(timeout=5)


def signal_group(pgid: int, sig: int) -> None:
    """Send `sig` to a process group; a group that is already gone is fine."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


class OutputTooLarge(Exception):
    """A child wrote more than the allowed number of bytes (its tree has been killed)."""


def run_to_end(
    cancel: Cancellation, argv: Sequence[str], env: Mapping[str, str], cwd: str, max_bytes: int | None = None,
) -> tuple[int, str, str]:
    """Run a child to completion in its own process group: (exit code, stdout, stderr).

    A cancelled run kills the child's tree; `FileNotFoundError` means the program was not found;
    more than `max_bytes` on stdout or stderr kills the tree and raises `OutputTooLarge`.
    """
    proc = cancel.spawn(argv, env, cwd, stdin=False)
    try:
        out, err = _read_both(proc, max_bytes)
    except BaseException:
        kill_tree(proc)
        raise
    finally:
        cancel.forget(proc)
    proc.wait()
    cancel.check()
    return proc.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")


def _read_both(proc: subprocess.Popen[bytes], max_bytes: int | None) -> tuple[bytes, bytes]:
    """Both pipes read to the end (stderr in a thread); more than `max_bytes` on either kills the tree."""
    assert proc.stdout is not None and proc.stderr is not None
    out_chunks: list[bytes] = []
    err_chunks: list[bytes] = []
    overflow: list[bool] = []
    reader = threading.Thread(target=_read_into, args=(proc, proc.stderr.fileno(), err_chunks, max_bytes, overflow), daemon=True)
    reader.start()
    _read_into(proc, proc.stdout.fileno(), out_chunks, max_bytes, overflow)
    reader.join()
    proc.stdout.close()
    proc.stderr.close()
    if overflow:
        raise OutputTooLarge(max_bytes)
    return b"".join(out_chunks), b"".join(err_chunks)


def _read_into(proc: subprocess.Popen[bytes], fd: int, chunks: list[bytes], max_bytes: int | None, overflow: list[bool]) -> None:
    """Read `fd` to its end; past `max_bytes`, kill the child's group so that both pipes close."""
    size = 0
    for chunk in iter(lambda: os.read(fd, 65536), b""):
        size += len(chunk)
        if max_bytes is not None and size > max_bytes:
            overflow.append(True)
            signal_group(proc.pid, signal.SIGKILL)
            return
        chunks.append(chunk)
