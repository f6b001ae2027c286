"""The item buffers of a lone CLI pipeline run: left to the process's exit instead of freed object by object.

`sort` and `groupBy` hold every item they were given until the stages after them are done. Freeing
half a million parsed items one object at a time costs about 0.1 s of CPU; when the `lobster`
process ends right after the run, the kernel takes its memory back at once. So the CLI, for a
pipeline run alone (never a workflow run, whose later steps need the memory; a workflow's dry run
keeps its IR once the plan is written), keeps those buffers and then ends the process with
`os._exit` once stdout and stderr are flushed: the exit code is the one the run returned. It exits
the usual way, freeing the buffers first, when a flush fails, when another thread runs or when an
exit handler is registered (those must run as they always do).

Everyone else (the workflow engine, tests, library callers) frees buffers as the run goes.
"""

from __future__ import annotations

import atexit
import os
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

_kept: list[list[Any]] | None = None
"""The buffers kept for the process's exit, while a lone CLI pipeline runs; None: free them at once."""


def let_go(*buffers: list[Any]) -> None:
    """Free each buffer's items, in the order given (a list lets go from its end), or keep the buffers for the exit."""
    if _kept is not None:
        _kept.extend(buffers)
        return
    for buffer in buffers:
        buffer.clear()


@contextmanager
def ending_the_process() -> Iterator[Callable[[int], int]]:
    """Keep buffers for the exit during the block; the block passes its exit code to the function it gets,
    which ends the process there if buffers were kept (else returns the code). Kept buffers are freed
    if the block ends any other way."""
    global _kept
    kept: list[list[Any]] = []
    _kept = kept

    def finish(code: int) -> int:
        if kept:
            exit_at_once(code)
        return code

    try:
        yield finish
    finally:
        _kept = None
        for buffer in kept:
            buffer.clear()


def exit_at_once(code: int) -> None:
    """End the process with `code` after flushing stdout and stderr, without tearing the heap down.

    Returns instead (the caller then exits the usual way) when a flush fails, so the exit code of a
    broken pipe stays Python's, when another thread still runs, or when an exit handler is registered.
    """
    if threading.active_count() > 1 or atexit._ncallbacks():
        return
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except (OSError, ValueError):
        return
    os._exit(code)
