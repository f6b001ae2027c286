"""Byte-count settings from the environment (LOBSTER_MAX_OUTPUT_BYTES, LOBSTER_MAX_HTTP_RESPONSE_BYTES), checked as the
reference checks them: blank means unset, anything else must be a positive integer written in ASCII digits."""

from __future__ import annotations

from collections.abc import Mapping

from lobsterlang.digits import whole_number
from lobsterlang.interpret.errors import CommandError

SAFE_INTEGER = 2**53 - 1
"""The largest count the reference accepts (JavaScript's `Number.MAX_SAFE_INTEGER`)."""


def is_byte_count(text: str) -> bool:
    """Whether `text` (already stripped) is a positive whole number of bytes: `abc`, `1.5`, `0`, `-1`, `1e3`, `²` are not."""
    number = whole_number(text)
    return number is not None and 0 < number <= SAFE_INTEGER


def byte_setting(env: Mapping[str, str], name: str) -> int | None:
    """The value of the setting `name`; None when it is unset or blank; `CommandError` when it is not a byte count."""
    text = env.get(name, "").strip()
    if not text:
        return None
    if not is_byte_count(text):
        raise CommandError(f"{name} must be a positive safe integer (bytes)")
    return int(text)
