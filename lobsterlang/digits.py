"""Whole numbers in text someone else wrote: ASCII digits only, never a Python `int()` surprise.

`str.isdigit()` is true for `²` and `٣`, and `int()` accepts `٣`, `1_000` and surrounding blanks
but raises on `²`. Every setting, flag, file name or stored field read as a whole number goes
through `whole_number`, which accepts exactly `[0-9]+` and nothing else.
"""

from __future__ import annotations

import re

DIGITS = "[0-9]"
"""The character class for a digit in a regular expression (`\\d` matches every script's digits)."""
_WHOLE = re.compile(r"[0-9]+")


def is_whole(text: str) -> bool:
    """Whether `text` is one or more ASCII digits (no sign, no blanks, no underscores)."""
    return _WHOLE.fullmatch(text) is not None


def whole_number(text: str) -> int | None:
    """The value of `text` when it is one or more ASCII digits, else None."""
    return int(text) if is_whole(text) else None
