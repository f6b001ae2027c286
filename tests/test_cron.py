"""Cron expressions: every problem pointed at in the expression with a hint, and the minutes a valid one names."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from lobsterlang.cron import parse_cron
from lobsterlang.report import Report, render_text

BAD = [
    # expression, code, the text the caret is under, words of the message, words of the hint
    ("61 7 * * *", "C002", "61", "minute 61 is out of range 0-59", "0 to 59"),
    ("0 24 * * *", "C002", "24", "hour 24", "midnight is hour 0"),
    ("0 7 * * mon-fir", "C002", "fir", "unknown day name 'fir'", "did you mean `fri`?"),
    ("0 7 * * monday", "C002", "monday", "unknown day name", "`mon`"),
    ("0 7 * jnu *", "C002", "jnu", "unknown month name", "did you mean `jun`?"),
    ("0 7 * * fri-mon", "C002", "fri-mon", "runs backwards", "`fri-sat,sun-mon`"),
    ("*/0 * * * *", "C002", "0", "step '0'", "*/15"),
    ("1,,2 * * * *", "C002", "", "empty item in the minute field", "extra comma"),
    ("x 7 * * *", "C002", "x", "minute must be a number", "0 to 59"),
    ("@daly", "C002", "@daly", "unknown macro @daly", "did you mean `@daily`?"),
    ("@reboot", "C003", "@reboot", "@reboot is not a time", "init system"),
    ("0 0 ? * 1", "C003", "?", "`?`", "write `*`"),
    ("0 0 L * *", "C003", "L", "last day", "list the days"),
    ("0 0 15W * *", "C003", "15W", "nearest weekday", "list the days"),
    ("0 0 * * 5#3", "C003", "#", "nth weekday", "list the days"),
    ("0 0 30 2 *", "C004", "30", "never fires", "February"),
    ("0 0 31 4,6,9,11 *", "C004", "31", "never fires", "30"),
    ("0 7 * *", "C001", "", "expected 5 fields", "missing"),
    ("0 30 7 * * *", "C001", "*", "found 6", "no seconds or years field"),
    ("", "C001", "", "empty cron expression", "five fields"),
]


@pytest.mark.parametrize(("text", "code", "under", "message", "hint"), BAD, ids=[b[0] or "empty" for b in BAD])
def test_a_bad_expression_is_pointed_at_with_a_hint(text: str, code: str, under: str, message: str, hint: str) -> None:
    cron, problems = parse_cron(text)
    assert cron is None
    first = problems[0]
    assert (first.code, text[first.span.start:first.span.end]) == (code, under)
    assert message in first.message and hint in (first.hint or ""), first


def test_every_problem_of_an_expression_is_reported_as_lint_renders_them() -> None:
    _, problems = parse_cron("61 7 * * mon-fir")
    shown = render_text([Report("--cron", "61 7 * * mon-fir", tuple(problems))])
    assert shown.splitlines()[:4] == ["--cron:1:1: C002 minute 61 is out of range 0-59", "   |", " 1 | 61 7 * * mon-fir",
                                      "   | ^^"]
    assert "--cron:1:14: C002 unknown day name 'fir'" in shown and "did you mean `fri`?" in shown


NEXT = [
    ("30 7 * * 1-5", datetime(2026, 12, 4, 8, 0), [datetime(2026, 12, 7, 7, 30), datetime(2026, 12, 8, 7, 30)]),
    ("*/20 9-10 * * *", datetime(2026, 1, 1, 10, 30), [datetime(2026, 1, 1, 10, 40), datetime(2026, 1, 2, 9, 0)]),
    ("5/30 * * * *", datetime(2026, 1, 1, 0, 5), [datetime(2026, 1, 1, 0, 35), datetime(2026, 1, 1, 1, 5)]),
    ("0 0 29 2 *", datetime(2026, 1, 1), [datetime(2028, 2, 29), datetime(2032, 2, 29)]),
    ("@weekly", datetime(2026, 12, 2), [datetime(2026, 12, 6), datetime(2026, 12, 13)]),
    ("0 0 * * 7", datetime(2026, 12, 2), [datetime(2026, 12, 6), datetime(2026, 12, 13)]),
    # both day fields restricted: either matches (the 1st, or a Monday)
    ("0 0 1 * mon", datetime(2026, 12, 2), [datetime(2026, 12, 7), datetime(2026, 12, 14)]),
    # a day field starting with `*` (even `*/2`): both must match, as in Vixie cron and cronie (croniter differs)
    ("0 0 */2 * mon", datetime(2026, 1, 1), [datetime(2026, 1, 5), datetime(2026, 1, 19)]),
]


@pytest.mark.parametrize(("text", "after", "expected"), NEXT, ids=[n[0] for n in NEXT])
def test_the_minutes_an_expression_names(text: str, after: datetime, expected: list[datetime]) -> None:
    cron, problems = parse_cron(text)
    assert cron is not None, problems
    found, moment = [], after
    for _ in expected:
        moment = cron.next_after(moment)  # type: ignore[assignment]
        found.append(moment)
    assert found == expected
    assert cron.at_or_before(expected[-1]) == expected[-1]
    assert cron.at_or_before(expected[-1] - timedelta(minutes=1)) == expected[-2]


def _field(values: list[int], names: tuple[str, ...] = ()) -> st.SearchStrategy[str]:
    low, high = values[0], values[-1]
    number = st.integers(low, high)
    single = number.map(str) | (st.sampled_from(names) if names else number.map(str))
    ranged = st.tuples(number, number).filter(lambda p: p[0] != p[1]).map(lambda p: f"{min(p)}-{max(p)}")
    stepped = st.tuples(ranged | st.just("*"), st.integers(1, high - low + 1)).map(lambda p: f"{p[0]}/{p[1]}")
    item = single | ranged | stepped
    return st.just("*") | st.lists(item, min_size=1, max_size=3).map(",".join)


EXPRESSIONS = st.tuples(_field(list(range(60))), _field(list(range(24))), _field(list(range(1, 29))),
                        _field(list(range(1, 13)), ("jan", "jun", "dec")), _field(list(range(7)), ("mon", "fri", "sun")))


@settings(max_examples=80, deadline=None)
@given(fields=EXPRESSIONS, start=st.datetimes(datetime(2020, 1, 1), datetime(2030, 1, 1)))
def test_next_after_agrees_with_croniter(fields: tuple[str, ...], start: datetime) -> None:
    """croniter (a dependency of DBOS) as an oracle, where the two agree on the rules: a day field is `*` or has no `*`
    (for Vixie cron and cronie only a day field's first character decides whether the two day fields are or-ed)."""
    croniter = pytest.importorskip("croniter").croniter
    assume(all(fields[i] == "*" or "*" not in fields[i] for i in (2, 4)))  # croniter reads a day field's `*` its own way
    text = " ".join(fields)
    cron, problems = parse_cron(text)
    assert cron is not None, problems
    theirs = croniter(text, start)
    moment = start
    for _ in range(5):
        moment = cron.next_after(moment)  # type: ignore[assignment]
        assert moment == theirs.get_next(datetime), text


@settings(max_examples=100, deadline=None)
@given(fields=EXPRESSIONS)
def test_the_portable_form_names_the_same_minutes(fields: tuple[str, ...]) -> None:
    cron, _ = parse_cron(" ".join(fields))
    assert cron is not None
    again, problems = parse_cron(cron.portable())
    assert again is not None, problems
    assert (again.minutes, again.hours, again.days, again.months, again.weekdays, again.day_star, again.weekday_star) == (
        cron.minutes, cron.hours, cron.days, cron.months, cron.weekdays, cron.day_star, cron.weekday_star)
    assert not any(c.isalpha() for c in again.text)
