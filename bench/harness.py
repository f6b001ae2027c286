"""Shared benchmark helpers: the `lobster` command to time, pinning to one CPU, best-of-N timing."""

from __future__ import annotations

import gc
import math
import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path


def lobster_command() -> list[str]:
    """The console script next to this Python, else `python -m lobsterlang`."""
    script = Path(sys.executable).parent / "lobster"
    return [str(script)] if script.exists() else [sys.executable, "-m", "lobsterlang"]


def build_kind() -> str:
    """Which lobsterlang is being timed: the pure-Python one or a mypyc-compiled wheel."""
    from lobsterlang import compiled

    return "mypyc-compiled" if compiled() else "pure Python"


@contextmanager
def one_core() -> Iterator[None]:
    """Pin this process to one CPU while timing, where the OS allows it."""
    if not hasattr(os, "sched_setaffinity"):
        yield
        return
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(before)})
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)


def best_of(passes: int, work: Callable[[], object]) -> float:
    """The fastest of `passes` timed calls, in seconds (garbage collected before each)."""
    return best_of_each(passes, {"work": work})["work"]


def best_of_each(passes: int, works: dict[str, Callable[[], object]]) -> dict[str, float]:
    """`best_of` for several works that take turns within each pass.

    Interleaved, a slow spell of a shared machine hits every work alike, so the ratios
    between them hold better than when each work's passes run back to back.
    """
    best = dict.fromkeys(works, math.inf)
    for _ in range(passes):
        for name, work in works.items():
            gc.collect()
            begin = time.perf_counter()
            work()
            best[name] = min(best[name], time.perf_counter() - begin)
    return best
