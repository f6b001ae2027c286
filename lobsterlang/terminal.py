"""Text for a person's terminal: control characters from files, names and values are shown, never obeyed.

A workflow file, a file name or a step's error can hold ESC, BEL or a C1 control; printed raw, an OSC
sequence sets the terminal's title or clipboard and a CSI sequence moves the cursor or hides text. Every
human output (diagnostics, lint's text and GitHub formats, fmt, compile and run errors) passes through
`visible`, which writes each such character as a `\\x1b`-style escape. Bidirectional overrides and isolates
are escaped too, so a line cannot be shown in another order than it is read.
"""

from __future__ import annotations

import re

_BIDI = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
"""The bidirectional marks, embeddings, overrides and isolates."""
_CONTROLS = re.compile(f"[\x00-\x08\x0a-\x1f\x7f-\x9f{_BIDI}]")
"""C0 controls but tab, DEL, C1 controls, and the bidirectional controls."""
_CONTROLS_BUT_LINES = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{_BIDI}]")


def visible(text: str, *, lines: bool = False) -> str:
    """`text` with every control character written as an escape (`\\x1b`, `\\n`, `\\u202e`); other text unchanged.

    With `lines`, line breaks (`\\n`) stay: for messages that hold a command's output.
    """
    if text.isprintable():
        return text  # the common case, checked in C
    return (_CONTROLS_BUT_LINES if lines else _CONTROLS).sub(_escape, text)


def _escape(found: re.Match[str]) -> str:
    char = found.group()
    if char == "\n":
        return "\\n"
    if char == "\r":
        return "\\r"
    code = ord(char)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"
