"""`JSON.parse` as the reference applies it to step output: trimmed, numbers as JavaScript reads them."""

from __future__ import annotations

import json
from typing import Any

from lobsterlang.interpret.values import UNDEFINED
from lobsterlang.syntax.text import js_trim_range

MAX_SAFE = 2**53


def _no_constant(name: str) -> Any:
    raise ValueError(f"Unexpected token {name}")


def _js_int(text: str) -> int | float:
    value = int(text)
    return value if abs(value) < MAX_SAFE else float(value)


def parse(text: str) -> Any:
    """`JSON.parse(text)`; ValueError where JavaScript throws (NaN and Infinity are not JSON)."""
    return json.loads(text, parse_constant=_no_constant, parse_int=_js_int)


def try_parse(text: str) -> Any:
    """`JSON.parse(text.trim())`, or UNDEFINED when the text is empty or not JSON."""
    lo, hi = js_trim_range(text)
    if lo >= hi or text[lo] not in '{["-0123456789tfn':
        return UNDEFINED
    try:
        return parse(text[lo:hi])
    except (ValueError, RecursionError):
        return UNDEFINED
