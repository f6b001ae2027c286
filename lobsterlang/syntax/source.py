"""Read a workflow file's bytes into text, rejecting what cannot be a workflow file."""

from __future__ import annotations

import os
import re
import sys
from typing import BinaryIO

from lobsterlang.diagnostics import Diagnostic, Severity
from lobsterlang.digits import whole_number
from lobsterlang.reading import read_file, read_stream
from lobsterlang.record import Record
from lobsterlang.span import LineIndex, Span

DEFAULT_MAX_INPUT_BYTES = 64 * 1024 * 1024
"""Larger files are refused unless the limit is raised: a generated 100,000-step workflow is about 23 MB."""
MAX_INPUT_BYTES_ENV = "LOBSTER_MAX_INPUT_BYTES"
"""The setting; the `--max-input-bytes` option of the commands that read files sets it for their run."""


def max_input_bytes() -> int:
    """The size limit in force: LOBSTER_MAX_INPUT_BYTES when it is a positive integer, else the default."""
    raw = os.environ.get(MAX_INPUT_BYTES_ENV, "").strip()
    number = whole_number(raw)
    return number if number else DEFAULT_MAX_INPUT_BYTES


def read_source(path: str | os.PathLike[str]) -> bytes:
    """A workflow file's bytes, at most the limit plus one (then decoding reports E008); OSError (NotRegularFile
    for a FIFO or a device) when it cannot be read."""
    return read_file(path, max_input_bytes())


def read_source_stream(stream: BinaryIO | None = None) -> bytes:
    """What stdin (or `stream`) holds, at most the limit plus one byte: an endless writer is not read to its end."""
    return read_stream(stream if stream is not None else sys.stdin.buffer, max_input_bytes())


def over_limit(data: bytes | str) -> bool:
    """Whether input read by `read_source*` (or given whole) is over the limit."""
    return len(data) > max_input_bytes()


def limit_message(what: str = "file") -> str:
    """`file is larger than the limit of N bytes (--max-input-bytes, LOBSTER_MAX_INPUT_BYTES)`."""
    return f"{what} is larger than the limit of {max_input_bytes():,} bytes (--max-input-bytes, {MAX_INPUT_BYTES_ENV})"


class SourceText(Record):
    """Decoded file text and its line index (`text` is empty when decoding failed)."""

    text: str
    index: LineIndex


def decode_source(data: bytes) -> tuple[SourceText, list[Diagnostic]]:
    """Decode UTF-8 bytes; report size, binary content and invalid UTF-8 with positions."""
    if over_limit(data):
        return _fail(
            "E008",
            limit_message(),
            f"raise it with --max-input-bytes or {MAX_INPUT_BYTES_ENV}, or split the workflow into sub-workflows (`workflow:` steps)",
        )
    nul = data.find(b"\x00")
    if nul >= 0:
        return _fail_at(data, nul, "E002", "binary file: it contains a NUL byte", "a workflow file is UTF-8 text", "")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        message = f"invalid UTF-8: byte 0x{data[exc.start]:02x} at byte offset {exc.start}"
        shown = data.decode("utf-8", errors="replace")
        return _fail_at(data, exc.start, "E001", message, "save the file as UTF-8", shown)
    return SourceText(text, LineIndex(text)), []


_SURROGATE = re.compile(r"[\ud800-\udfff]")  # the escapes are the pattern's: the module's text stays valid UTF-8
"""A UTF-16 surrogate on its own: text from an editor or a command line can hold one, UTF-8 never does."""


def text_problems(text: str) -> list[Diagnostic]:
    """E001 at the first lone surrogate of already decoded text (it cannot be encoded, so nothing can parse it).
    An ASCII text has none, and says so without a scan (`str.isascii` reads a flag of the string)."""
    found = None if text.isascii() else _SURROGATE.search(text)
    if found is None:
        return []
    index = LineIndex(text)
    span = index.span(found.start(), found.end())
    message = f"invalid text: a lone surrogate U+{ord(found.group()):04X} at character offset {found.start()}"
    return [Diagnostic("E001", Severity.ERROR, message, span, hint="remove it: it is half of a UTF-16 surrogate pair, not a character")]


def _fail(code: str, message: str, hint: str) -> tuple[SourceText, list[Diagnostic]]:
    empty = LineIndex("")
    return SourceText("", empty), [Diagnostic(code, Severity.ERROR, message, empty.span(0, 0), hint=hint)]


def _fail_at(
    data: bytes, byte_offset: int, code: str, message: str, hint: str, shown: str
) -> tuple[SourceText, list[Diagnostic]]:
    """Fail, pointing at the line and column of a byte offset; `shown` is text for snippets."""
    prefix = data[:byte_offset].decode("utf-8", errors="replace")
    line = prefix.count("\n") + 1
    col = len(prefix) - (prefix.rfind("\n") + 1) + 1
    offset = len(prefix)
    span = Span(offset, offset + 1, line, col, line, col + 1)
    return SourceText(shown, LineIndex(shown)), [Diagnostic(code, Severity.ERROR, message, span, hint=hint)]
