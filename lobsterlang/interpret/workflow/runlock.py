"""The exclusive claim on a workflow run: an `flock` on `<run id>.lock` beside its journal.

The process that runs a run (`lobster run`, `resume --run`, a token resume) holds the claim until
it stops; the kernel releases it when that process dies, so a crash never leaves a run stuck. A
second process is refused at once, with the holder's pid. The holder removes the lock file
before it lets go; a claimant that locked a removed file tries again on the new one.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from lobsterlang.digits import whole_number
from lobsterlang.interpret.errors import StateIntegrityError
from lobsterlang.interpret.state import StateStore
from lobsterlang.interpret.statefiles import CorruptState, open_regular, private_subdir
from lobsterlang.interpret.workflow.errors import WorkflowError

LOCK_SUFFIX = ".lock"
_RETRY_S = 0.2
"""How long a claimant retries: a `lobster runs` probe holds a shared lock for an instant."""
_held: dict[tuple[str, int], list[int]] = {}
"""Lock files this process holds: (path, thread) -> [fd, depth]. A token resume inside `resume --run`
nests in its thread; another thread takes a lock of its own, which the held one refuses."""


class RunBusy(WorkflowError):
    """Another live process holds the run."""


def lock_path(store: StateStore, run_id: str) -> Path:
    return store.dir / "runs" / f"{run_id}{LOCK_SUFFIX}"


@contextlib.contextmanager
def hold_run(store: StateStore, run_id: str) -> Iterator[None]:
    """Hold run `run_id` for the block; raises RunBusy when another live process holds it.

    A store whose runs are not on disk (a database backend) holds its runs itself (`Backend.hold`).
    """
    if not store.on_disk:
        yield
        return
    path = str(lock_path(store, run_id))
    key = (path, threading.get_ident())
    if key in _held:
        _held[key][1] += 1
    else:
        _held[key] = [_acquire(path, run_id), 1]
    try:
        yield
    finally:
        _release(key)


def holder_pid(store: StateStore, run_id: str) -> int | None:
    """The pid of the live process holding the run (0 when it has not written it yet), or None."""
    if not store.on_disk:
        return None
    try:
        fd = open_regular(str(lock_path(store, run_id)))
    except (CorruptState, OSError):
        return None
    if fd is None:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return _read_pid(fd) or 0
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


def _acquire(path: str, run_id: str) -> int:
    deadline = time.monotonic() + _RETRY_S
    while True:
        fd = _open_lock(path, run_id)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            pid = _read_pid(fd)
            os.close(fd)
            if time.monotonic() < deadline:
                time.sleep(0.01)
                continue
            raise RunBusy(_busy_message(run_id, pid)) from None
        if _is_current(fd, path):
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
            return fd
        os.close(fd)  # the previous holder removed this file as we opened it: lock the new one


def _open_lock(path: str, run_id: str) -> int:
    """The lock file, created 0600 in the 0700 `runs` folder; `state_integrity` when something else is there."""
    try:
        private_subdir(os.path.dirname(os.path.dirname(path)), os.path.basename(os.path.dirname(path)))
        fd = open_regular(path, os.O_RDWR | os.O_CREAT)
    except CorruptState as exc:
        raise StateIntegrityError(f"Run {run_id} cannot be locked: {exc}; nothing ran") from None
    assert fd is not None
    return fd


def _busy_message(run_id: str, pid: int | None) -> str:
    holder = f"process {pid}" if pid else "another process"
    return (f"Run {run_id} is in progress ({holder} holds it); wait for it to finish or halt, "
            "or stop that process, then resume again")


def _is_current(fd: int, path: str) -> bool:
    """True when `fd` is still the file at `path` (not one a previous holder unlinked)."""
    try:
        return os.fstat(fd).st_ino == os.stat(path).st_ino
    except FileNotFoundError:
        return False


def _read_pid(fd: int) -> int | None:
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        return None
    return whole_number(text)


def _release(key: tuple[str, int]) -> None:
    entry = _held[key]
    entry[1] -= 1
    if entry[1]:
        return
    del _held[key]
    with contextlib.suppress(FileNotFoundError):
        os.unlink(key[0])  # while still locked: a claimant holding the old file sees it was removed
    os.close(entry[0])
