"""The size limit on decimal integers in workflow files (E009), the same for YAML and JSON."""

from __future__ import annotations

import math

from lobsterlang.diagnostics import Diagnostic, Severity
from lobsterlang.span import Span

MAX_DIGITS = 4300
"""Python's limit for converting a decimal integer (`sys.get_int_max_str_digits()`'s default)."""
HEX_DIGITS_TO_EXCEED = math.ceil(MAX_DIGITS / math.log10(16))
"""The fewest hexadecimal (or more octal) digits whose value can have more than MAX_DIGITS decimal digits."""
_LOG10_2 = math.log10(2)


def decimal_digits(value: int) -> int:
    """How many decimal digits `abs(value)` has, counted without writing it (which Python limits)."""
    value = abs(value)
    estimate = max(1, int(value.bit_length() * _LOG10_2))  # the count or one less
    power: int = 10**estimate
    return estimate + 1 if value >= power else estimate


def too_many_digits(digits: int, span: Span) -> Diagnostic:
    """E009 for an integer of `digits` decimal digits written at `span`."""
    message = f"number has {digits:,} digits; the limit is {MAX_DIGITS:,}"
    return Diagnostic("E009", Severity.ERROR, message, span, hint="write it as a string (quoted)")
