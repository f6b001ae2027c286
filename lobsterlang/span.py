"""Source positions: a `Span` (0-based offsets, 1-based line/col) and a `LineIndex` to build them."""

from __future__ import annotations

from bisect import bisect_right
from functools import lru_cache
from itertools import accumulate
from operator import add
from typing import TYPE_CHECKING, Any, NoReturn

from lobsterlang.record import FrozenRecordError

if TYPE_CHECKING:

    def _field(index: int, doc: str) -> Any: ...

else:
    try:  # the C accessor behind namedtuple fields
        from _collections import _tuplegetter as _field
    except ImportError:  # pragma: no cover - a Python without it
        from operator import itemgetter

        def _field(index: int, doc: str) -> property:
            return property(itemgetter(index), doc=doc)


class Span(tuple):  # type: ignore[type-arg]
    """A half-open range of source text.

    `start`/`end` are 0-based code-point offsets; `line`/`col` and `end_line`/`end_col`
    are 1-based, with `end_col` pointing just past the last character.

    A tuple underneath, so that making one is a single allocation: compiling a file makes
    hundreds. It acts as a frozen record, not as a sequence: use the fields or `to_list()`.
    """

    __slots__ = ()

    if TYPE_CHECKING:
        start: int
        end: int
        line: int
        col: int
        end_line: int
        end_col: int

        @classmethod
        def _make(cls, values: tuple[Any, ...]) -> Span: ...

    else:
        start = _field(0, "0-based offset of the first character")
        end = _field(1, "0-based offset just past the last character")
        line = _field(2, "1-based line of `start`")
        col = _field(3, "1-based column of `start`")
        end_line = _field(4, "1-based line of `end`")
        end_col = _field(5, "1-based column of `end`")
        _make = classmethod(tuple.__new__)

    def __new__(cls, start: int, end: int, line: int, col: int, end_line: int, end_col: int) -> Span:
        return tuple.__new__(cls, (start, end, line, col, end_line, end_col))

    def _values(self) -> tuple[int, int, int, int, int, int]:
        return (self.start, self.end, self.line, self.col, self.end_line, self.end_col)

    def to_list(self) -> list[int]:
        return list(self._values())

    @classmethod
    def from_list(cls, data: list[int]) -> Span:
        start, end, line, col, end_line, end_col = data
        return cls(start, end, line, col, end_line, end_col)

    # A span made by LineIndex.span finds its line and column when they are read; it is still
    # a Span and compares, hashes, prints and pickles as the eager one with the same values.

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Span) and self._values() == other._values()

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash(("Span", *self._values()))

    def __repr__(self) -> str:
        return "Span({}, {}, {}, {}, {}, {})".format(*self._values())

    def __reduce__(self) -> tuple[Any, ...]:
        return (Span, self._values())

    def __setattr__(self, name: str, value: object) -> NoReturn:
        raise FrozenRecordError(f"cannot assign to field {name!r}: Span is frozen")

    def __delattr__(self, name: str) -> NoReturn:
        raise FrozenRecordError(f"cannot delete field {name!r}: Span is frozen")

    def _unordered(self, other: object) -> Any:
        return NotImplemented  # spans have no order (a tuple's would compare the wrong things)

    __lt__ = __le__ = __gt__ = __ge__ = _unordered


NO_SPAN = Span(0, 0, 1, 1, 1, 1)


class _LazySpan(Span):
    """The tuple `(start, end, index)`: line and column are looked up in the LineIndex when read."""

    __slots__ = ()

    if not TYPE_CHECKING:
        line = property(lambda self: self[2].line_of(self[0]), doc=Span.line.__doc__)
        col = property(lambda self: self[2].col_of(self[0]), doc=Span.col.__doc__)
        end_line = property(lambda self: self[2].line_of(self[1]), doc=Span.end_line.__doc__)
        end_col = property(lambda self: self[2].col_of(self[1]), doc=Span.end_col.__doc__)

    def _values(self) -> tuple[int, int, int, int, int, int]:
        """All six fields with two lookups, not one per field (`to_list`, equality, hashing)."""
        start, end, index = self
        return (start, end, *index.line_col(start), *index.line_col(end))


unchecked_span = _LazySpan._make
"""`unchecked_span((start, end, index))`: the span LineIndex.span gives for offsets already inside the text."""


def line_starts(text: str) -> list[int]:
    """The offset where each line of `text` starts (lines end at `\\n`)."""
    lines = text.split("\n")
    # Line i starts after lines 0..i-1 and their i newlines (computed without a Python loop).
    return list(map(add, accumulate(map(len, lines), initial=0), range(len(lines))))


