"""Locators turn offsets inside a parsed string into spans of the file that contains it."""

from __future__ import annotations

from bisect import bisect_right
from typing import Protocol

from lobsterlang.span import LineIndex, Span, unchecked_span


class Locator(Protocol):
    """Maps local offsets of a string (0-based) to file spans."""

    def span(self, start: int, end: int) -> Span: ...


class TextLocator:
    """The string is the whole file, starting at `base` (identity mapping)."""

    __slots__ = ("_base", "_index")

    def __init__(self, index: LineIndex, base: int = 0) -> None:
        self._index = index
        self._base = base

    def span(self, start: int, end: int) -> Span:
        start += self._base
        end += self._base
        index = self._index
        if 0 <= start <= end <= index.length and type(index) is LineIndex:  # LineIndex.span, without a second call
            return unchecked_span((start, end, index))
        return index.span(start, end)  # a StepIndex makes spans that move with their step


class SegmentLocator:
    """The string was decoded from the file: `segments` pair value offsets with file offsets.

    Each segment `(value_start, file_start)` says that value offsets from `value_start`
    up to the next segment map linearly to file offsets from `file_start`.
    """

    __slots__ = ("_file_end", "_file_starts", "_index", "_value_len", "_value_starts")

    def __init__(
        self, index: LineIndex, segments: list[tuple[int, int]], value_len: int, file_end: int
    ) -> None:
        self._index = index
        self._value_starts = [v for v, _ in segments]
        self._file_starts = [f for _, f in segments]
        self._value_len = value_len
        self._file_end = file_end

    def offset(self, local: int) -> int:
        if local >= self._value_len:
            return self._file_end
        i = bisect_right(self._value_starts, local) - 1
        return self._file_starts[i] + (local - self._value_starts[i])

    def span(self, start: int, end: int) -> Span:
        starts = self._value_starts
        i = bisect_right(starts, start) - 1
        file_start = self._file_starts[i] + (start - starts[i]) if start < self._value_len else self._file_end
        if end <= start:
            return self._index.span(file_start, file_start)
        nxt = starts[i + 1] if i + 1 < len(starts) else self._value_len
        if end <= nxt:  # both ends in one segment: no second search
            return self._index.span(file_start, file_start + (end - start))
        return self._index.span(file_start, max(file_start, self.offset(end - 1) + 1))
