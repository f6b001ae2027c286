"""Map offsets inside a YAML/JSON scalar's value back to the file, for every scalar style."""

from __future__ import annotations

import yaml

from lobsterlang.span import LineIndex
from lobsterlang.syntax.locate import Locator, SegmentLocator, TextLocator

_ESCAPE_LEN = {"x": 4, "u": 6, "U": 10}


def scalar_locator(node: yaml.ScalarNode, text: str, index: LineIndex) -> Locator:
    """A locator for offsets in `node.value`, exact for plain, quoted and block scalars."""
    start, end, value = node.start_mark.index, node.end_mark.index, node.value
    style = node.style
    if not style and text.startswith(value, start):  # plain: the C loader says "", pure Python None
        return TextLocator(index, start)
    if style in ("'", '"') and text.startswith(value, start + 1) and _closes(text, start + 1 + len(value), style):
        return TextLocator(index, start + 1)
    segments = _align_lines(value, text, start, end, style)
    if segments is None:
        segments = _align(value, text, start, end, style)
    if segments is None:
        return TextLocator(index, start)
    return SegmentLocator(index, segments, len(value), end)


def _closes(text: str, pos: int, quote: str) -> bool:
    return pos < len(text) and text[pos] == quote


def _align_lines(value: str, text: str, start: int, end: int, style: str | None) -> list[tuple[int, int]] | None:
    """Line by line: each source line's content appears verbatim in the value, in order.

    Holds for block scalars and for plain or quoted scalars without escapes (folding only
    changes the line breaks between contents); returns None when it does not hold.
    """
    if (style == '"' and "\\" in text[start:end]) or (style == "'" and "''" in text[start:end]):
        return None
    pos = _content_start(text, start, end, style)
    stop = end - 1 if style in ("'", '"') else end
    indent = _block_indent(text, pos, stop) if style in ("|", ">") else 0
    segments: list[tuple[int, int]] = []
    cursor = 0
    while pos < stop:
        line_end = text.find("\n", pos, stop)
        line_end = stop if line_end < 0 else line_end
        lo, hi = _line_content(text, pos, line_end, indent)
        if hi > lo:
            found = value.find(text[lo:hi], cursor)
            if found < 0 or value[cursor:found].strip(" \n"):
                return None
            segments.append((found, lo))
            cursor = found + (hi - lo)
        pos = line_end + 1
    return segments or [(0, start)]


def _line_content(text: str, pos: int, line_end: int, indent: int) -> tuple[int, int]:
    """The part of a source line that is scalar content (indentation and edges trimmed)."""
    if indent:
        lo = _skip_indent(text, pos, line_end, indent)
        hi = line_end - 1 if line_end > lo and text[line_end - 1] == "\r" else line_end
        return lo, hi
    lo, hi = pos, line_end
    while lo < hi and text[lo] in " \t":
        lo += 1
    while hi > lo and text[hi - 1] in " \t\r":
        hi -= 1
    return lo, hi


def _align(value: str, text: str, start: int, end: int, style: str | None) -> list[tuple[int, int]] | None:
    """Walk value and source together; returns (value offset, file offset) segments."""
    pos = _content_start(text, start, end, style)
    indent = _block_indent(text, pos, end) if style in ("|", ">") else 0
    segments: list[tuple[int, int]] = []
    last_value, last_file = -2, -2
    for i, ch in enumerate(value):
        if indent and (pos == 0 or text[pos - 1] == "\n"):
            pos = _skip_indent(text, pos, end, indent)
        if style == '"':
            pos = _skip_escaped_breaks(text, pos, end)
        found, width = _find(text, pos, end, ch, style)
        if found < 0:
            return None
        if not (i == last_value + 1 and found == last_file + 1):
            segments.append((i, found))
        last_value, last_file = i, found
        pos = found + width
    return segments or [(0, start)]


def _content_start(text: str, start: int, end: int, style: str | None) -> int:
    if style in ("'", '"'):
        return start + 1
    if style in ("|", ">"):
        newline = text.find("\n", start, end)
        return newline + 1 if newline >= 0 else end
    return start


def _block_indent(text: str, pos: int, end: int) -> int:
    """Indentation of the first non-blank line of a block scalar."""
    while pos < end:
        line_end = text.find("\n", pos, end)
        line_end = end if line_end < 0 else line_end
        stripped = len(text[pos:line_end].lstrip(" "))
        if stripped:
            return line_end - pos - stripped
        pos = line_end + 1
    return 0


def _skip_indent(text: str, pos: int, end: int, indent: int) -> int:
    limit = min(pos + indent, end)
    while pos < limit and text[pos] == " ":
        pos += 1
    return pos


def _skip_escaped_breaks(text: str, pos: int, end: int) -> int:
    """Skip `\\` + line break in a double-quoted scalar (the break and indentation vanish)."""
    while pos + 1 < end and text[pos] == "\\" and text[pos + 1] in "\r\n":
        pos += 2
        while pos < end and text[pos] in " \t\r\n":
            pos += 1
    return pos


def _find(text: str, pos: int, end: int, ch: str, style: str | None) -> tuple[int, int]:
    """Next source position producing `ch`, and how many source characters produced it."""
    while pos < end:
        src = text[pos]
        if style == '"' and src == "\\" and pos + 1 < end:
            return pos, _ESCAPE_LEN.get(text[pos + 1], 2)
        if style == "'" and src == "'" and ch == "'":
            return pos, 2
        if src == ch or (src == "\n" and ch == " "):
            return pos, 1
        pos += 1
    return -1, 0
