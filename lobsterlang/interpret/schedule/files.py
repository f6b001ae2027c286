"""Schedules of one machine, in the state directory: `schedules/NAME.json`, fired by a crontab line or a systemd timer.

Nothing here fires a tick: `lobster schedule export` writes the entry that does, which calls
`lobster run --schedule NAME FILE` (`lobsterlang.interpret.schedule.ticklock`). What that run
did last is `schedules/NAME.last.json`, its lock `schedules/NAME.lock`.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from lobsterlang.interpret.errors import UsageError
from lobsterlang.interpret.schedule.model import LastRun, Schedule, ScheduleView, check_name
from lobsterlang.interpret.schedule.timing import next_tick
from lobsterlang.interpret.state import default_state_dir

SCHEDULES_DIR = "schedules"


def schedules_dir(env: Mapping[str, str]) -> Path:
    return Path(default_state_dir(env)) / SCHEDULES_DIR


def write_json(path: Path, data: Any) -> None:
    """Write `data` as JSON to `path` atomically (a reader sees the old file or the new one), mode 0600."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(data, handle, indent=2, ensure_ascii=False)
            handle.write("\n")
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


def read_json(path: Path) -> Any:
    """The JSON in `path`, or None when it is missing or not JSON."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


class FileSchedules:
    """The schedules in one state directory."""

    where = "the state directory"
    workers = False
    """Whether workers fire these schedules (no: an exported crontab line or systemd timer does)."""

    def __init__(self, env: Mapping[str, str]) -> None:
        self.env = env
        self.dir = schedules_dir(env)

    def path(self, name: str, suffix: str = ".json") -> Path:
        return self.dir / f"{check_name(name)}{suffix}"

    def add(self, schedule: Schedule, replace: bool, workflow: Any = None, digest: str | None = None) -> None:
        """Store `schedule` (the IR is not kept: each tick's `lobster run` reads the file as it is then)."""
        path = self.path(schedule.name)
        if path.exists() and not replace:
            raise UsageError(f"schedule {schedule.name} exists (hint: --replace to change it, or pick another name)")
        write_json(path, schedule.to_json())

    def get(self, name: str) -> Schedule | None:
        data = read_json(self.path(name))
        return Schedule.from_json(data) if isinstance(data, dict) else None

    def require(self, name: str) -> Schedule:
        schedule = self.get(name)
        if schedule is None:
            raise unknown_schedule(name, [s.name for s in self.all()], self.where)
        return schedule

    def all(self) -> list[Schedule]:
        if not self.dir.is_dir():
            return []
        found = [read_json(p) for p in sorted(self.dir.glob("*.json")) if not p.name.endswith(".last.json")]
        return [Schedule.from_json(data) for data in found if isinstance(data, dict)]

    def remove(self, name: str) -> Schedule:
        schedule = self.require(name)
        for suffix in (".json", ".last.json"):
            with contextlib.suppress(FileNotFoundError):
                self.path(name, suffix).unlink()
        return schedule

    def set_paused(self, name: str, paused: bool) -> Schedule:
        schedule = self.require(name).paused_as(paused)
        write_json(self.path(name), schedule.to_json())
        return schedule

    def views(self, now: datetime) -> list[ScheduleView]:
        return [ScheduleView(s, None if s.paused else next_tick(s.parsed, s.zone, now), self.last_run(s.name))
                for s in self.all()]

    def last_run(self, name: str) -> LastRun | None:
        from lobsterlang.interpret.schedule.ticklock import last_run

        return last_run(self, name)


def unknown_schedule(name: str, known: list[str], where: str) -> UsageError:
    from lobsterlang.suggest import closest

    near = closest(name, known)
    hint = f"did you mean {near!r}?" if near else "lobster schedule list shows them"
    return UsageError(f"no schedule named {name!r} in {where} ({hint})")
