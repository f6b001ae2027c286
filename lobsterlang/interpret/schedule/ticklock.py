"""`lobster run --schedule NAME FILE`: one tick of a schedule on one machine, under a lock so ticks never overlap.

The lock is `flock` on `<state dir>/schedules/NAME.lock`, held by the `lobster run` process until it
exits; the kernel releases it when the process ends in any way (kill -9 too), so a lock is never
left behind. With overlap `skip` a tick that finds the lock held says so on stderr and exits 0
without running anything; with `queue` it waits for the lock. What the run did is written to
`NAME.last.json` (start, end, exit code) for `lobster schedule list`.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Callable, Iterator, Mapping
from datetime import datetime
from pathlib import Path
from typing import TextIO

from lobsterlang.interpret.schedule.files import FileSchedules, read_json, write_json
from lobsterlang.interpret.schedule.model import LastRun, check_name
from lobsterlang.interpret.state import StateStore, now_iso

LOCK = ".lock"
LAST = ".last.json"


def run_tick(name: str, overlap: str, run: Callable[[], int], env: Mapping[str, str], err: TextIO) -> int:
    """Run `run` as a tick of schedule `name` (paused: nothing runs; lock held: skipped, or queued); its exit code."""
    schedules = FileSchedules(env)
    declared = schedules.get(check_name(name))
    if declared is not None and declared.paused:
        _say(err, name, f"is paused (lobster schedule resume {name}); this tick runs nothing")
        return 0
    with _locked(schedules.path(name, LOCK), overlap == "queue", name, err) as held:
        if not held:
            return 0
        record = {"pid": os.getpid(), "startedAt": now_iso()}
        write_json(schedules.path(name, LAST), record)
        code = run()
        write_json(schedules.path(name, LAST), {**record, "endedAt": now_iso(), "exitCode": code})
        return code


@contextlib.contextmanager
def _locked(path: Path, wait: bool, name: str, err: TextIO) -> Iterator[bool]:
    """Hold the schedule's lock for the block (False: held by another run, and not waiting for it)."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if not wait:
                _say(err, name, f"skipped: its previous run ({_holder(fd)}) is still running (overlap skip)")
                yield False
                return
            _say(err, name, f"waiting for its previous run ({_holder(fd)}) to end (overlap queue)")
            fcntl.flock(fd, fcntl.LOCK_EX)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()} {now_iso()}\n".encode(), 0)
        yield True
    finally:
        os.close(fd)


def _holder(fd: int) -> str:
    """`pid N, since T` from the lock file (written by its holder right after taking it: `just started` before)."""
    pid, _, since = os.pread(fd, 200, 0).decode(errors="replace").strip().partition(" ")
    return f"pid {pid}, since {since}" if pid.isdigit() else "just started"


def _say(err: TextIO, name: str, text: str) -> None:
    err.write(f"lobster run: schedule {name} {text}\n")
    err.flush()


def lock_held(path: Path) -> bool:
    """Whether a live process holds the lock file at `path`."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


def last_run(schedules: FileSchedules, name: str) -> LastRun | None:
    """What the schedule's last tick on this machine did (None: no tick ran yet)."""
    record = read_json(schedules.path(name, LAST))
    if not isinstance(record, dict) or not isinstance(record.get("startedAt"), str):
        return None
    started = datetime.fromisoformat(record["startedAt"].replace("Z", "+00:00"))
    waiting = _unfinished_run(schedules.env, name, record["startedAt"])
    code = record.get("exitCode")
    if "endedAt" not in record:
        held = lock_held(schedules.path(name, LOCK))
        status = f"running (pid {record.get('pid')})" if held else f"stopped before it ended (pid {record.get('pid')} was killed)"
    elif code != 0:
        status = f"failed (exit {code})"
    else:
        status = waiting[1] if waiting else "ok"
    return LastRun(started, waiting[0] if waiting else None, status)


def _unfinished_run(env: Mapping[str, str], name: str, since: str) -> tuple[str, str] | None:
    """(run id, status) of the newest unfinished run of schedule `name` started at or after `since`."""
    from lobsterlang.interpret.workflow.stores import backend_of

    # the schedules of the state directory run there: their runs are in its journals (Postgres has its own schedules)
    logs = [log for log in backend_of(StateStore.from_env(env)).list_runs()
            if log.start.get("schedule") == name and str(log.start.get("startedAt", "")) >= since]
    if not logs:
        return None
    log = logs[-1]
    gate = (log.halted or {}).get("step")
    return log.run_id, f"waiting at {gate}" if gate else (f"interrupted in {log.uncertain[1]}" if log.uncertain else "interrupted")
