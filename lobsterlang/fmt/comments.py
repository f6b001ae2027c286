"""Put each comment back beside what it belongs to: before or after its entry, at the end of its line, or at the file's end.

When formatting a file (rather than writing IR), a blank line the source had before an entry
or a comment is kept (runs of blank lines become one).
"""

from __future__ import annotations

from lobsterlang import ir
from lobsterlang.fmt.layout import Layout, Path

_Line = tuple[str, bool]
"""A comment line's text (at its indentation) and whether a blank line comes before it."""


class _Placed:
    """Comments gathered per output line, plus the file's header and footer."""

    def __init__(self) -> None:
        self.header: list[_Line] = []
        self.footer: list[_Line] = []
        self.before: dict[int, list[_Line]] = {}
        self.after: dict[int, list[_Line]] = {}
        self.trailing: dict[int, str] = {}


def with_comments(layout: Layout, comments: tuple[ir.Comment, ...], header_gap: bool) -> list[str]:
    """The rendered lines with every comment in place; `header_gap` puts a blank line after the header."""
    placed = _place(layout, comments)
    out: list[str] = []
    for text, blank in placed.header:
        _add(out, text, blank)
    if placed.header and header_gap:
        out.append("")
    _attach(out, layout, placed)
    for text, blank in placed.footer:
        _add(out, text, blank)
    return out


def _add(out: list[str], line: str, blank_before: bool) -> None:
    if blank_before and out and out[-1]:
        out.append("")
    out.append(line)


def _place(layout: Layout, comments: tuple[ir.Comment, ...]) -> _Placed:
    placed = _Placed()
    source = layout.source
    for comment in comments:
        blank = source is not None and source.blank_before(comment.span.line)
        if comment.placement == "end":
            placed.footer.append((comment.text, blank))
            continue
        number = _resolve(layout, comment.path)
        if number is None:
            placed.header.append((comment.text, blank))
        elif comment.placement == "trailing" and number not in placed.trailing:
            placed.trailing[number] = comment.text
        elif comment.placement == "after":
            pad = _indentation(layout.lines[number])
            placed.after.setdefault(_last_line(layout.lines, number), []).append((pad + comment.text, blank))
        else:
            pad = _indentation(layout.lines[number])
            placed.before.setdefault(number, []).append((pad + comment.text, blank))
    return placed


def _attach(out: list[str], layout: Layout, placed: _Placed) -> None:
    """The lines with comments before, after and at the end of them, and the source's blank lines."""
    blank_lines = layout.blank_lines()
    for number, line in enumerate(layout.lines):
        for text, blank in placed.before.get(number, ()):
            _add(out, text, blank)
        trailing = placed.trailing.get(number)
        _add(out, line + "  " + trailing if trailing else line, number in blank_lines)
        for text, blank in placed.after.get(number, ()):
            _add(out, text, blank)


def _indentation(line: str) -> str:
    return " " * (len(line) - len(line.lstrip(" ")))


def _last_line(lines: list[str], first: int) -> int:
    """The last line of the entry that starts on line `first`: lines below it that are indented deeper
    (or empty, inside a block scalar) belong to it."""
    depth = len(_indentation(lines[first]))
    last = first
    for number in range(first + 1, len(lines)):
        line = lines[number]
        if line and len(_indentation(line)) <= depth:
            break
        if line:
            last = number
    return last


def _resolve(layout: Layout, path: Path) -> int | None:
    """The line of the entry at `path`, or of its nearest written ancestor; None for the file header."""
    while path:
        number = layout.line_of(path)
        if number is not None:
            return number
        path = path[:-1]
    return None


def header_gap(workflow: ir.Workflow) -> bool:
    """Whether the source had a blank line between its header comments and its first key."""
    header = [c for c in workflow.comments if c.placement == "before" and not c.path]
    return bool(header) and header[-1].span.end_line < workflow.span.line - 1