def _clamped(start: int, end: int, length: int) -> tuple[int, int]:
    start = max(0, min(start, length))
    return start, max(start, min(end, length))


class LineIndex:
    """Maps offsets of one text to line and column numbers in O(log lines)."""

    __slots__ = ("_starts", "length")

    def __init__(self, text: str) -> None:
        self._starts = line_starts(text)
        self.length = len(text)

    def line_col(self, offset: int) -> tuple[int, int]:
        """Return the 1-based (line, col) of a 0-based offset."""
        line = bisect_right(self._starts, offset) - 1
        return line + 1, offset - self._starts[line] + 1

    def line_of(self, offset: int) -> int:
        """The 1-based line of a 0-based offset."""
        return bisect_right(self._starts, offset)

    def col_of(self, offset: int) -> int:
        """The 1-based column of a 0-based offset."""
        return offset - self._starts[bisect_right(self._starts, offset) - 1] + 1

    def span(self, start: int, end: int) -> Span:
        """The span of `start`..`end` (clamped to the text); its line and column are found when read."""
        if not 0 <= start <= end <= self.length:
            start, end = _clamped(start, end, self.length)
        return unchecked_span((start, end, self))

    def line_start(self, line: int) -> int:
        """Offset of the first character of a 1-based line."""
        return self._starts[line - 1]

    @property
    def line_count(self) -> int:
        return len(self._starts)

    @property
    def starts(self) -> list[int]:
        """The offset where each line starts (`line_starts`; read it, never change it)."""
        return self._starts


@lru_cache(maxsize=2)
def line_index(text: str) -> LineIndex:
    """The LineIndex of `text`, built once for the same text: the compiler, the lint rules' template positions and
    the language server's LSP positions all read the lines of each version of a document."""
    return LineIndex(text)


class StepIndex(LineIndex):
    """A LineIndex for one part of a document (a workflow step) that can move: the spans it makes keep their
    offsets relative to `base`, so moving the part (`move`) moves them all at once, without rebuilding them.

    An editor recompiles a document on every change; a step whose text did not change keeps its IR and only
    moves (`lobsterlang.compile.reuse`). Offsets given and read are the document's, as with a LineIndex.
    """

    __slots__ = ("base", "doc")

    def __init__(self, doc: LineIndex, base: int) -> None:
        self.doc, self.base, self.length = doc, base, doc.length

    def move(self, doc: LineIndex, base: int) -> None:
        """The part now starts at `base` of the document `doc` indexes: every span made here follows."""
        self.doc, self.base, self.length = doc, base, doc.length

    def span(self, start: int, end: int) -> Span:
        if not 0 <= start <= end <= self.length:
            start, end = _clamped(start, end, self.length)
        return _RelativeSpan._make((start - self.base, end - self.base, self))

    def line_col(self, offset: int) -> tuple[int, int]:
        return self.doc.line_col(offset)

    def line_of(self, offset: int) -> int:
        return self.doc.line_of(offset)

    def col_of(self, offset: int) -> int:
        return self.doc.col_of(offset)

    def line_start(self, line: int) -> int:
        return self.doc.line_start(line)

    @property
    def line_count(self) -> int:
        return self.doc.line_count


class _RelativeSpan(Span):
    """The tuple `(start - base, end - base, step index)`: a span that moves with its StepIndex."""

    __slots__ = ()

    if not TYPE_CHECKING:
        start = property(lambda self: self[0] + self[2].base, doc=Span.start.__doc__)
        end = property(lambda self: self[1] + self[2].base, doc=Span.end.__doc__)
        line = property(lambda self: self[2].doc.line_of(self[0] + self[2].base), doc=Span.line.__doc__)
        col = property(lambda self: self[2].doc.col_of(self[0] + self[2].base), doc=Span.col.__doc__)
        end_line = property(lambda self: self[2].doc.line_of(self[1] + self[2].base), doc=Span.end_line.__doc__)
        end_col = property(lambda self: self[2].doc.col_of(self[1] + self[2].base), doc=Span.end_col.__doc__)

    def _values(self) -> tuple[int, int, int, int, int, int]:
        relative_start, relative_end, part = self
        start, end = relative_start + part.base, relative_end + part.base
        return (start, end, *part.doc.line_col(start), *part.doc.line_col(end))


def moving_with(anchor: Span, span: Span) -> Span:
    """`span`, made to move with the step that `anchor` belongs to when `anchor` moves with one (a StepIndex made
    it); else `span` itself."""
    if type(anchor) is _RelativeSpan:
        part: StepIndex = anchor[2]
        return part.span(span.start, span.end)
    return span
