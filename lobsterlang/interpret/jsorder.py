"""JavaScript's order of object keys: integer-like keys ("array indices") first, ascending, then the others as inserted."""

from __future__ import annotations

import re
from typing import Any

MAX_INDEX = 2**32 - 2
"""The largest array index: a canonical integer string up to this value sorts before the other keys."""
_INDEX_KEY = re.compile(r'"(?:0|[1-9][0-9]{0,9})":')
"""A JSON key that may be an array index (most output has none: one search, then nothing more to do)."""


def is_index(key: str) -> bool:
    """Whether JavaScript orders `key` as an array index: `0`, or digits without a leading zero up to MAX_INDEX."""
    return key.isascii() and key.isdigit() and (key == "0" or key[0] != "0") and int(key) <= MAX_INDEX


def may_reorder(json_text: str) -> bool:
    """Whether JSON text may hold an object whose keys JavaScript would order differently."""
    return _INDEX_KEY.search(json_text) is not None


def js_keys(obj: dict[str, Any]) -> list[str]:
    """`Object.keys(obj)`: the array-index keys ascending, then the others as inserted."""
    indexes = sorted((key for key in obj if is_index(str(key))), key=lambda key: int(key))
    if not indexes:
        return list(obj)
    chosen = set(indexes)
    return indexes + [key for key in obj if key not in chosen]


def js_ordered(value: Any) -> Any:
    """`value` with every object's keys in JavaScript's order (lists and scalars as they are)."""
    if isinstance(value, dict):
        return {key: js_ordered(value[key]) for key in js_keys(value)}
    if isinstance(value, list):
        return [js_ordered(item) for item in value]
    return value
