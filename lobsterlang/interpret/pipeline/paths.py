"""Dot paths (`a.b.0`) into items, as the reference's commands resolve them.

Two readings, as in the reference: `where` and `pick` follow every segment through objects and arrays
(`path_getter`); `sort`, `dedupe`, `groupBy`, `template` and `map` skip empty segments (`a..b` is `a.b`,
and `.` the item itself) and read strings too, as JavaScript does (`name.0`, `name.length`): `item_getter`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lobsterlang.digits import is_whole
from lobsterlang.interpret.values import UNDEFINED

Getter = Callable[[Any], Any]


def get_path(value: Any, path: str) -> Any:
    """Follow `path`; a step through anything but an object or list gives `UNDEFINED`."""
    current = value
    for segment in path.split("."):
        current = get_key(current, segment)
        if current is UNDEFINED:
            return UNDEFINED
    return current


def path_getter(path: str) -> Getter:
    """`get_path` for a fixed path, prepared once (a single key is the common, fast case)."""
    return _getter(path.split("."), get_key)


def item_getter(path: str) -> Getter:
    """The value at `path` as `sort`, `dedupe`, `groupBy`, `template` and `map` read it (see the module's doc)."""
    segments = [segment for segment in path.split(".") if segment]
    return _getter(segments, read_key) if segments else _itself


def _getter(segments: list[str], read: Callable[[Any, str], Any]) -> Getter:
    """A function that follows `segments` with `read` (an object's key straight from the dict)."""
    if len(segments) > 1:

        def dotted(value: Any) -> Any:
            for segment in segments:
                value = read(value, segment)
                if value is UNDEFINED:
                    return UNDEFINED
            return value

        return dotted
    key = segments[0]

    def single(value: Any) -> Any:
        return value.get(key, UNDEFINED) if type(value) is dict else read(value, key)

    return single


def read_key(value: Any, key: str) -> Any:
    """`value[key]` as JavaScript reads JSON data: `get_key`, and a string's UTF-16 units and `length`."""
    return _string_key(value, key) if isinstance(value, str) else get_key(value, key)


def _itself(value: Any) -> Any:
    return value


def _string_key(text: str, key: str) -> Any:
    """`text[key]` in JavaScript: one UTF-16 code unit (half of a pair for characters beyond U+FFFF), or `length`."""
    if text.isascii():
        count, units = len(text), b""
    else:
        units = text.encode("utf-16-le", "surrogatepass")
        count = len(units) // 2
    if key == "length":
        return count
    if not is_whole(key) or (key != "0" and key.startswith("0")) or int(key) >= count:
        return UNDEFINED
    at = int(key)
    return text[at] if not units else units[2 * at : 2 * at + 2].decode("utf-16-le", "surrogatepass")


def get_key(value: Any, key: str) -> Any:
    """`value[key]` for a dict or list (numeric keys index lists), else `UNDEFINED`."""
    if isinstance(value, dict):
        return value.get(key, UNDEFINED)
    if isinstance(value, list):
        return _list_key(value, key)
    return UNDEFINED


def _list_key(items: list[Any], key: str) -> Any:
    if key == "length":
        return len(items)
    if is_whole(key) and (key == "0" or not key.startswith("0")) and int(key) < len(items):
        return items[int(key)]
    return UNDEFINED
