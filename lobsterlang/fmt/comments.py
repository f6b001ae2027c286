"""Put each comment back beside what it belongs to: before its entry, at the end of its line, or at the file's end."""

from __future__ import annotations

from lobsterlang import ir
from lobsterlang.fmt.layout import Line, Path


class _Placed:
    """Comments gathered per output line, plus the file's header and footer."""

    def __init__(self) -> None:
        self.header: list[str] = []
        self.footer: list[str] = []
        self.before: dict[int, list[str]] = {}
        self.trailing: dict[int, str] = {}


def with_comments(lines: list[Line], comments: tuple[ir.Comment, ...], header_gap: bool) -> list[str]:
    """The rendered lines with every comment in place; `header_gap` puts a blank line after the header."""
    placed = _place(lines, comments)
    out = list(placed.header)
    if out and header_gap:
        out.append("")
    for number, line in enumerate(lines):
        out.extend(" " * line.indent + text for text in placed.before.get(number, ()))
        rendered = line.render()
        trailing = placed.trailing.get(number)
        out.append(rendered + "  " + trailing if trailing else rendered)
    out.extend(placed.footer)
    return out


def _place(lines: list[Line], comments: tuple[ir.Comment, ...]) -> _Placed:
    first_line = _first_lines(lines)
    placed = _Placed()
    for comment in comments:
        if comment.placement == "end":
            placed.footer.append(comment.text)
            continue
        number = _resolve(first_line, comment.path)
        if number is None:
            placed.header.append(comment.text)
        elif comment.placement == "trailing" and number not in placed.trailing:
            placed.trailing[number] = comment.text
        else:
            placed.before.setdefault(number, []).append(comment.text)
    return placed


def _first_lines(lines: list[Line]) -> dict[Path, int]:
    first: dict[Path, int] = {}
    for number, line in enumerate(lines):
        for path in line.paths:
            first.setdefault(path, number)
    return first


def _resolve(first_line: dict[Path, int], path: Path) -> int | None:
    """The line of the entry at `path`, or of its nearest written ancestor; None for the file header."""
    while path:
        if path in first_line:
            return first_line[path]
        path = path[:-1]
    return None


def header_gap(workflow: ir.Workflow) -> bool:
    """Whether the source had a blank line between its header comments and its first key."""
    header = [c for c in workflow.comments if c.placement == "before" and not c.path]
    return bool(header) and header[-1].span.end_line < workflow.span.line - 1

