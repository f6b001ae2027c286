"""Compose a new version of a document without the YAML of the steps it did not change: each such step's text
becomes a one-character placeholder of the same length and lines, so every other position stays put and the
step compiler takes the step from its cache (`compile.reuse`)."""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterator
from itertools import pairwise

import yaml

from lobsterlang.compile.reuse import StepCache
from lobsterlang.span import LineIndex
from lobsterlang.syntax.nodes import may_anchor
from lobsterlang.syntax.sourcelayout import item_start
from lobsterlang.syntax.yamlload import STR_TAG, compose_yaml

PLACEHOLDER = "x"
_UNSAFE = re.compile("[#\x85\u2028\u2029]|\r(?!\n)")
"""In a step's text, what keeps it composed: a comment (the comment survey reads the step's keys around it), or a
line break other than `\\n` and `\\r\\n` (the placeholder keeps those alone)."""
_MAY_BE_UNSAFE = re.compile("[#\x85\u2028\u2029\r]")
"""Where an `_UNSAFE` match can start: one search of the whole text finds the steps worth searching (a character
class is searched fast; `_UNSAFE`, an alternation, reads every character of every step)."""


class LeftOutStepChanged(Exception):
    """A step that was left out must be compiled after all (the ids before it changed); compose everything."""


def compose_leaving_out(text: str, index: LineIndex, cache: StepCache) -> yaml.Node | None:
    """The document with the unchanged steps of `cache`'s last version left out (their spans in
    `cache.left_out`), or None when there is none to leave out (then compose the text itself).

    Raises LeftOutStepChanged when the placeholders do not stand as the steps they replace (an edit made
    them part of something else, or made the text invalid): compose the text itself, which says why.
    """
    cache.left_out = {}
    regions = list(_unchanged(cache.source, cache.regions, text))
    if not regions:
        return None
    pieces: list[str] = []
    at = 0
    for start, end in regions:
        pieces += (text[at:start], PLACEHOLDER, _blank(text[start + 1 : end]))
        at = end
    pieces.append(text[at:])
    root, problems = compose_yaml("".join(pieces), index)
    if problems or not _in_place(root, regions, text):
        raise LeftOutStepChanged
    cache.left_out = dict(regions)
    return root


def _unchanged(old: str, regions: list[tuple[int, int]], new: str) -> Iterator[tuple[int, int]]:
    """Where the steps of `old` (by `regions`: each step's start and where the next token begins) stand in
    `new` unchanged, with the start of the step after them unchanged too. Never the last step, nor a step
    whose text holds what a placeholder cannot replace (`_UNSAFE`, or an anchor another may repeat)."""
    if not regions:
        return
    marks = [found.start() for found in _MAY_BE_UNSAFE.finditer(new)]
    prefix = _common_prefix(old, new)
    suffix = _common_suffix(old, new, min(len(old), len(new)) - prefix)
    moved, tail = len(new) - len(old), len(old) - suffix
    for (start, end), (next_start, _) in pairwise(regions):
        if next_start <= prefix:
            found = (start, end)
        elif start >= tail:
            found = (start + moved, end + moved)
        else:
            continue
        if found[1] - found[0] > 1 and not _unsafe(new, marks, *found) and not may_anchor(new, *found):
            yield found


def _unsafe(text: str, marks: list[int], start: int, end: int) -> bool:
    """Whether `_UNSAFE` matches in `text[start:end]`, searched only when one of `marks` (where a match can start) is there."""
    at = bisect_left(marks, start)
    return at < len(marks) and marks[at] < end and _UNSAFE.search(text, start, end) is not None


def _common_prefix(a: str, b: str) -> int:
    """The length of the longest common prefix, comparing halves (C-speed string equality)."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        middle = (low + high + 1) // 2
        if a[low:middle] == b[low:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def _common_suffix(a: str, b: str, limit: int) -> int:
    """The length of the longest common suffix, at most `limit`."""
    low, high = 0, limit
    while low < high:
        middle = (low + high + 1) // 2
        if a[len(a) - middle : len(a) - low] == b[len(b) - middle : len(b) - low]:
            low = middle
        else:
            high = middle - 1
    return low


def _blank(text: str) -> str:
    """Spaces for every character but line breaks (`\\n`, `\\r\\n`)."""
    if "\r" not in text:
        return "\n".join(map(" ".__mul__, map(len, text.split("\n"))))
    return "\n".join(" " * (len(line) - 1) + "\r" if line.endswith("\r") else " " * len(line) for line in text.split("\n"))


def _in_place(root: yaml.Node | None, regions: list[tuple[int, int]], text: str) -> bool:
    """Whether every placeholder is a plain item of the top-level block `steps:` list, where its step stood, followed
    by another item with no `#` before it: the comment survey then reads none of the step's keys
    (`syntax.comments`), which the placeholder does not have."""
    if not isinstance(root, yaml.MappingNode):
        return False
    steps = [value for key, value in root.value if isinstance(key, yaml.ScalarNode) and key.value == "steps"]
    if len(steps) != 1 or not isinstance(steps[0], yaml.SequenceNode) or steps[0].flow_style is not False:
        return False  # the comment survey reads every key of a flow list
    items = steps[0].value
    placed = {
        item.start_mark.index for item, after in pairwise(items)
        if _is_placeholder(item) and text.find("#", item.start_mark.index, item_start(text, after.start_mark.index)) == -1
    }
    return all(start in placed for start, _ in regions)


def _is_placeholder(node: yaml.Node) -> bool:
    return type(node) is yaml.ScalarNode and node.value == PLACEHOLDER and not node.style and node.tag == STR_TAG
