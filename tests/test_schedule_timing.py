"""When schedules fire: the DST rule in real time zones, and which ticks run after downtime (the catch-up policies)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from lobsterlang.cron import Cron, parse_cron
from lobsterlang.interpret.schedule.timing import (
    GRACE,
    MAX_CATCH_UP,
    ZoneError,
    due_ticks,
    local_zone_name,
    newest_tick,
    next_tick,
    zone_named,
)

UTC = timezone.utc
NEW_YORK = ZoneInfo("America/New_York")  # 2026: clocks spring forward Mar 8 02:00 -> 03:00, fall back Nov 1 02:00 -> 01:00
BERLIN = ZoneInfo("Europe/Berlin")  # 2026: Mar 29 02:00 -> 03:00, Oct 25 03:00 -> 02:00


def cron(text: str) -> Cron:
    parsed, problems = parse_cron(text)
    assert parsed is not None, problems
    return parsed


def ticks(text: str, zone: ZoneInfo, start: datetime, end: datetime) -> list[str]:
    """Every tick in [start, end), as local wall-clock time with its zone abbreviation."""
    found, moment = [], start - timedelta(microseconds=1)
    while (moment := next_tick(cron(text), zone, moment)) is not None and moment < end:  # type: ignore[assignment]
        found.append(moment.astimezone(zone).strftime("%m-%d %H:%M %Z"))
    return found


def day(zone: ZoneInfo, month: int, day_: int) -> tuple[datetime, datetime]:
    start = datetime(2026, month, day_, tzinfo=zone)
    return start, datetime(2026, month, day_ + 1, tzinfo=zone)


def test_a_daily_time_the_clocks_skip_runs_when_they_jump() -> None:
    assert ticks("30 2 * * *", NEW_YORK, *day(NEW_YORK, 3, 7)) == ["03-07 02:30 EST"]
    assert ticks("30 2 * * *", NEW_YORK, *day(NEW_YORK, 3, 8)) == ["03-08 03:00 EDT"]  # once, at the jump
    assert ticks("30 2 * * *", NEW_YORK, *day(NEW_YORK, 3, 9)) == ["03-09 02:30 EDT"]
    assert ticks("30 2 * * *", BERLIN, *day(BERLIN, 3, 29)) == ["03-29 03:00 CEST"]


def test_a_daily_time_that_occurs_twice_runs_at_its_first_occurrence_only() -> None:
    assert ticks("30 1 * * *", NEW_YORK, *day(NEW_YORK, 11, 1)) == ["11-01 01:30 EDT"]
    assert ticks("30 2 * * *", BERLIN, *day(BERLIN, 10, 25)) == ["10-25 02:30 CEST"]


def test_an_hourly_schedule_runs_once_per_wall_clock_hour_on_both_days() -> None:
    short = ticks("30 * * * *", NEW_YORK, *day(NEW_YORK, 3, 8))
    assert len(short) == 24 and short[1:4] == ["03-08 01:30 EST", "03-08 03:00 EDT", "03-08 03:30 EDT"]
    long = ticks("30 * * * *", NEW_YORK, *day(NEW_YORK, 11, 1))
    assert len(long) == 24 and long[1:3] == ["11-01 01:30 EDT", "11-01 02:30 EST"]  # 01:30 EST does not run again
    skipped_quarter_hours = ticks("*/15 2 * * *", NEW_YORK, *day(NEW_YORK, 3, 8))
    assert skipped_quarter_hours == ["03-08 03:00 EDT"]  # four skipped times fire once, at the jump


def test_in_utc_the_ticks_keep_their_spacing() -> None:
    start = datetime(2026, 3, 8, tzinfo=UTC)
    assert len(ticks("30 * * * *", ZoneInfo("UTC"), start, start + timedelta(days=1))) == 24


def test_a_half_hour_dst_change() -> None:
    lord_howe = ZoneInfo("Australia/Lord_Howe")  # 2026-10-04 02:00 -> 02:30
    assert ticks("15 2 * * *", lord_howe, *day(lord_howe, 10, 4)) == ["10-04 02:30 +11"]


def test_the_newest_tick_agrees_with_the_next_one_across_both_changes() -> None:
    for text, zone in (("30 1 * * *", NEW_YORK), ("*/15 * * * *", NEW_YORK), ("30 2 * * *", BERLIN)):
        moment = datetime(2026, 3, 1, tzinfo=UTC)
        while moment < datetime(2026, 11, 10, tzinfo=UTC):
            following = next_tick(cron(text), zone, moment)
            assert following is not None
            assert newest_tick(cron(text), zone, following) == following
            assert newest_tick(cron(text), zone, following - timedelta(microseconds=1)) in (None, *_before(text, zone, following))
            moment = following + (timedelta(days=11) if text.startswith("30") else timedelta(hours=37))


def _before(text: str, zone: ZoneInfo, moment: datetime) -> list[datetime]:
    previous = newest_tick(cron(text), zone, moment - timedelta(microseconds=1))
    return [previous] if previous is not None and next_tick(cron(text), zone, previous) == moment else []


HOURLY = cron("0 * * * *")
DOWN_AT = datetime(2026, 12, 2, 6, 59, tzinfo=UTC)


def test_catch_up_none_runs_only_an_on_time_tick() -> None:
    on_time = due_ticks(HOURLY, ZoneInfo("UTC"), DOWN_AT, DOWN_AT + timedelta(minutes=1, seconds=5), "none")
    assert on_time is not None and on_time.start == (datetime(2026, 12, 2, 7, tzinfo=UTC),) and on_time.missed == 0
    after_downtime = due_ticks(HOURLY, ZoneInfo("UTC"), DOWN_AT, DOWN_AT + timedelta(hours=3), "none")
    assert after_downtime is not None and after_downtime.start == () and after_downtime.missed == 3
    assert after_downtime.cursor == datetime(2026, 12, 2, 9, tzinfo=UTC)
    late = due_ticks(HOURLY, ZoneInfo("UTC"), DOWN_AT, datetime(2026, 12, 2, 7, tzinfo=UTC) + GRACE + timedelta(seconds=1), "none")
    assert late is not None and late.start == () and late.missed == 1


def test_catch_up_last_runs_the_newest_missed_tick_once() -> None:
    due = due_ticks(HOURLY, ZoneInfo("UTC"), DOWN_AT, DOWN_AT + timedelta(hours=3), "last")
    assert due is not None and due.start == (datetime(2026, 12, 2, 9, tzinfo=UTC),) and due.missed == 2


def test_catch_up_all_runs_every_missed_tick_in_order_up_to_a_limit() -> None:
    due = due_ticks(HOURLY, ZoneInfo("UTC"), DOWN_AT, DOWN_AT + timedelta(hours=3), "all")
    assert due is not None and [t.hour for t in due.start] == [7, 8, 9] and due.missed == 0
    week = due_ticks(HOURLY, ZoneInfo("UTC"), DOWN_AT, DOWN_AT + timedelta(days=7), "all")
    assert week is not None and len(week.start) == MAX_CATCH_UP and week.missed == 7 * 24 - MAX_CATCH_UP
    assert week.start[-1] == week.cursor == datetime(2026, 12, 9, 6, tzinfo=UTC)
    minutely = due_ticks(cron("* * * * *"), ZoneInfo("UTC"), DOWN_AT, DOWN_AT + timedelta(days=7), "none")
    assert minutely is not None and minutely.missed_text == "999+"  # counting stops at 1000 ticks


def test_nothing_is_due_before_the_next_tick() -> None:
    assert due_ticks(HOURLY, ZoneInfo("UTC"), DOWN_AT, DOWN_AT + timedelta(seconds=59), "all") is None


def test_time_zones_are_iana_names_with_a_suggestion() -> None:
    assert zone_named("Europe/Berlin").key == "Europe/Berlin"
    with pytest.raises(ZoneError, match="did you mean 'Europe/Berlin'"):
        zone_named("Europe/Berln")
    with pytest.raises(ZoneError, match="did you mean 'America/New_York'"):
        zone_named("america/new_york")
    with pytest.raises(ZoneError, match="IANA name"):
        zone_named("../../etc/passwd")
    assert local_zone_name({"TZ": "Asia/Tokyo"}) == "Asia/Tokyo"
    assert local_zone_name({"TZ": ":America/New_York"}) == "America/New_York"
