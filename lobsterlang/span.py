"""Source positions: a `Span` (0-based offsets, 1-based line/col) and a `LineIndex` to build them."""

from __future__ import annotations

from bisect import bisect_right

from lobsterlang.record import Record


class Span(Record):
    """A half-open range of source text.

    `start`/`end` are 0-based code-point offsets; `line`/`col` and `end_line`/`end_col`
    are 1-based, with `end_col` pointing just past the last character.
    """

    start: int
    end: int
    line: int
    col: int
    end_line: int
    end_col: int

    def to_list(self) -> list[int]:
        return [self.start, self.end, self.line, self.col, self.end_line, self.end_col]

    @classmethod
    def from_list(cls, data: list[int]) -> Span:
        start, end, line, col, end_line, end_col = data
        return cls(start, end, line, col, end_line, end_col)


NO_SPAN = Span(0, 0, 1, 1, 1, 1)


class LineIndex:
    """Maps offsets of one text to line and column numbers in O(log lines)."""

    __slots__ = ("_starts", "length")

    def __init__(self, text: str) -> None:
        starts = [0]
        find = text.find
        pos = find("\n")
        while pos != -1:
            starts.append(pos + 1)
            pos = find("\n", pos + 1)
        self._starts = starts
        self.length = len(text)

    def line_col(self, offset: int) -> tuple[int, int]:
        """Return the 1-based (line, col) of a 0-based offset."""
        line = bisect_right(self._starts, offset) - 1
        return line + 1, offset - self._starts[line] + 1

    def span(self, start: int, end: int) -> Span:
        if not 0 <= start <= end <= self.length:
            start = max(0, min(start, self.length))
            end = max(start, min(end, self.length))
        starts = self._starts
        line = bisect_right(starts, start)
        first = starts[line - 1]
        if line == len(starts) or end < starts[line]:  # one line: a single search suffices
            return Span(start, end, line, start - first + 1, line, end - first + 1)
        end_line = bisect_right(starts, end, line)
        return Span(start, end, line, start - first + 1, end_line, end - starts[end_line - 1] + 1)

    def line_start(self, line: int) -> int:
        """Offset of the first character of a 1-based line."""
        return self._starts[line - 1]

    @property
    def line_count(self) -> int:
        return len(self._starts)
