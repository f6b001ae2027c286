"""SIGINT/SIGTERM/SIGHUP/SIGQUIT during a run: cancel it, kill its children, exit 128+signal."""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType

from lobsterlang.interpret.errors import Cancelled
from lobsterlang.interpret.process import Cancellation

HANDLED = {signal.SIGINT: 130, signal.SIGTERM: 143, signal.SIGHUP: 129, signal.SIGQUIT: 131}


@contextlib.contextmanager
def cancel_on_signals(cancel: Cancellation) -> Iterator[None]:
    """While active, a signal cancels `cancel` (killing child trees) and raises `Cancelled`."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

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
