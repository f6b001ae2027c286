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
    if style is None and text.startswith(value, start):
        return TextLocator(index, start)
    if style in ("'", '"') and text.startswith(value, start + 1) and _closes(text, start + 1 + len(value), style):
        return TextLocator(index, start + 1)
    segments = _align(value, text, start, end, style)
    if segments is None:
        return TextLocator(index, start)
    return SegmentLocator(index, segments, len(value), end)


def _closes(text: str, pos: int, quote: str) -> bool:
    return pos < len(text) and text[pos] == quote


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
