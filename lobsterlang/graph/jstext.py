"""JavaScript's `String(value)` for the JSON values graph labels show (arg values)."""

from __future__ import annotations

import math
from typing import Any

MAX_SAFE = 2**53


def number_str(x: float | int) -> str:
    """`String(x)` for a number, with JavaScript's choice between plain and exponent notation."""
    if isinstance(x, int) and not isinstance(x, bool) and abs(x) < MAX_SAFE:
        return str(x)
    x = float(x)
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0:
        return "0"
    return ("-" if x < 0 else "") + _positive_number_str(abs(x))


def _positive_number_str(x: float) -> str:
    mantissa, _, exp_text = repr(x).partition("e")
    whole, _, frac = mantissa.partition(".")
    digits = (whole + frac).lstrip("0")
    point = len(whole) + int(exp_text or 0) - (len(whole + frac) - len((whole + frac).lstrip("0")))
    digits = digits.rstrip("0") or "0"
    k, n = len(digits), point
    if k <= n <= 21:
        return digits + "0" * (n - k)
    if 0 < n <= 21:
        return digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return "0." + "0" * (-n) + digits
    e = n - 1
    head = digits[0] + ("." + digits[1:] if k > 1 else "")
    return f"{head}e{'+' if e >= 0 else '-'}{abs(e)}"


def js_string(value: Any) -> str:
    """`String(value)`: arrays join with commas, objects are `[object Object]`."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return number_str(value)
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return ",".join("" if v is None else js_string(v) for v in value)
    return "[object Object]"
