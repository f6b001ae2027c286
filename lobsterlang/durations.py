"""Durations such as `90s`, `15m`, `1h30m`, `7d` or a number of seconds (approval expiry)."""

from __future__ import annotations

import re
from typing import Any

from lobsterlang.digits import whole_number

_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
_PART = re.compile(r"([0-9]+)([smhdw])")
_WHOLE = re.compile(r"(?:[0-9]+[smhdw])+")
MAX_SECONDS = 10 * 366 * 86400
"""Ten years: longer values are refused rather than silently meaning 'forever'."""

HINT = "write a whole number of seconds or a duration such as `90s`, `15m`, `1h30m`, `7d` (at most 10 years)"


def parse_duration(value: Any) -> int | None:
    """Seconds (1 … MAX_SECONDS) for an int or a duration string; None when `value` is not one."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        seconds = value
    elif isinstance(value, str):
        text = value.strip().lower()
        number = whole_number(text)
        if number is not None:
            seconds = number
        elif _WHOLE.fullmatch(text):
            seconds = sum(int(n) * _UNITS[unit] for n, unit in _PART.findall(text))
        else:
            return None
    else:
        return None
    return seconds if 0 < seconds <= MAX_SECONDS else None
