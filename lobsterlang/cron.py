"""Cron expressions as crontab(5) writes them, parsed with a span on every problem, and the wall-clock minutes they name.

Five fields: minute (0-59), hour (0-23), day of month (1-31), month (1-12 or jan-dec), day of
week (0-7 or sun-sat, 0 and 7 both Sunday). A field is `*` or a comma-separated list of values,
ranges `a-b` and steps (`*/15`, `9-17/2`, `5/15` = `5-59/15`); the macros `@hourly`, `@daily`
(`@midnight`), `@weekly`, `@monthly` and `@yearly` (`@annually`) stand for the usual five fields.
As in Vixie cron, when both day fields are restricted (neither starts with `*`) a day matches
when either does. This is the subset that cron, systemd timers and the workers all read the same
way; the extensions of some crons (seconds, years, `L`, `W`, `#`, `?`) are refused with a hint.

Times here are naive wall-clock minutes; `lobsterlang.interpret.schedule.timing` places them in
a time zone.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from datetime import datetime, timedelta

from lobsterlang.diagnostics import Diagnostic, Severity
from lobsterlang.span import Span
from lobsterlang.suggest import closest

MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
DAYS = ("sun", "mon", "tue", "wed", "thu", "fri", "sat")
_FULL_NAMES = {full: full[:3] for full in (
    "january", "february", "march", "april", "june", "july", "august", "september", "october", "november", "december",
    "sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday")}
MACROS = {"@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *", "@monthly": "0 0 1 * *", "@weekly": "0 0 * * 0",
          "@daily": "0 0 * * *", "@midnight": "0 0 * * *", "@hourly": "0 * * * *"}
EXAMPLE = "`30 7 * * 1-5` (07:30 on weekdays)"
SHAPE = "minute hour day-of-month month day-of-week"
SEARCH_YEARS = 28
"""The Gregorian weekdays repeat every 28 years (between 1901 and 2099): an expression that names no minute
in 28 years names none at all."""
_LAST_OR_WEEKDAY = re.compile(r"\d*L|\d+W|LW")
_ITEM = re.compile(r"(?P<start>[^-/]*)(?:-(?P<end>[^/]*))?(?:/(?P<step>.*))?\Z")


@dataclass(frozen=True)
class Field:
    """One of the five fields: its name, its range and (month, day of week) its names."""

    name: str
    low: int
    high: int
    names: tuple[str, ...] = ()
    name_base: int = 0


FIELDS = (Field("minute", 0, 59), Field("hour", 0, 23), Field("day-of-month", 1, 31),
          Field("month", 1, 12, MONTHS, 1), Field("day-of-week", 0, 7, DAYS, 0))


@dataclass(frozen=True)
class Item:
    """One comma-separated item of a field: the values first, first+step, … up to last; `star`: written `*`."""

    first: int
    last: int
    step: int
    star: bool


@dataclass(frozen=True)
class Cron:
    """A parsed expression: the values each field allows, and whether each day field starts with `*`."""

    text: str
    minutes: tuple[int, ...]
    hours: tuple[int, ...]
    days: frozenset[int]
    months: frozenset[int]
    weekdays: frozenset[int]
    """0 = Sunday … 6 = Saturday (a 7 in the expression is 0)."""
    day_star: bool
    weekday_star: bool
    fields: tuple[tuple[Item, ...], ...]
    """Each field's items, for writing the expression back in portable form."""

    def day_matches(self, when: datetime) -> bool:
        """Whether the date of `when` is a day the expression fires (Vixie's rule for the two day fields)."""
        in_month = when.day in self.days
        in_week = when.isoweekday() % 7 in self.weekdays
        if self.day_star or self.weekday_star:
            return in_month and in_week
        return in_month or in_week

    def next_after(self, when: datetime) -> datetime | None:
        """The first matching minute strictly after the naive time `when` (None: none within 28 years)."""
        t = when.replace(second=0, microsecond=0) + timedelta(minutes=1)
        limit = t.year + SEARCH_YEARS
        while t.year <= limit:
            if t.month not in self.months:
                t = _first_of_next_month(t)
            elif not self.day_matches(t):
                t = (t + timedelta(days=1)).replace(hour=0, minute=0)
            elif t.hour not in self.hours:
                t = t.replace(minute=0) + timedelta(hours=1)
            else:
                index = bisect.bisect_left(self.minutes, t.minute)
                if index < len(self.minutes):
                    return t.replace(minute=self.minutes[index])
                t = t.replace(minute=0) + timedelta(hours=1)
        return None

    def at_or_before(self, when: datetime) -> datetime | None:
        """The last matching minute at or before the naive time `when` (None: none within 28 years)."""
        t = when.replace(second=0, microsecond=0)
        limit = t.year - SEARCH_YEARS
        while t.year >= limit:
            if t.month not in self.months:
                t = t.replace(day=1, hour=0, minute=0) - timedelta(minutes=1)
            elif not self.day_matches(t):
                t = t.replace(hour=0, minute=0) - timedelta(minutes=1)
            elif t.hour not in self.hours:
                t = t.replace(minute=0) - timedelta(minutes=1)
            else:
                index = bisect.bisect_right(self.minutes, t.minute)
                if index:
                    return t.replace(minute=self.minutes[index - 1])
                t = t.replace(minute=0) - timedelta(minutes=1)
        return None

    def portable(self) -> str:
        """The expression as every cron reads it: numbers only, `a/n` written `a-max/n`, macros kept."""
        if self.text.strip().startswith("@"):
            return self.text.strip()
        return " ".join(",".join(_item_text(item, spec) for item in items) for items, spec in zip(self.fields, FIELDS, strict=True))


