"""Helpers for lazy item streams: closing upstream generators when a stage stops early."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any


def close(items: Iterable[Any]) -> None:
    """Close a generator (running its `finally` blocks, which stop child processes)."""
    closer = getattr(items, "close", None)
    if callable(closer):
        closer()


def guarded(upstream: Iterator[Any], produced: Iterator[Any]) -> Iterator[Any]:
    """Yield `produced`; however it ends, close `upstream` too."""
    try:
        yield from produced
    finally:
        close(upstream)


def drain(items: Iterator[Any]) -> list[Any]:
    """Collect every item (eager commands do this with their input)."""
    return list(items)
