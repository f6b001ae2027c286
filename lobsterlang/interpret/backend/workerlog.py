"""The worker's log: one timestamped line per thing it does (start, each run taken and finished, each schedule tick)."""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from typing import Any, TextIO

from lobsterlang.terminal import visible


class WorkerLog:
    """Lines `2026-12-02 12:00:00 lobster worker: <text>` on `out`; nothing when `out` is None (`--quiet`).
    The runs' thread and the scheduler's thread share it: a line is written whole."""

    def __init__(self, out: TextIO | None) -> None:
        self.out = out
        self._lock = threading.Lock()

    def say(self, text: str) -> None:
        if self.out is None:
            return
        line = f"{time.strftime('%Y-%m-%d %H:%M:%S')} lobster worker: {visible(text)}\n"
        with self._lock:
            self.out.write(line)
            self.out.flush()

    def started(self, where: str, queue: str, concurrency: int, executor_id: str) -> None:
        self.say(f"connected to {where}; serving queue {queue} with concurrency {concurrency} as {executor_id}")

    def took(self, run_id: str, cwd: str) -> None:
        self.say(f"run {run_id}: taken (cwd {cwd})")

    def finished(self, run_id: str, envelope: Mapping[str, Any]) -> None:
        self.say(f"run {run_id}: {outcome(envelope)}")


def outcome(envelope: Mapping[str, Any]) -> str:
    """How a run's execution ended, in a few words: `finished`, `waiting for approval: Ship it?`, `failed: <why>`."""
    if not envelope.get("ok"):
        error = envelope.get("error")
        message = str(error.get("message") or "") if isinstance(error, dict) else ""
        return f"failed: {message.splitlines()[0] if message else 'unknown error'}"
    status = envelope.get("status")
    request = envelope.get("requiresApproval") or envelope.get("requiresInput")
    prompt = f": {request['prompt']}" if isinstance(request, dict) and request.get("prompt") else ""
    if status == "needs_approval":
        return f"waiting for approval{prompt}"
    if status == "needs_input":
        return f"waiting for input{prompt}"
    return "finished" if status == "ok" else str(status)
