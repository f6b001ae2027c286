"""Code lenses naming the schedules that run a workflow file (`lobster schedule`), read in the background.

A lens request never waits for the backend: it answers from a cache and, when the cache is older
than REFRESH_S, starts one read in a worker thread. The read gives up after TIMEOUT_S (a database
that does not answer means no schedule lenses, not a frozen editor); when it brings something new,
the client is asked to request its lenses again (`workspace/codeLens/refresh`, where supported).
The schedules come from the backend the server's environment names: `LOBSTER_BACKEND`
(Postgres), else the state directory.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from zoneinfo import ZoneInfo

REFRESH_S = 30.0
TIMEOUT_S = 3.0

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Shown:
    """A schedule as its lens shows it."""

    name: str
    cron: str
    timezone: str
    next_at: datetime | None
    paused: bool

    @property
    def title(self) -> str:
        if self.paused:
            return f"⏸ schedule {self.name}: paused ({self.cron}, {self.timezone})"
        when = "-" if self.next_at is None else self.next_at.astimezone(ZoneInfo(self.timezone)).strftime("%a %H:%M")
        return f"⏱ schedule {self.name}: {self.cron} ({self.timezone}), next {when}"


Fetch = Callable[[], dict[str, list[Shown]]]
"""Reads every schedule, by the real path of its workflow file (blocking: run in a thread)."""


class ScheduleCache:
    """The schedules of each workflow file, as last read; `changed` is called (on the event loop) when a read brings news."""

    def __init__(self, fetch: Fetch, changed: Callable[[], None], refresh_s: float = REFRESH_S,
                 timeout_s: float = TIMEOUT_S) -> None:
        self.fetch = fetch
        self.changed = changed
        self.refresh_s = refresh_s
        self.timeout_s = timeout_s
        self.by_file: dict[str, list[Shown]] = {}
        self.read_at: float | None = None
        self.reading: asyncio.Task[None] | None = None

    def lookup(self, path: str) -> list[Shown]:
        """The schedules of the file at `path` as last read (a read starts in the background when that is old)."""
        stale = self.read_at is None or time.monotonic() - self.read_at > self.refresh_s
        if stale and self.reading is None:
            self.reading = asyncio.get_event_loop().create_task(self._read())
        return self.by_file.get(os.path.realpath(path), [])

    async def _read(self) -> None:
        loop = asyncio.get_event_loop()
        try:
            found = await asyncio.wait_for(loop.run_in_executor(None, self.fetch), self.timeout_s)
        except Exception as exc:  # unreachable, slow, no such table, no psycopg: no lenses, and try again later
            logger.info("schedules not read: %s", exc or type(exc).__name__)
            found = self.by_file
        finally:
            self.read_at = time.monotonic()
            self.reading = None
        if found != self.by_file:
            self.by_file = found
            self.changed()


def fetch_for(env: Mapping[str, str], timeout_s: float = TIMEOUT_S) -> Fetch:
    """How to read the schedules of the backend `env` names."""
    url = env.get("LOBSTER_BACKEND", "").strip()
    if url:
        return lambda: _from_database(url, timeout_s)
    return lambda: _from_state_directory(env)


def _from_state_directory(env: Mapping[str, str]) -> dict[str, list[Shown]]:
    from lobsterlang.interpret.schedule.files import FileSchedules
    from lobsterlang.interpret.schedule.timing import next_tick

    now = datetime.now(timezone.utc)
    return _by_file([(Shown(s.name, s.cron, s.timezone, None if s.paused else next_tick(s.parsed, s.zone, now), s.paused),
                      s.file) for s in FileSchedules(env).all()])


def _from_database(url: str, timeout_s: float) -> dict[str, list[Shown]]:
    from lobsterlang.interpret.schedule.postgres import editor_rows

    return _by_file([(Shown(name, cron, zone, next_at, paused), path) for name, cron, zone, path, paused, next_at
                     in editor_rows(url, timeout_s)])


def _by_file(pairs: list[tuple[Shown, str]]) -> dict[str, list[Shown]]:
    found: dict[str, list[Shown]] = {}
    for shown, path in pairs:
        found.setdefault(os.path.realpath(path), []).append(shown)
    return found
