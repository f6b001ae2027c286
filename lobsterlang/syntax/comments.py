"""Find the `#` comments of a YAML document, so the IR (and the formatter) keeps them."""

from __future__ import annotations

import yaml

from lobsterlang import ir
from lobsterlang.span import LineIndex


def find_comments(root: yaml.Node | None, text: str, index: LineIndex) -> tuple[ir.Comment, ...]:
    """Every comment outside scalars: a `#` at a line start or after whitespace, to end of line."""
    if "#" not in text:
        return ()
    comments: list[ir.Comment] = []
    pos = 0
    for start, end in _scalar_ranges(root):
        if start > pos:
            _scan_gap(text, pos, start, index, comments)
        pos = max(pos, end)
    _scan_gap(text, pos, len(text), index, comments)
    return tuple(comments)


def _scalar_ranges(root: yaml.Node | None) -> list[tuple[int, int]]:
    ranges: list[tuple[int, int]] = []
    seen: set[int] = set()
    stack = [root] if root is not None else []
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, yaml.ScalarNode):
            ranges.append((node.start_mark.index, node.end_mark.index))
        elif isinstance(node, yaml.MappingNode):
            stack.extend(n for pair in node.value for n in pair)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
    ranges.sort()
    return ranges


def _scan_gap(text: str, start: int, end: int, index: LineIndex, out: list[ir.Comment]) -> None:
    pos = text.find("#", start, end)
    while pos != -1:
        if pos == 0 or text[pos - 1] in " \t\n\r":
            stop = text.find("\n", pos, end)
            stop = end if stop == -1 else stop
            comment_end = stop - 1 if stop > pos and text[stop - 1] == "\r" else stop
            out.append(ir.Comment(text[pos:comment_end], index.span(pos, comment_end)))
            pos = text.find("#", stop, end)
        else:
            pos = text.find("#", pos + 1, end)
