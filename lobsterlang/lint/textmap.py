"""Map offsets in a template's text to exact positions in the source file, through its part spans."""

from __future__ import annotations

from collections.abc import Callable

from lobsterlang import ir
from lobsterlang.span import LineIndex, Span, line_index

_SKIPPABLE = frozenset(" \t\r\n\\\"'")


def part_text(part: ir.TemplatePart) -> str:
    """The text a part occupies in `Template.text`."""
    if isinstance(part, ir.Text):
        return part.value
    if isinstance(part, ir.ArgRef):
        return "${" + part.name + "}"
    return part.text


def part_offsets(template: ir.Template) -> list[tuple[int, ir.TemplatePart]]:
    """Each part with the offset where it starts in `template.text`."""
    parts = template.parts
    if len(parts) == 1:
        return [(0, parts[0])]
    out, at = [], 0
    for part in parts:
        out.append((at, part))
        if type(part) is ir.Text:  # the length of part_text(part), the common cases without a call
            at += len(part.value)
        elif type(part) is ir.ArgRef:
            at += len(part.name) + 3
        else:
            at += len(part_text(part))
    return out


def align(value: str, raw: str, at: int) -> int:
    """The index in `raw` that matches index `at` of `value` (0 <= at <= len(value)).

    `raw` is how the value is written in the file: with block indentation, folded line
    breaks, quotes or escapes. Unmatched characters of `raw` are skipped greedily; a stretch
    written as it is (most of each line) is matched in one step.
    """
    i = j = 0
    while i < at:
        end = value.find("\n", i, at)
        end = at if end < 0 else end + 1
        if raw.startswith(value[i:end], j):
            j += end - i
            i = end
            continue
        j = _skip(raw, j, value[i])
        if j < len(raw) and raw[j] == value[i]:
            j += 1
        i += 1
    if at < len(value):
        j = _skip(raw, j, value[at])
    return min(j, len(raw))


def _skip(raw: str, j: int, ch: str) -> int:
    """Past the characters of `raw` from `j` on that can be skipped to reach `ch`."""
    while j < len(raw) and raw[j] != ch and raw[j] in _SKIPPABLE:
        j += 1
    return j


Offsets = Callable[[ir.Template], list[tuple[int, ir.TemplatePart]]]
Placed = tuple[int, int, int, str]
"""One template part placed: its offset in the template's text, its start and end in the file, its text."""


def placed(offsets: list[tuple[int, ir.TemplatePart]]) -> tuple[Placed, ...]:
    """The parts of `part_offsets(template)` as plain tuples: all a span needs, without the IR."""
    return tuple((start, part.span.start, part.span.end, part_text(part)) for start, part in offsets)


def file_offset(source: str, parts: tuple[Placed, ...], fallback: int, at: int) -> int:
    """The offset in `source` of character `at` of a template placed as `parts` (`fallback`: where it starts)."""
    for start, first, end, text in reversed(parts):
        if at >= start or start == 0:
            raw = source[first:end]
            delta = at - start
            if raw == text:
                return first + min(delta, len(raw))
            return first + align(text, raw, max(0, min(delta, len(text))))
    return fallback


def file_span(index: LineIndex, source: str, parts: tuple[Placed, ...], fallback: int, start: int, end: int) -> Span:
    """The file span of characters `start` to `end` of a template placed as `parts`."""
    first = file_offset(source, parts, fallback, start)
    last = file_offset(source, parts, fallback, max(start, end - 1)) + 1 if end > start else first
    return index.span(first, max(first, last))


class TextMap:
    """Positions inside templates of one source file; `offsets` is `part_offsets` or a cache of it."""

    def __init__(self, source: str, offsets: Offsets = part_offsets) -> None:
        self.source = source
        self.offsets = offsets
        self.index = line_index(source)

    def span(self, template: ir.Template, start: int, end: int) -> Span:
        """The file span of `template.text[start:end]`."""
        return file_span(self.index, self.source, placed(self.offsets(template)), template.span.start, start, end)

    def line_col(self, offset: int) -> tuple[int, int]:
        return self.index.line_col(offset)
