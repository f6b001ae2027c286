"""Checks and IR for `timeout_ms`, `on_error` and `retry`, with the reference's messages."""

from __future__ import annotations

import math
from typing import Any

from lobsterlang import ir
from lobsterlang.compile.context import Context, Entry, is_map, value_of

MAX_TIMEOUT_MS = 2_147_483_647
ON_ERROR_VALUES = ("stop", "continue", "skip_rest")
RETRY_KEYS = frozenset({"max", "backoff", "delay_ms", "max_delay_ms", "jitter"})


def is_int(value: Any) -> bool:
    """An integer as JavaScript's Number.isInteger sees it (booleans are not numbers)."""
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, float) and value.is_integer())


def is_finite_non_negative(value: Any) -> bool:
    """`Number(x)` finite and >= 0, as the reference checks delays (strings such as "5" pass)."""
    number = js_number(value)
    return number is not None and math.isfinite(number) and number >= 0


def js_number(value: Any) -> float | None:
    """JavaScript's Number() for the JSON values a file can hold (None where it is NaN)."""
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        return float(value)
    if value is None:
        return 0.0
    if isinstance(value, str):
        text = value.strip()
        if not text:
            return 0.0
        try:
            return float(int(text, 0)) if text[:2].lower() in ("0x", "0o", "0b") else float(text)
        except ValueError:
            return None
    return None


def valid_timeout(value: Any) -> bool:
    return is_int(value) and 1 <= value <= MAX_TIMEOUT_MS


def check_timeout(ctx: Context, label: str, entry: Entry | None, code: str = "S117") -> None:
    if entry is not None and not valid_timeout(value_of(entry[1])):
        message = f"{label} timeout_ms must be a positive integer between 1 and {MAX_TIMEOUT_MS}"
        ctx.error(code, message, entry[1], "write a whole number of milliseconds, e.g. 30000")


def check_on_error(ctx: Context, step_id: str, entry: Entry | None) -> None:
    if entry is not None and value_of(entry[1]) not in ON_ERROR_VALUES:
        message = f'Workflow step {step_id} on_error must be "stop", "continue", or "skip_rest"'
        ctx.error("S118", message, entry[1])


def retry(ctx: Context, step_id: str, entry: Entry | None) -> ir.Retry | None:
    """Check `retry:` in the reference's order and build its IR."""
    if entry is None:
        return None
    node = entry[1]
    value = value_of(node)
    span = ctx.span(node)
    if not is_map(node):
        ctx.error("S119", f"Workflow step {step_id} retry must be an object", node, "write e.g. `retry: {max: 3}`")
        return ir.Retry(value, None, None, None, None, None, span)
    entries = ctx.mapping(node)  # type: ignore[arg-type]
    fields: dict[str, Any] = value  # the mapping's plain values, by the same keys as `entries`
    for key, test, rule in _RETRY_RULES:
        if key in entries and not test(fields[key]):
            ctx.error("S119", f"Workflow step {step_id} retry.{key} must be {rule}", entries[key][1])
    ctx.unknown_keys(entries, RETRY_KEYS, f"retry of step {step_id}")
    return ir.Retry(
        value, fields.get("max"), fields.get("backoff"), fields.get("delay_ms"),
        fields.get("max_delay_ms"), fields.get("jitter"), span,
    )


_RETRY_RULES = (
    ("max", lambda v: is_int(v) and v >= 1, "a positive integer"),
    ("backoff", lambda v: v in ("fixed", "exponential"), '"fixed" or "exponential"'),
    ("delay_ms", is_finite_non_negative, "a finite non-negative number"),
    ("max_delay_ms", is_finite_non_negative, "a finite non-negative number"),
    ("jitter", lambda v: isinstance(v, bool), "a boolean"),
)
