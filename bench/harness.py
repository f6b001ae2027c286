"""Shared benchmark helpers: the `lobster` command to time, pinning to one CPU, best-of-N timing."""

from __future__ import annotations

import gc
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
    times = []
    for _ in range(passes):
        gc.collect()
        begin = time.perf_counter()
        work()
        times.append(time.perf_counter() - begin)
    return min(times)
