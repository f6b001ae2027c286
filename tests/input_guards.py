"""Guards for tests that feed lobster FIFOs, devices and huge files in-process: a regression fails the test instead
of hanging it or exhausting the machine's memory."""

from __future__ import annotations

import os
import resource
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def bounded_memory(extra: int = 1 << 30) -> Iterator[None]:
    """Cap this process's address space at its current size plus `extra` while a case runs."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    with open("/proc/self/statm", encoding="ascii") as statm:
        size = int(statm.read().split()[0]) * resource.getpagesize()
    cap = size + extra if hard == resource.RLIM_INFINITY else min(hard, size + extra)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


@contextmanager
def fifo_released(fifo: Path | None, after: float = 60.0) -> Iterator[None]:
    """If the code under test blocks on `fifo` (the defect), give it a writer every `after` seconds, so that its
    open or read returns (empty), and fail: a hang becomes a failure. Never needed when the fix holds."""
    done, released = threading.Event(), threading.Event()

    def release() -> None:
        while fifo is not None and not done.wait(after):
            released.set()
            os.close(os.open(fifo, os.O_RDWR | os.O_NONBLOCK))

    watchdog = threading.Thread(target=release, daemon=True)
    watchdog.start()
    try:
        yield
    finally:
        done.set()
        watchdog.join()
    assert not released.is_set(), f"blocked on the FIFO {fifo} until the test opened it"