def _first_of_next_month(t: datetime) -> datetime:
    year, month = (t.year + 1, 1) if t.month == 12 else (t.year, t.month + 1)
    return t.replace(year=year, month=month, day=1, hour=0, minute=0)


def _item_text(item: Item, spec: Field) -> str:
    if item.star:
        text = "*"
    elif item.first == item.last:
        text = str(item.first)
    else:
        text = f"{item.first}-{item.last}"
    return text if item.step == 1 else f"{text}/{item.step}"


def parse_cron(text: str) -> tuple[Cron | None, list[Diagnostic]]:
    """The expression, or None and the problems (each pointing into `text`, with a hint)."""
    problems: list[Diagnostic] = []
    words = [(m.group(), m.start()) for m in re.finditer(r"\S+", text)]
    if len(words) == 1 and words[0][0].startswith("@"):
        return _macro(text, words[0][0], words[0][1])
    if len(words) != len(FIELDS):
        return None, [_shape_problem(text, words)]
    parsed = [_field(word, start, spec, text, problems) for (word, start), spec in zip(words, FIELDS, strict=True)]
    if problems:
        return None, problems
    cron = _build(text, parsed, [word for word, _ in words])
    if cron.next_after(datetime(2000, 1, 1)) is None:
        return None, [_never(text, words)]
    return cron, []


def _build(text: str, parsed: list[tuple[Item, ...]], words: list[str]) -> Cron:
    values = [sorted({v for item in items for v in range(item.first, item.last + 1, item.step)}) for items in parsed]
    weekdays = frozenset(v % 7 for v in values[4])
    return Cron(text, tuple(values[0]), tuple(values[1]), frozenset(values[2]), frozenset(values[3]), weekdays,
                words[2].startswith("*"), words[4].startswith("*"), tuple(parsed))


def _macro(text: str, word: str, start: int) -> tuple[Cron | None, list[Diagnostic]]:
    expansion = MACROS.get(word.lower())
    if expansion is not None:
        cron, _ = parse_cron(expansion)
        assert cron is not None
        return Cron(text, cron.minutes, cron.hours, cron.days, cron.months, cron.weekdays, cron.day_star,
                    cron.weekday_star, cron.fields), []
    if word.lower() == "@reboot":
        hint = "a schedule names times; to run at boot, use your init system (a systemd service), not a schedule"
        return None, [_problem(text, start, start + len(word), "C003", "@reboot is not a time", hint)]
    near = closest(word.lower(), MACROS)
    hint = f"did you mean `{near}`?" if near else f"use one of {', '.join(f'`{m}`' for m in MACROS)}, or five fields ({SHAPE})"
    return None, [_problem(text, start, start + len(word), "C002", f"unknown macro {word}", hint)]


def _shape_problem(text: str, words: list[tuple[str, int]]) -> Diagnostic:
    if not words:
        return _problem(text, 0, len(text), "C001", "empty cron expression", f"write five fields ({SHAPE}), e.g. {EXAMPLE}")
    found = f"expected 5 fields ({SHAPE}), found {len(words)}"
    if len(words) < len(FIELDS):
        end = words[-1][1] + len(words[-1][0])
        return _problem(text, end, end, "C001", found, f"add the missing field(s), e.g. {EXAMPLE}")
    extra = words[len(FIELDS)]
    hint = ("cron has no seconds or years field: lobster schedules fire at most once a minute; "
            f"drop the extra field, e.g. {EXAMPLE}")
    return _problem(text, extra[1], words[-1][1] + len(words[-1][0]), "C001", found, hint)


def _never(text: str, words: list[tuple[str, int]]) -> Diagnostic:
    word, start = words[2]
    hint = "no month in the month field has that day (February has 29 days at most, April, June, September and November 30)"
    return _problem(text, start, start + len(word), "C004", "this expression never fires", hint)


def _field(word: str, start: int, spec: Field, text: str, problems: list[Diagnostic]) -> tuple[Item, ...]:
    items: list[Item] = []
    offset = start
    for part in word.split(","):
        item = _item(part, offset, spec, text, problems)
        if item is not None:
            items.append(item)
        offset += len(part) + 1
    return tuple(items)


