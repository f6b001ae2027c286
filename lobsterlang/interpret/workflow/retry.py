"""`retry:` — total attempts, fixed or exponential backoff with optional jitter, one stderr line per retry."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TextIO, TypeVar

from lobsterlang import ir

T = TypeVar("T")


@dataclass(frozen=True)
class RetryPolicy:
    """Effective retry settings (the reference's defaults for absent fields)."""

    max: int = 1
    backoff: str = "fixed"
    delay_ms: float = 1000
    max_delay_ms: float = 30000
    jitter: bool = False

    def delay(self, attempt: int) -> int:
        """Milliseconds to wait after failed attempt `attempt` (1-based)."""
        base = self.delay_ms if self.backoff == "fixed" else min(self.delay_ms * 2 ** (attempt - 1), self.max_delay_ms)
        if self.jitter:
            base = min(base * (1 + random.uniform(-0.1, 0.1)), self.max_delay_ms)
        return round(base)


NO_RETRY = RetryPolicy()
"""The policy of a step without `retry:` (one attempt)."""


def policy(retry: ir.Retry | None) -> RetryPolicy:
    """The policy of a step's `retry:` (validated by the compiler)."""
    if retry is None:
        return NO_RETRY
    return RetryPolicy(
        int(retry.max) if retry.max is not None else 1,
        str(retry.backoff) if retry.backoff is not None else "fixed",
        float(retry.delay_ms) if retry.delay_ms is not None else 1000,
        float(retry.max_delay_ms) if retry.max_delay_ms is not None else 30000,
        bool(retry.jitter),
    )


def with_retry(
    step_id: str, rules: RetryPolicy, attempt: Callable[[], T], retryable: Callable[[Exception], bool],
    message: Callable[[Exception], str], err: TextIO, sleep: Callable[[float], Any] = time.sleep, first: int = 1,
) -> T:
    """Call `attempt` up to `rules.max` times in all (`first`: the number of this call's first attempt; at least one
    attempt is made); the last failure propagates."""
    number = first
    while True:
        try:
            return attempt()
        except Exception as exc:
            if number >= rules.max or not retryable(exc):
                raise
            wait = rules.delay(number)
            err.write(f"[RETRY] Step '{step_id}' failed (attempt {number}/{rules.max}): {message(exc)}. Retrying in {wait}ms...\n")
            err.flush()
            sleep(wait / 1000)
            number += 1
