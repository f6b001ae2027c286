"""When a schedule fires: its cron minutes placed in its time zone, the next tick, and the ticks due after downtime.

The DST rule: a schedule names wall-clock times, and each wall-clock time that matches fires once.
A time the clocks skip (02:30 on a spring-forward night in New York) fires at the moment the
clocks jump (03:00 local); several skipped times fire once there. A time that occurs twice
(01:30 on a fall-back night) fires at its first occurrence only. So a daily schedule fires once
every day, never twice and never not at all, and an hourly one fires 24 times on both days (on the
short day its 02:30 fires at 03:00, and its 03:30 half an hour later; on the long day the repeated
hour fires once, so two ticks are two hours apart). For equal spacing whatever the clocks do, use
the time zone UTC.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

from lobsterlang.cron import Cron

UTC = timezone.utc
GRACE = timedelta(seconds=50)
"""A tick first seen within this of its time is on time; one seen later was missed (no worker was running)."""
MAX_CATCH_UP = 100
"""`--catch-up all` starts at most this many missed ticks, the newest; the older ones count as missed."""
COUNT_LIMIT = 1000
"""Missed ticks are counted up to this many (a minutely schedule down for a week says `1000+`)."""
MAX_SHIFT = timedelta(hours=3)
"""More than any change of a zone's UTC offset in the tz database (2 hours at most)."""


def wall_time(moment: datetime, zone: ZoneInfo) -> datetime:
    """The naive wall-clock time in `zone` at the aware `moment`."""
    return moment.astimezone(zone).replace(tzinfo=None)


def instant(wall: datetime, zone: ZoneInfo) -> datetime:
    """The moment (aware, UTC) the naive wall-clock time `wall` fires in `zone`, by the DST rule above."""
    first = wall.replace(tzinfo=zone, fold=0).astimezone(UTC)
    if wall_time(first, zone) == wall:
        return first  # a time that exists: its first occurrence
    return _jump(wall, zone)


def _jump(wall: datetime, zone: ZoneInfo) -> datetime:
    """The moment the clocks jump over the skipped time `wall`: the first second whose wall time is past it."""
    low = wall.replace(tzinfo=zone, fold=1).astimezone(UTC)  # the offset after the change: a moment before the jump
    high = wall.replace(tzinfo=zone, fold=0).astimezone(UTC)  # the offset before it: a moment after the jump
    while high - low > timedelta(seconds=1):
        middle = low + (high - low) / 2
        middle = middle.replace(microsecond=0)
        if wall_time(middle, zone) >= wall:
            high = middle
        else:
            low = middle
    return high


def next_tick(cron: Cron, zone: ZoneInfo, after: datetime) -> datetime | None:
    """The first tick strictly after the aware moment `after` (None: the expression never fires again)."""
    wall = cron.next_after(wall_time(after, zone))
    while wall is not None:
        moment = instant(wall, zone)
        if moment > after:  # a time of the repeated hour that fired at its first occurrence is passed over
            return moment
        wall = cron.next_after(wall)
    return None


def newest_tick(cron: Cron, zone: ZoneInfo, at_or_before: datetime) -> datetime | None:
    """The last tick at or before the aware moment `at_or_before` (None: none in the last 28 years)."""
    wall = cron.at_or_before(wall_time(at_or_before, zone) + MAX_SHIFT)
    while wall is not None:
        moment = instant(wall, zone)
        if moment <= at_or_before:
            return moment
        wall = cron.at_or_before(wall - timedelta(minutes=1))
    return None


@dataclass(frozen=True)
class Due:
    """The ticks a schedule has due: those to start (oldest first), how many were passed over, the new cursor."""

    start: tuple[datetime, ...]
    missed: int
    cursor: datetime
    """The newest due tick: the next claim looks at ticks after it."""
    counted_all: bool = True
    """False when counting stopped at COUNT_LIMIT: `missed` is then a lower bound."""

    @property
    def missed_text(self) -> str:
        return str(self.missed) if self.counted_all else f"{self.missed}+"


def due_ticks(cron: Cron, zone: ZoneInfo, cursor: datetime, now: datetime, catch_up: str) -> Due | None:
    """What to do with the ticks after `cursor` up to `now` (None: none is due).

    A tick is on time when it is the newest due one and at most GRACE old; the others were missed
    (no worker ran then). `none` starts only an on-time tick, `last` the newest due tick whether on
    time or late, `all` every due tick (the newest MAX_CATCH_UP).
    """
    newest = newest_tick(cron, zone, now)
    if newest is None or newest <= cursor:
        return None
    if catch_up == "all":
        start = _newest_ticks(cron, zone, cursor, newest, MAX_CATCH_UP)
    elif catch_up == "last" or now - newest <= GRACE:
        start = [newest]
    else:
        start = []
    count = _count(cron, zone, cursor, newest)
    return Due(tuple(start), count - len(start), newest, count < COUNT_LIMIT)


def _newest_ticks(cron: Cron, zone: ZoneInfo, cursor: datetime, newest: datetime, limit: int) -> list[datetime]:
    """Up to `limit` ticks after `cursor`, ending with `newest`, oldest first."""
    found = [newest]
    while len(found) < limit:
        before = newest_tick(cron, zone, found[-1] - timedelta(microseconds=1))
        if before is None or before <= cursor:
            break
        found.append(before)
    return found[::-1]


def _count(cron: Cron, zone: ZoneInfo, cursor: datetime, newest: datetime) -> int:
    """How many ticks lie after `cursor` up to `newest` (counting stops at COUNT_LIMIT)."""
    count, tick = 0, next_tick(cron, zone, cursor)
    while tick is not None and tick <= newest and count < COUNT_LIMIT:
        count += 1
        tick = next_tick(cron, zone, tick)
    return count


class ZoneError(ValueError):
    """A time zone name that is not in the tz database; the message has a suggestion when one is close."""


def zone_named(name: str) -> ZoneInfo:
    """The IANA time zone `name` (ZoneError with "did you mean" when there is none)."""
    from zoneinfo import ZoneInfoNotFoundError, available_timezones

    known = available_timezones() | {"UTC"}
    if name in known:
        try:
            return ZoneInfo(name)
        except (ZoneInfoNotFoundError, ValueError):
            pass
    from lobsterlang.suggest import closest

    near = closest(name, known) or next((z for z in sorted(known) if z.lower() == name.lower()), None)
    hint = f"did you mean {near!r}?" if near else "give an IANA name such as Europe/Berlin, America/New_York or UTC"
    raise ZoneError(f"unknown time zone {name!r}: {hint}")


def local_zone_name(env: Mapping[str, str]) -> str:
    """This machine's time zone as an IANA name (`TZ`, else where /etc/localtime points), or UTC."""
    from zoneinfo import available_timezones

    known = available_timezones()
    candidates = [env.get("TZ", "").removeprefix(":"), os.path.realpath("/etc/localtime").split("/zoneinfo/", 1)[-1]]
    try:
        with open("/etc/timezone", encoding="utf-8") as handle:
            candidates.append(handle.read().strip())
    except OSError:
        pass
    return next((name for name in candidates if name in known), "UTC")
