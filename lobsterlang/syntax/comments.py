"""Find the `#` comments of a YAML document and what each belongs to, so the IR (and the formatter) keeps them."""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from operator import itemgetter

import yaml

from lobsterlang import ir
from lobsterlang.span import LineIndex
from lobsterlang.syntax.nodes import key_text, needs_graph_check
from lobsterlang.syntax.sourcelayout import LINE_BREAKS, item_start
from lobsterlang.syntax.yamlload import STR_TAG

_BREAK = re.compile(f"[{LINE_BREAKS}]")
_OTHER_BREAKS = re.compile(f"[{LINE_BREAKS.replace(chr(10), '')}]")

_Entry = tuple[int, int, ir.CommentPath]
"""(start offset, depth, path) of a mapping key or a sequence item (a block list item starts at its dash)."""


def find_comments(root: yaml.Node | None, text: str, index: LineIndex) -> tuple[ir.Comment, ...]:
    """Every comment outside scalars: a `#` at a line start or after whitespace, to end of line."""
    if "#" not in text:
        return ()
    candidates: list[tuple[int, int]] = []
    _scan_gap(text, 0, len(text), candidates)
    root_start = root.start_mark.index if root is not None else len(text)
    if all(start < root_start for start, _ in candidates):  # a header only: no scalar can hide them
        return tuple(ir.Comment(text[s:e], index.span(s, e)) for s, e in candidates)
    hidden, entries = _survey(root, text, [start for start, _ in candidates])
    found = [c for c in candidates if c[0] not in hidden]
    starts = [e[0] for e in entries]
    return tuple(
        ir.Comment(text[s:e], index.span(s, e), *_belongs_to(text, s, root_start, entries, starts)) for s, e in found
    )


def _belongs_to(
    text: str, pos: int, root_start: int, entries: list[_Entry], starts: list[int]
) -> tuple[ir.CommentPath, ir.CommentPlacement]:
    """Trailing comments belong to the last entry begun before them; others to the next entry,
    unless indented deeper than it: then they end the block above, after its last entry at their column."""
    line_start = _line_start(text, pos)
    if text[line_start:pos].strip():
        before = bisect_left(starts, pos) - 1
        return (entries[before][2], "trailing") if before >= 0 else ((), "before")
    if pos < root_start:
        return (), "before"
    after = bisect_right(starts, pos)
    column = pos - line_start
    next_column = _column(text, entries[after][0]) if after < len(entries) else 0
    if column > next_column:
        owner = _last_at_or_left_of(text, column, entries[:after])
        if owner is not None:
            return owner, "after"
    return (entries[after][2], "before") if after < len(entries) else ((), "end")


def _line_start(text: str, pos: int) -> int:
    start = text.rfind("\n", 0, pos) + 1
    other = _OTHER_BREAKS.findall(text, start, pos)
    return start if not other else text.rfind(other[-1], start, pos) + 1


def _line_end(text: str, pos: int, end: int) -> int:
    found = _BREAK.search(text, pos, end)
    return end if found is None else found.start()


def _column(text: str, pos: int) -> int:
    return pos - _line_start(text, pos)


def _last_at_or_left_of(text: str, column: int, entries: list[_Entry]) -> ir.CommentPath | None:
    """The path of the last of `entries` that starts at or left of `column`."""
    for start, _, path in reversed(entries):
        if _column(text, start) <= column:
            return path
    return None


def _survey(root: yaml.Node | None, text: str, candidates: list[int]) -> tuple[set[int], list[_Entry]]:
    """One walk: which of the (sorted) `candidates` lie inside scalar text, and every entry in document order.

    Entries are mapping keys and sequence items (an item sorts before its first key). A block
    scalar's text starts after its header line, which may hold a comment (`|-  # note`).
    """
    hidden: set[int] = set()
    entries: list[_Entry] = []
    seen: set[int] | None = set() if needs_graph_check(text) else None  # only an alias puts a node in two places
    stack: list[tuple[yaml.Node, ir.CommentPath]] = [(root, ())] if root is not None else []
    scalar = yaml.ScalarNode
    count = len(candidates)
    while stack:
        node, path = stack.pop()
        if seen is not None:
            if id(node) in seen:
                continue
            seen.add(id(node))
        if type(node) is scalar:
            first = bisect_left(candidates, node.start_mark.index)  # most scalars hold no candidate
            if first < count and candidates[first] < node.end_mark.index:
                _hide(node, text, candidates, hidden)
        elif isinstance(node, yaml.MappingNode):
            depth, pairs = len(path) + 1, node.value
            starts = [key.start_mark.index for key, _ in pairs]
            skips = _skippable(node, starts, candidates) if seen is None else None
            for j, (key, value) in enumerate(pairs):
                plain = type(key) is scalar and key.tag == STR_TAG
                child = (*path, key.value if plain else key_text(key))
                entries.append((starts[j], depth, child))
                if type(key) is scalar:
                    first = bisect_left(candidates, starts[j])
                    if first < count and candidates[first] < key.end_mark.index:
                        _hide(key, text, candidates, hidden)
                if skips is None or not skips[j]:
                    stack.append((value, child))
        elif isinstance(node, yaml.SequenceNode):
            depth, items = len(path) + 1, node.value
            starts = [item_start(text, item.start_mark.index) for item in items]
            skips = _skippable(node, starts, candidates) if seen is None else None
            for j, item in enumerate(items):
                child = (*path, j)
                entries.append((starts[j], depth, child))
                if skips is None or not skips[j]:
                    stack.append((item, child))
    entries.sort(key=_ORDER)
    return hidden, entries


_ORDER = itemgetter(0, 1)


def _skippable(node: yaml.MappingNode | yaml.SequenceNode, starts: list[int], candidates: list[int]) -> list[bool] | None:
    """Which children of a block collection need no walk: those, but the last, with no candidate between their
    entry and the next child's. Nothing in them can hide a candidate or own one: a comment after them is after
    a sibling at their column, and their own entries, at that column or right of it, come before that sibling.
    None for a flow collection, whose entries may stand at any column."""
    if node.flow_style is not False:
        return None
    count = len(candidates)
    skips = []
    for j in range(len(starts) - 1):
        first = bisect_left(candidates, starts[j])
        skips.append(first == count or candidates[first] >= starts[j + 1])
    skips.append(False)
    return skips


def _hide(node: yaml.ScalarNode, text: str, candidates: list[int], hidden: set[int]) -> None:
    """Add the candidates inside the scalar's text to `hidden` (the caller saw one within its marks)."""
    start, end = _scalar_range(node, text)
    for pos in candidates[bisect_left(candidates, start) : bisect_left(candidates, end)]:
        hidden.add(pos)


def _scalar_range(node: yaml.ScalarNode, text: str) -> tuple[int, int]:
    start, end = node.start_mark.index, node.end_mark.index
    if node.style in ("|", ">"):
        newline = _line_end(text, start, end)
        start = newline if newline < end else start
    return start, end


def _scan_gap(text: str, start: int, end: int, out: list[tuple[int, int]]) -> None:
    pos = text.find("#", start, end)
    while pos != -1:
        if pos == 0 or text[pos - 1] in " \t" or text[pos - 1] in LINE_BREAKS or (pos == 1 and text[0] == "\ufeff"):
            stop = _line_end(text, pos, end)
            out.append((pos, stop))
            pos = text.find("#", stop, end)
        else:
            pos = text.find("#", pos + 1, end)
