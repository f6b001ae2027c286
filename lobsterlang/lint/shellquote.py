"""Shell quoting state at a point of a POSIX shell script, and quoting a variable for that point."""

from __future__ import annotations

import re
from typing import Literal

QuoteState = Literal["none", "single", "double"]
_QUOTING = re.compile(r"[\\'\"]")
"""The only characters that change the quoting state."""


def quote_state(script: str, at: int) -> QuoteState:
    """Whether `script[at]` is outside quotes, inside '…' or inside "…"."""
    state: QuoteState = "none"
    escaped = -1
    for found in _QUOTING.finditer(script, 0, at):
        i = found.start()
        ch = script[i]
        if state == "single":
            state = "none" if ch == "'" else state
        elif i == escaped:
            continue
        elif ch == "\\":
            escaped = i + 1
        elif ch == '"':
            state = "none" if state == "double" else "double"
        elif ch == "'" and state == "none":
            state = "single"
    return state


def variable_for(state: QuoteState, name: str, next_char: str = "") -> str:
    """A reference to environment variable `name`, quoted for where it stands.

    Inside double quotes `${NAME}` would read as a Lobster `${arg}`, so a following name
    character is kept apart with an empty `""` instead.
    """
    if state == "double":
        return "$" + name + ('""' if next_char.isalnum() or next_char == "_" else "")
    if state == "single":
        return "'\"$" + name + "\"'"
    return '"$' + name + '"'
