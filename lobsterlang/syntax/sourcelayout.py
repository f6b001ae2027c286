"""How a YAML workflow file is laid out: the line of each entry, blank lines, and each scalar's style.

The formatter keeps what an author chose on purpose (key order, single blank lines, block or
flow scalars, quote characters); this survey tells it what those choices were.
"""

from __future__ import annotations

import re
from typing import NamedTuple

import yaml

from lobsterlang.span import LineIndex
from lobsterlang.syntax.nodes import children, key_text
from lobsterlang.syntax.yamlload import CoreLoader, compose_yaml

Path = tuple[str | int, ...]

LINE_BREAKS = "\r\n\x85\u2028\u2029"
"""What the YAML reader takes for a line break (YAML 1.1, as pyyaml reads it)."""


class SourceLayout:
    """The layout of one YAML document.

    `lines` maps each entry's path (mapping keys and list indexes from the root) to the
    1-based line it starts on (a block list item at its dash), `offsets` to its offset; `blank` holds the 1-based
    numbers of the blank lines; `styles` maps the path of each scalar value to its style
    (`""` plain, `'`, `"`, `|`, `>`); `folds` maps a folded scalar that is one paragraph to
    the lengths of its lines, so it can be folded at the same places again; `written` maps each
    folded scalar to its lines as written (see `WrittenBlock`); `flow` holds the paths of
    mappings and lists written in flow style (`{a: 1}`, `[a, b]`).
    """

    __slots__ = ("blank", "flow", "folds", "lines", "offsets", "styles", "written")

    def __init__(self) -> None:
        self.lines: dict[Path, int] = {}
        self.offsets: dict[Path, int] = {}
        self.blank: frozenset[int] = frozenset()
        self.styles: dict[Path, str] = {}
        self.folds: dict[Path, tuple[int, ...]] = {}
        self.written: dict[Path, WrittenBlock] = {}
        self.flow: set[Path] = set()

    def blank_before(self, line: int) -> bool:
        """Whether the source line before 1-based `line` is blank."""
        return line - 1 in self.blank


class WrittenBlock(NamedTuple):
    """A folded block scalar as the author wrote it: `header` (`>`, `>-`) and its lines without the
    block's indentation (and without trailing spaces, unless they are part of the value), which
    hold `value` again when indented anew."""

    value: str
    header: str
    lines: tuple[str, ...]


def survey(text: str, root: yaml.Node | None = None, index: LineIndex | None = None) -> SourceLayout | None:
    """The layout of `text` (composed as `root`, when already done), or None when it is not one YAML document."""
    if root is None or index is None:
        index = LineIndex(text)
        root, problems = compose_yaml(text, index)
        if root is None or problems:
            return None
    layout = SourceLayout()
    layout.blank = frozenset(number for number, line in enumerate(text.split("\n"), 1) if not line.strip(" \t\r"))
    _walk(layout, root, text, index)
    return layout


def _walk(layout: SourceLayout, root: yaml.Node, text: str, index: LineIndex) -> None:
    seen: set[int] = set()
    stack: list[tuple[yaml.Node, Path]] = [(root, ())]
    while stack:
        node, path = stack.pop()
        if id(node) in seen:
            continue  # an alias: its value is laid out where the anchor is
        seen.add(id(node))
        if isinstance(node, yaml.ScalarNode):
            _scalar(layout, node, path, text)
        elif isinstance(node, yaml.MappingNode):
            if _plain_flow(node, text):
                layout.flow.add(path)
            for key, value in node.value:
                child = (*path, key_text(key))
                layout.offsets[child] = key.start_mark.index
                layout.lines[child] = index.line_of(key.start_mark.index)
                stack.append((value, child))
        elif isinstance(node, yaml.SequenceNode):
            if _plain_flow(node, text):
                layout.flow.add(path)
            for number, item in enumerate(node.value):
                child = (*path, number)
                layout.lines[child] = index.line_of(item_start(text, item.start_mark.index))
                stack.append((item, child))


