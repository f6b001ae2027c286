"""Put each comment back beside what it belongs to: before its entry, at the end of its line, or at the file's end."""

from __future__ import annotations

from lobsterlang import ir
from lobsterlang.fmt.layout import Layout, Path


class _Placed:
    """Comments gathered per output line, plus the file's header and footer."""

    def __init__(self) -> None:
        self.header: list[str] = []
        self.footer: list[str] = []
        self.before: dict[int, list[str]] = {}
        self.trailing: dict[int, str] = {}


def with_comments(layout: Layout, comments: tuple[ir.Comment, ...], header_gap: bool) -> list[str]:
    """The rendered lines with every comment in place; `header_gap` puts a blank line after the header."""
    placed = _place(layout, comments)
    gap = [""] if placed.header and header_gap else []
    return [*placed.header, *gap, *_attached(layout.lines, placed), *placed.footer]


def _place(layout: Layout, comments: tuple[ir.Comment, ...]) -> _Placed:
    placed = _Placed()
    for comment in comments:
        if comment.placement == "end":
            placed.footer.append(comment.text)
            continue
        number = _resolve(layout, comment.path)
        if number is None:
            placed.header.append(comment.text)
        elif comment.placement == "trailing" and number not in placed.trailing:
            placed.trailing[number] = comment.text
        else:
            placed.before.setdefault(number, []).append(comment.text)
    return placed


def _attached(lines: list[str], placed: _Placed) -> list[str]:
    """The lines with comments before them and at their ends (from the last line up, so numbers stay valid)."""
    out = list(lines)
    for number in sorted(placed.before.keys() | placed.trailing.keys(), reverse=True):
        line = out[number]
        trailing = placed.trailing.get(number)
        if trailing:
            out[number] = line + "  " + trailing
        pad = " " * (len(line) - len(line.lstrip(" ")))
        out[number:number] = [pad + text for text in placed.before.get(number, ())]
    return out


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
