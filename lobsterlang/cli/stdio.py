"""The process's standard streams made safe to write: a closed one replaced, lone surrogates written as U+FFFD."""

from __future__ import annotations

import codecs
import io
import os
import sys

REPLACE_SURROGATES = "lobster-surrogates"
"""The error handler that writes each lone surrogate (JSON's `"\\ud83d"` read into a string) as U+FFFD, as Node
writes one; Python's default would stop the command with a UnicodeEncodeError."""


def _replacement(error: UnicodeError) -> tuple[str | bytes, int]:
    if isinstance(error, UnicodeEncodeError):  # UTF-8 takes bytes (or ASCII) from a handler: U+FFFD's encoding
        return "\ufffd".encode() * (error.end - error.start), error.end
    raise error


def prepare_streams() -> None:
    """For the `lobster` process: stdin, stdout and stderr usable even when closed, and UTF-8 output that
    survives lone surrogates. A closed stdout is reported once on stderr: what the command prints is lost."""
    codecs.register_error(REPLACE_SURROGATES, _replacement)
    if sys.stdin is None:
        sys.stdin = open(os.devnull, encoding="utf-8")  # noqa: SIM115 - the process's stdin, open until exit
    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115
    if sys.stdout is None:
        sys.stdout = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115
        sys.stderr.write("lobster: standard output is closed; what this command prints is discarded\n")
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper) and codecs.lookup(stream.encoding).name == "utf-8":
            stream.reconfigure(errors=REPLACE_SURROGATES)