def _plain_flow(node: yaml.CollectionNode, text: str) -> bool:
    """A flow collection (`{a: 1}`, `[a, b]`) with no comment inside (one with comments is laid out as a block)."""
    if not node.flow_style:
        return False
    marks = [m.start() for m in _COMMENT.finditer(text, node.start_mark.index, node.end_mark.index)]
    if not marks:
        return True
    scalars = [(n.start_mark.index, n.end_mark.index) for n in _descendants(node) if isinstance(n, yaml.ScalarNode)]
    return all(any(start <= mark < end for start, end in scalars) for mark in marks)


def _descendants(node: yaml.Node) -> list[yaml.Node]:
    found: list[yaml.Node] = []
    stack = [node]
    while stack:
        current = stack.pop()
        found.append(current)
        stack.extend(children(current))
    return found


_COMMENT = re.compile(r"(?:^|(?<=\s))#", re.MULTILINE)


def item_start(text: str, start: int) -> int:
    """Where a list item begins: its dash in a block list (`- `), else where its value starts."""
    before = start - 1
    while before >= 0 and text[before] == " ":
        before -= 1
    return before if before >= 0 and text[before] == "-" else start


def _scalar(layout: SourceLayout, node: yaml.ScalarNode, path: Path, text: str) -> None:
    style = node.style or ""
    layout.styles[path] = style
    if style == ">":
        lengths = _fold_lengths(node, text)
        if lengths is not None:
            layout.folds[path] = lengths
        block = _written_block(node, text)
        if block is not None:
            layout.written[path] = block


_BLOCK_HEADER = re.compile(r">(-?)(?=[ \t]|$)")
"""A folded block's header without an indentation indicator or keep chomping (`>`, `>-`), up to a comment."""


def _written_block(node: yaml.ScalarNode, text: str) -> WrittenBlock | None:
    """The folded block as written, when its lines, indented anew, hold the same value (checked by reading them)."""
    raw = text[node.start_mark.index : node.end_mark.index]
    header_line, newline, body = raw.partition("\n")
    header = _BLOCK_HEADER.match(header_line)
    if header is None or not newline or any(ch in raw for ch in LINE_BREAKS if ch != "\n"):
        return None
    lines = body.split("\n")
    first = next((line for line in lines if line.strip(" ")), None)
    if first is None:
        return None
    depth = len(first) - len(first.lstrip(" "))
    if any(line.strip(" ") and not line.startswith(" " * depth) for line in lines):
        return None
    for tidy in (True, False):  # without trailing spaces where they carry nothing, else as written
        kept = [line.rstrip(" ")[depth:] if tidy else line[depth:] for line in lines]
        while not kept[-1]:  # empty lines after the block (the spaces of a deeper line are kept)
            kept.pop()
        block = WrittenBlock(node.value, ">" + header.group(1), tuple(kept))
        if _reads_back(block):
            return block
    return None


def _reads_back(block: WrittenBlock) -> bool:
    """Whether `block`'s lines under a key read back as its value."""
    snippet = "k: " + block.header + "\n" + "".join(("  " + line if line else "") + "\n" for line in block.lines)
    try:
        read = yaml.load(snippet, Loader=CoreLoader)  # the compiler's own (safe) loader
    except yaml.YAMLError:
        return False
    return isinstance(read, dict) and read.get("k") == block.value



def _fold_lengths(node: yaml.ScalarNode, text: str) -> tuple[int, ...] | None:
    """The lengths of a folded scalar's lines when it is one paragraph that folding joined with single spaces."""
    raw = text[node.start_mark.index : node.end_mark.index]
    header_end = min((i for i in (raw.find(ch) for ch in LINE_BREAKS) if i >= 0), default=-1)
    if header_end < 0:
        return None
    lines = [line.strip(" ") for line in raw[header_end + 1 :].split("\n")]
    lines = [line for line in lines if line]
    if len(lines) < 2 or node.value.rstrip("\n") != " ".join(lines):
        return None
    return tuple(len(line) for line in lines)
