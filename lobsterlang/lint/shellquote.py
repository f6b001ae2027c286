"""Shell quoting state at a point of a POSIX shell script, and quoting a variable for that point."""

from __future__ import annotations

import re
from typing import Literal

QuoteState = Literal["none", "single", "double"]
_QUOTING = re.compile(r"[\\'\"]")
"""The only characters that change the quoting state."""


def quote_state(script: str, at: int) -> QuoteState:
    """Whether `script[at]` is outside quotes, inside '…' or inside "…"."""
    return quote_states(script, [at])[0]


def quote_states(script: str, offsets: list[int]) -> list[QuoteState]:
    """`quote_state(script, at)` for each of the ascending `offsets`, in one pass over the script."""
    states: list[QuoteState] = []
    state: QuoteState = "none"
    escaped = -1
    found = _QUOTING.finditer(script, 0, offsets[-1]) if offsets else iter(())
    pending = next(found, None)
    for at in offsets:
        while pending is not None and pending.start() < at:
            i = pending.start()
            ch = script[i]
            if state == "single":
                state = "none" if ch == "'" else state
            elif i == escaped:
                pass
            elif ch == "\\":
                escaped = i + 1
            elif ch == '"':
                state = "none" if state == "double" else "double"
            elif ch == "'" and state == "none":
                state = "single"
            pending = next(found, None)
        states.append(state)
    return states


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
