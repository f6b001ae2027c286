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

    # A span made by LineIndex.span computes its line and column on first use; it is still a
    # Span and compares, hashes, prints and pickles as the eager one with the same values.

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Span) and self._values() == other._values()

    def __hash__(self) -> int:
        return hash(("Span", *self._values()))

    def __repr__(self) -> str:
        return "Span({}, {}, {}, {}, {}, {})".format(*self._values())

    def __reduce__(self) -> tuple[object, ...]:
        return (Span, self._values())


NO_SPAN = Span(0, 0, 1, 1, 1, 1)


_SLOT_GET = {name: getattr(Span, name).__get__ for name in ("line", "col", "end_line", "end_col")}
_SLOT_SET = {name: getattr(Span, name).__set__ for name in ("start", "end", "line", "col", "end_line", "end_col")}


def _lazy_position(name: str) -> property:
    get_slot, set_slot = _SLOT_GET[name], _SLOT_SET[name]

    def get(self: _LazySpan) -> int:
        try:
            return int(get_slot(self, _LazySpan))
        except AttributeError:
            self._resolve()
            return int(get_slot(self, _LazySpan))

    return property(get, set_slot)


class _LazySpan(Span):
    """A Span that knows its LineIndex and finds its line and column only when asked."""

    __slots__ = ("_index",)

    line = _lazy_position("line")
    col = _lazy_position("col")
    end_line = _lazy_position("end_line")
    end_col = _lazy_position("end_col")

    def _resolve(self) -> None:
        index: LineIndex = self._index  # type: ignore[attr-defined]
        line, col = index.line_col(self.start)
        end_line, end_col = index.line_col(self.end)
        for name, value in (("line", line), ("col", col), ("end_line", end_line), ("end_col", end_col)):
            _SLOT_SET[name](self, value)


_new_span = object.__new__
_set_start, _set_end = _SLOT_SET["start"], _SLOT_SET["end"]
_set_index = _LazySpan._index.__set__  # type: ignore[attr-defined]


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
        """The span of `start`..`end` (clamped to the text); its line and column are found on first use."""
        if not 0 <= start <= end <= self.length:
            start = max(0, min(start, self.length))
            end = max(start, min(end, self.length))
        span = _new_span(_LazySpan)
        _set_start(span, start)
        _set_end(span, end)
        _set_index(span, self)
        return span

    def line_start(self, line: int) -> int:
        """Offset of the first character of a 1-based line."""
        return self._starts[line - 1]

    @property
    def line_count(self) -> int:
        return len(self._starts)