def _item(part: str, offset: int, spec: Field, text: str, problems: list[Diagnostic]) -> Item | None:
    """One comma-separated item; None after recording its problem."""
    unsupported = _unsupported(part, offset, spec, text)
    if unsupported is not None:
        problems.append(unsupported)
        return None
    match = _ITEM.match(part)
    assert match is not None  # every string matches: the groups only split at `-` and `/`
    head, tail = match.group("start"), match.group("end")
    before = len(problems)
    first: int | None
    last: int | None
    if head == "*" and tail is None:
        first, last = spec.low, spec.high
    else:
        first = _value(head, offset, spec, text, problems)
        last = _value(tail, offset + match.start("end"), spec, text, problems) if tail is not None else None
    step = _step(match.group("step"), offset + match.start("step"), text, problems) if match.group("step") is not None else 1
    if len(problems) > before or first is None:
        return None
    if last is None:
        last = first if match.group("step") is None else spec.high
    if last < first:
        problems.append(_backwards(part, offset, first, last, spec, text))
        return None
    return Item(first, last, step, head == "*")


def _unsupported(part: str, offset: int, spec: Field, text: str) -> Diagnostic | None:
    for mark, meaning, hint in (("?", "`?` (Quartz: no specific value)", "write `*`"),
                                ("#", "`#` (the nth weekday of the month)", "list the days instead")):
        at = part.find(mark)
        if at >= 0:
            return _problem(text, offset + at, offset + at + 1, "C003", f"{meaning} is not part of crontab(5)", hint)
    if part == "":
        return _problem(text, offset, offset, "C002", f"empty item in the {spec.name} field", "remove the extra comma")
    return None


def _value(word: str, offset: int, spec: Field, text: str, problems: list[Diagnostic]) -> int | None:
    end = offset + len(word)
    if word.isascii() and word.isdigit():
        value = int(word)
        if spec.low <= value <= spec.high:
            return value
        problems.append(_problem(text, offset, end, "C002", f"{spec.name} {value} is out of range {spec.low}-{spec.high}",
                                 _range_hint(spec, value)))
        return None
    if spec.names and word.lower() in spec.names:
        return spec.names.index(word.lower()) + spec.name_base
    if _LAST_OR_WEEKDAY.fullmatch(word):
        problems.append(_problem(text, offset, end, "C003", f"{word!r} (a last day or nearest weekday) is not part of crontab(5)",
                                 "not every cron has `L` and `W`: list the days instead"))
    else:
        problems.append(_problem(text, offset, end, "C002", _not_a_value(word, spec), _name_hint(word, spec)))
    return None


def _not_a_value(word: str, spec: Field) -> str:
    if not word:
        return f"missing value in the {spec.name} field"
    if word == "*":
        return f"`*` cannot start or end a range in the {spec.name} field"
    kind = "month" if spec.name == "month" else "day"
    return f"unknown {kind} name {word!r}" if spec.names else f"{spec.name} must be a number, not {word!r}"


def _name_hint(word: str, spec: Field) -> str:
    if word == "*":
        return f"write `*` alone, or a range of values such as {spec.low}-{spec.low + 5}"
    if not spec.names:
        return f"write a number from {spec.low} to {spec.high}"
    short = _FULL_NAMES.get(word.lower())
    if short in spec.names:
        return f"write the first three letters: `{short}`"
    near = closest(word.lower(), (*spec.names, *(f for f, s in _FULL_NAMES.items() if s in spec.names)))
    if near is not None:
        return f"did you mean `{_FULL_NAMES.get(near, near)}`?"
    return f"write a number from {spec.low} to {spec.high} or one of {', '.join(spec.names)}"


def _range_hint(spec: Field, value: int) -> str:
    if spec.name == "hour" and value == 24:
        return "midnight is hour 0"
    if spec.name == "day-of-week":
        return "0 and 7 are Sunday, 1 Monday … 6 Saturday (or write mon-fri)"
    if spec.name == "month" and value == 0:
        return "months count from 1 (January) to 12 (December)"
    return f"write a value from {spec.low} to {spec.high}"


def _step(word: str, offset: int, text: str, problems: list[Diagnostic]) -> int:
    if word.isascii() and word.isdigit() and int(word) > 0:
        return int(word)
    problems.append(_problem(text, offset, offset + len(word), "C002", f"step {word!r} is not a whole number of at least 1",
                             "write `*/15` for every 15th value"))
    return 1


def _backwards(part: str, offset: int, first: int, last: int, spec: Field, text: str) -> Diagnostic:
    top = spec.high if spec.name != "day-of-week" else 6

    def shown(value: int) -> str:
        return spec.names[value - spec.name_base] if spec.names and not part[:1].isdigit() else str(value)

    split = f"{shown(first)}-{shown(top)},{shown(spec.low)}-{shown(last)}"
    return _problem(text, offset, offset + len(part), "C002", f"the range {part} runs backwards",
                    f"a cron range does not wrap around: write `{split}`")


def _problem(text: str, start: int, end: int, code: str, message: str, hint: str) -> Diagnostic:
    return Diagnostic(code, Severity.ERROR, message, Span(start, end, 1, start + 1, 1, end + 1), hint=hint)
