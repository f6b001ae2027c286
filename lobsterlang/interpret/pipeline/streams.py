"""Helpers for lazy item streams: closing upstream generators when a stage stops early."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from lobsterlang.interpret.pipeline.teardown import let_go


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


def mapped(upstream: Iterator[Any], function: Callable[[Any], Any]) -> Iterator[Any]:
    """Each item of `upstream` through `function`; however it ends, close `upstream` (as `guarded(upstream,
    map(function, upstream))` would, with one generator fewer for every item to pass through)."""
    try:
        for item in upstream:
            yield function(item)
    finally:
        item = None  # let go of the last item before the stages above free theirs (in arrival order)
        close(upstream)


def freed_in_arrival_order(output: list[Any], arrived: list[Any]) -> Iterator[Any]:
    """Yield `output`; once done, drop it before `arrived` (the same items, in the order they came).

    An item is freed when its last reference goes. Dropped from a sorted or grouped list, a million
    items are freed in random memory order, five to ten times slower than in the order they were made.
    A lone CLI pipeline run leaves both lists to the process's exit instead (`teardown.py`).
    """
    try:
        yield from output
    finally:
        let_go(output, arrived)


def drain(items: Iterator[Any]) -> list[Any]:
    """Collect every item (eager commands do this with their input)."""
    return list(items)
