"""Offsets (code points, as lobsterlang's spans) ↔ LSP positions (0-based line, characters in the negotiated encoding)."""

from __future__ import annotations

from bisect import bisect_right

from lsprotocol import types

from lobsterlang.span import line_index

UTF16 = types.PositionEncodingKind.Utf16


class PositionMap:
    """Converts between offsets into one text and LSP positions; built once per document version, on the line
    index its compile made (`span.line_index`).

    Characters are counted in the position encoding the server and the client agreed on at
    initialization (UTF-16 unless the client offered UTF-8 or UTF-32 first, as Neovim, Helix and Emacs do).
    """

    __slots__ = ("_starts", "encoding", "text")

    def __init__(self, text: str, encoding: str = UTF16) -> None:
        self.text = text
        self.encoding = encoding
        self._starts = line_index(text).starts

    def position(self, offset: int) -> types.Position:
        offset = max(0, min(offset, len(self.text)))
        line = bisect_right(self._starts, offset) - 1
        segment = self.text[self._starts[line] : offset]
        return types.Position(line, unit_length(segment, self.encoding))

    def range(self, start: int, end: int) -> types.Range:
        return types.Range(self.position(start), self.position(end))

    def offset(self, position: types.Position) -> int:
        """The offset of an LSP position; positions past a line's end clamp to it (as the spec asks)."""
        if position.line >= len(self._starts):
            return len(self.text)
        start = self._starts[position.line]
        end = self._starts[position.line + 1] - 1 if position.line + 1 < len(self._starts) else len(self.text)
        return start + code_points(self.text[start:end], position.character, self.encoding)


def unit_length(text: str, encoding: str = UTF16) -> int:
    """How many code units of `encoding` (`utf-8`, `utf-16` or `utf-32`) `text` takes."""
    if text.isascii() or encoding == types.PositionEncodingKind.Utf32:
        return len(text)
    if encoding == types.PositionEncodingKind.Utf8:
        return len(text.encode("utf-8"))
    return len(text) + sum(1 for char in text if ord(char) > 0xFFFF)


def utf16_length(text: str) -> int:
    """How many UTF-16 code units `text` takes."""
    return unit_length(text, UTF16)


def code_points(line: str, units: int, encoding: str = UTF16) -> int:
    """How many code points of `line` the first `units` code units cover (clamped to the line); a position
    inside a character's code units counts from that character."""
    if line.isascii() or encoding == types.PositionEncodingKind.Utf32:
        return min(units, len(line))
    count = 0
    for index, char in enumerate(line):
        count += unit_length(char, encoding)
        if count > units:
            return index
    return len(line)
