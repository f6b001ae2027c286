"""A schedule as stored: its name, cron expression, time zone, workflow file, args and policies, and what it last did."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime, timezone
from typing import Any
from zoneinfo import ZoneInfo

from lobsterlang.cron import Cron, parse_cron
from lobsterlang.interpret.errors import UsageError

OVERLAPS = ("skip", "queue")
"""What a tick does while an earlier run of its schedule is queued or running: skip it, or queue it behind."""
CATCH_UPS = ("none", "last", "all")
"""Which ticks missed while nothing fired (no worker, the machine off) run late: none, the newest, or all."""
DEFAULT_OVERLAP = "skip"
DEFAULT_CATCH_UP = "last"
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}\Z")


def check_name(name: str) -> str:
    """`name` when it can name a schedule (a file, a systemd unit and a lock are named after it); else UsageError."""
    if not _NAME.match(name) or name.endswith((".json", ".lock", ".log")):
        raise UsageError(f"schedule name {name!r}: use letters, digits, `_`, `.` and `-` (at most 64, starting with a letter "
                         "or digit), e.g. morning-briefing")
    return name


@dataclass(frozen=True)
class Schedule:
    """A declared schedule: `file` is absolute, `args` the --args-json object as given, `cwd` where runs start."""

    name: str
    cron: str
    timezone: str
    file: str
    args: dict[str, Any] = field(default_factory=dict)
    overlap: str = DEFAULT_OVERLAP
    catch_up: str = DEFAULT_CATCH_UP
    cwd: str = ""
    paused: bool = False

    @property
    def parsed(self) -> Cron:
        cron, problems = parse_cron(self.cron)
        if cron is None:  # stored schedules were checked when added
            raise UsageError(f"schedule {self.name}: stored cron expression {self.cron!r} does not parse: {problems[0].message}")
        return cron

    @property
    def zone(self) -> ZoneInfo:
        return ZoneInfo(self.timezone)

    def paused_as(self, paused: bool) -> Schedule:
        return replace(self, paused=paused)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["catchUp"] = data.pop("catch_up")
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Schedule:
        known = {"name", "cron", "timezone", "file", "args", "overlap", "cwd", "paused"}
        values = {k: v for k, v in data.items() if k in known}
        return cls(**values, catch_up=str(data.get("catchUp", DEFAULT_CATCH_UP)))


@dataclass(frozen=True)
class LastRun:
    """What a schedule did last: when (its tick, or when the run started), the run id if one started, and its status."""

    at: datetime
    run_id: str | None
    status: str


@dataclass(frozen=True)
class ScheduleView:
    """A schedule as `schedule list` shows it: with its next tick (None while paused) and its last run."""

    schedule: Schedule
    next_at: datetime | None
    last: LastRun | None

    def to_json(self) -> dict[str, Any]:
        last = self.last
        return {**self.schedule.to_json(), "nextTick": _iso(self.next_at),
                "lastRun": None if last is None else {"at": _iso(last.at), "runId": last.run_id, "status": last.status}}


def _iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.astimezone(timezone.utc).isoformat()
