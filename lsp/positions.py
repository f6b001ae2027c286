"""Offsets (code points, as lobsterlang's spans) ↔ LSP positions (0-based line, UTF-16 code units)."""

from __future__ import annotations

from bisect import bisect_right

from lsprotocol import types


class PositionMap:
    """Converts between offsets into one text and LSP positions; built once per document version."""

    __slots__ = ("_starts", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self._starts = [0]
        position = text.find("\n")
        while position != -1:
            self._starts.append(position + 1)
            position = text.find("\n", position + 1)

    def position(self, offset: int) -> types.Position:
        offset = max(0, min(offset, len(self.text)))
        line = bisect_right(self._starts, offset) - 1
        segment = self.text[self._starts[line] : offset]
        return types.Position(line, utf16_length(segment))

    def range(self, start: int, end: int) -> types.Range:
        return types.Range(self.position(start), self.position(end))

    def offset(self, position: types.Position) -> int:
        """The offset of an LSP position; positions past a line's end clamp to it (as the spec asks)."""
        if position.line >= len(self._starts):
            return len(self.text)
        start = self._starts[position.line]
        end = self._starts[position.line + 1] - 1 if position.line + 1 < len(self._starts) else len(self.text)
        return start + code_points(self.text[start:end], position.character)


def utf16_length(text: str) -> int:
    """How many UTF-16 code units `text` takes."""
    if text.isascii():
        return len(text)
    return len(text) + sum(1 for char in text if ord(char) > 0xFFFF)


def code_points(line: str, units: int) -> int:
    """How many code points of `line` the first `units` UTF-16 code units cover (clamped to the line)."""
    if line.isascii():
        return min(units, len(line))
    count = 0
    for index, char in enumerate(line):
        count += 2 if ord(char) > 0xFFFF else 1
        if count > units:
            return index
    return len(line)
