"""Template filters (`upper`, `truncate 20`, `date YYYY-MM-DD`, …) with the reference's JavaScript semantics."""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable
from datetime import datetime, timezone
from decimal import ROUND_HALF_UP, Context, Decimal
from typing import Any

from lobsterlang.interpret.errors import CommandError
from lobsterlang.interpret.values import (
    UNDEFINED,
    is_number,
    js_string,
    stringify,
    to_number,
    utf16_length,
    utf16_prefix,
)

Filter = Callable[[Any, list[str]], Any]
_INT = re.compile(r"[+-]?[0-9]+")
_JS_SPACE = "\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
_DIGITS = re.compile(f"[{_JS_SPACE}]*([0-9]+)[{_JS_SPACE}]*")
"""Epoch milliseconds written as a string: ASCII digits, with the whitespace JavaScript's `\\s` trims around them."""


def parse_filter(expression: str) -> tuple[str, list[str]]:
    """`name arg "quoted arg"` → name and args (`\\x` gives `x` inside quotes)."""
    words: list[str] = []
    current: list[str] | None = None
    quote, escaped = "", False
    for char in expression:
        if quote:
            if escaped:
                current.append(char)  # type: ignore[union-attr]
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == quote:
                quote = ""
            else:
                current.append(char)  # type: ignore[union-attr]
        elif char in "\"'":
            quote, current = char, current if current is not None else []
        elif char.isspace():
            if current is not None:
                words.append("".join(current))
            current = None
        else:
            current = [] if current is None else current
            current.append(char)
    if current is not None:
        words.append("".join(current))
    return (words[0] if words else ""), words[1:]


def compile_filter(expression: str) -> Callable[[Any], Any]:
    """The filter `expression` parsed once, as a function of the value; an unknown name fails when applied."""
    name, args = parse_filter(expression)
    unary = _UNARY.get(name)
    if unary is not None:
        return unary
    handler = FILTERS.get(name)
    if handler is None:
        return functools.partial(_unknown_filter, name)
    return functools.partial(_apply, handler, args)


def _apply(handler: Filter, args: list[str], value: Any) -> Any:
    return handler(value, args)


def _unknown_filter(name: str, value: Any) -> Any:
    raise CommandError(f"Unknown template filter: {name}")


def _text(value: Any) -> str:
    if type(value) is str:
        return value
    return "" if value is None or value is UNDEFINED else js_string(value)


def _arg(args: list[str], default: str) -> str:
    return args[0] if args else default


def _int_arg(args: list[str], default: int) -> int:
    return int(args[0]) if args and _INT.fullmatch(args[0]) else default


def _truncate(value: Any, args: list[str]) -> str:
    """The first `limit` UTF-16 code units and `...`, as JavaScript's `slice` counts (an emoji is two)."""
    text, limit = _text(value), _int_arg(args, 80)
    return utf16_prefix(text, limit) + "..." if utf16_length(text) > limit else text


def _replace(value: Any, args: list[str]) -> str:
    return _text(value).replace(_arg(args, ""), args[1] if len(args) > 1 else "") if args and args[0] else _text(value)


def _first(value: Any, args: list[str]) -> Any:
    return (value[0] if value else UNDEFINED) if isinstance(value, list) else value


def _last(value: Any, args: list[str]) -> Any:
    return (value[-1] if value else UNDEFINED) if isinstance(value, list) else value


def _length(value: Any, args: list[str]) -> int:
    return len(value) if isinstance(value, list) else utf16_length(value) if isinstance(value, str) else 0


def _join(value: Any, args: list[str]) -> str:
    if not isinstance(value, list):
        return _text(value)
    return _arg(args, ", ").join("" if v is None or v is UNDEFINED else js_string(v) for v in value)


def _default(value: Any, args: list[str]) -> Any:
    return _arg(args, "") if value is None or value is UNDEFINED or value == "" else value


def _round(value: Any, args: list[str]) -> Any:
    """`Number(value.toFixed(digits))`: the exact value rounded half away from zero, as `toFixed` rounds."""
    number = to_number(value)
    if math.isnan(number):
        return value
    digits = _fixed_digits(args)
    if math.isinf(number) or abs(number) >= 1e21:  # toFixed writes these as String(number)
        return number
    exact = Decimal(abs(number)).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP, context=_EXACT)
    return math.copysign(float(exact), number)


_EXACT = Context(prec=200)
"""Enough digits for any double below 1e21 with up to 100 decimals."""


_PARSE_INT = re.compile(f"[{_JS_SPACE}]*([+-]?[0-9]+)")


def _fixed_digits(args: list[str]) -> int:
    """`toFixed`'s digits from the filter's argument as the reference reads it, `parseInt(arg)` (no number: 0);
    toFixed takes only 0 to 100."""
    found = _PARSE_INT.match(args[0]) if args else None
    digits = int(found[1]) if found else 0
    if not 0 <= digits <= 100:
        raise CommandError("toFixed() digits argument must be between 0 and 100")
    return digits


def _date(value: Any, args: list[str]) -> str:
    moment = _to_date(value)
    if moment is None:
        return js_string(value)
    if not args:
        return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")
    text = args[0]
    for token, fmt in (("YYYY", "%Y"), ("MM", "%m"), ("DD", "%d"), ("HH", "%H"), ("mm", "%M"), ("ss", "%S")):
        text = text.replace(token, moment.strftime(fmt), 1)
    return text


def _to_date(value: Any) -> datetime | None:
    try:
        if is_number(value):
            return datetime.fromtimestamp(float(value) / 1000, timezone.utc)
        digits = _DIGITS.fullmatch(value) if isinstance(value, str) else None
        if digits:
            return datetime.fromtimestamp(int(digits[1]) / 1000, timezone.utc)
        text = js_string(value).strip().replace("Z", "+00:00")
        moment = datetime.fromisoformat(text)
    except (ValueError, OverflowError, OSError):
        return None
    return moment.replace(tzinfo=timezone.utc) if moment.tzinfo is None else moment.astimezone(timezone.utc)


FILTERS: dict[str, Filter] = {
    "upper": lambda v, a: _text(v).upper(),
    "lower": lambda v, a: _text(v).lower(),
    "trim": lambda v, a: _text(v).strip(),
    "truncate": _truncate,
    "replace": _replace,
    "split": lambda v, a: _text(v).split(_arg(a, ",")) if _arg(a, ",") else list(_text(v)),
    "first": _first,
    "last": _last,
    "length": _length,
    "join": _join,
    "json": lambda v, a: UNDEFINED if v is UNDEFINED else stringify(v, 2),
    "string": lambda v, a: _text(v),
    "default": _default,
    "round": _round,
    "date": _date,
}

_UNARY: dict[str, Callable[[Any], Any]] = {
    "upper": lambda v: (v if type(v) is str else _text(v)).upper(),
    "lower": lambda v: (v if type(v) is str else _text(v)).lower(),
    "trim": lambda v: (v if type(v) is str else _text(v)).strip(),
    "string": _text,
}
"""Filters that take no arguments (any given are ignored, as FILTERS' handlers ignore them), called directly."""
