"""A run's lifetime: signals cancel it (exit 128+signal), orphans stay its own, nothing it started outlives it."""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType

from lobsterlang.interpret.errors import Cancelled
from lobsterlang.interpret.process import Cancellation
from lobsterlang.interpret.reaper import become_subreaper

HANDLED = {signal.SIGINT: 130, signal.SIGTERM: 143, signal.SIGHUP: 129, signal.SIGQUIT: 131}


@contextlib.contextmanager
def cancel_on_signals(cancel: Cancellation) -> Iterator[None]:
    """While active, a signal cancels `cancel` (killing child trees) and raises `Cancelled`.

    The process becomes a child subreaper first (steps that detach with `setsid` stay its
    descendants), and on the way out every process the run started and left running is killed.
    """
    become_subreaper()
    try:
        if threading.current_thread() is not threading.main_thread():
            yield
        else:
            with _handled(cancel):
                yield
    finally:
        cancel.sweep()


@contextlib.contextmanager
def _handled(cancel: Cancellation) -> Iterator[None]:

    def handle(signum: int, frame: FrameType | None) -> None:
        name = signal.Signals(signum).name
        already = cancel.cancelled
        cancel.cancel(f"Received {name}", HANDLED[signal.Signals(signum)])
        if not already:
            raise Cancelled(f"Received {name}", HANDLED[signal.Signals(signum)])

    previous = {sig: signal.signal(sig, handle) for sig in HANDLED}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
