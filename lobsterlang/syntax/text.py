"""JavaScript whitespace rules, which the reference applies when it trims strings."""

from __future__ import annotations

JS_WHITESPACE = frozenset(
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)
"""The characters `String.prototype.trim` removes."""


def js_trim_range(text: str, start: int = 0, end: int | None = None) -> tuple[int, int]:
    """The bounds of `text[start:end]` after a JavaScript `trim()`."""
    end = len(text) if end is None else end
    while start < end and text[start] in JS_WHITESPACE:
        start += 1
    while end > start and text[end - 1] in JS_WHITESPACE:
        end -= 1
    return start, end


def is_blank(text: str) -> bool:
    lo, hi = js_trim_range(text)
    return lo >= hi
