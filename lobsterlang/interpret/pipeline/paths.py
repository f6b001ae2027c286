"""Dot paths (`a.b.0`) into items, as the reference's commands resolve them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

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
    if "." in path:
        segments = path.split(".")

        def dotted(value: Any) -> Any:
            for segment in segments:
                value = get_key(value, segment)
                if value is UNDEFINED:
                    return UNDEFINED
            return value

        return dotted

    def single(value: Any) -> Any:
        if type(value) is dict:
            return value.get(path, UNDEFINED)
        return get_key(value, path)

    return single


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
    if key.isdigit() and (key == "0" or not key.startswith("0")) and int(key) < len(items):
        return items[int(key)]
    return UNDEFINED
