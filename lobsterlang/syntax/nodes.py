"""Positioned document nodes: safety checks over the node graph and conversion to plain values."""

from __future__ import annotations

import json
import math
from typing import Any

import yaml

from lobsterlang.diagnostics import Diagnostic, Severity
from lobsterlang.span import LineIndex, Span
from lobsterlang.syntax.yamlload import BOOL_TAG, FLOAT_TAG, INT_TAG, MAP_TAG, NULL_TAG, SEQ_TAG, STR_TAG

MAX_DEPTH = 200
MAX_ALIAS_EXPANSION = 100_000
"""Nodes that aliases may add beyond the distinct nodes of the document ("billion laughs")."""

_KNOWN_TAGS = frozenset(
    {NULL_TAG, BOOL_TAG, INT_TAG, FLOAT_TAG, STR_TAG, MAP_TAG, SEQ_TAG}
)


def node_span(node: yaml.Node, index: LineIndex) -> Span:
    """The span of a node from its marks' offsets; its line and column are looked up when read."""
    return index.span(node.start_mark.index, node.end_mark.index)


def needs_graph_check(text: str) -> bool:
    """Only documents with an alias (`*name`) or a tag (`!tag`) can hold what check_graph finds."""
    return _marks_node(text, "*", 0, len(text)) or _marks_node(text, "!", 0, len(text))


def may_anchor(text: str, start: int, end: int) -> bool:
    """Whether `text[start:end]` may name an anchor (`&name` where a node may start)."""
    return _marks_node(text, "&", start, end)


def _marks_node(text: str, mark: str, start: int, end: int) -> bool:
    """Whether `mark` stands where a node may start somewhere in `text[start:end]`."""
    pos = text.find(mark, start, end)
    while pos != -1:
        if _starts_node(text, pos):
            return True
        pos = text.find(mark, pos + 1, end)
    return False


def _starts_node(text: str, pos: int) -> bool:
    """`pos` is where a node may start: a line start, or after `key: `, `- `, `? `, `[`, `{`, `,`."""
    before = pos - 1
    while before >= 0 and text[before] in " \t":
        before -= 1
    if before < 0 or text[before] in "\n[{,":
        return True
    return text[before] in ":-?" and before < pos - 1


def check_graph(root: yaml.Node, index: LineIndex) -> list[Diagnostic]:
    """Reject recursive aliases, alias bombs and deep nesting before anything walks the tree."""
    sizes: dict[int, int] = {}
    on_path: set[int] = set()
    warnings: list[Diagnostic] = []
    stack: list[tuple[yaml.Node, int, bool]] = [(root, 1, False)]
    while stack:
        node, depth, done = stack.pop()
        key = id(node)
        if done:
            on_path.discard(key)
            sizes[key] = 1 + sum(sizes[id(c)] for c in children(node))
            continue
        if key in sizes:
            continue
        if key in on_path:
            return [_error("E005", "recursive YAML alias: a node contains itself", node, index)]
        if depth > MAX_DEPTH:
            hint = "flatten the data: workflow values need no more than a few levels of nesting"
            return [_error("E006", f"value nested deeper than {MAX_DEPTH} levels", node, index, hint)]
        if node.tag not in _KNOWN_TAGS and len(warnings) < 20:
            warnings.append(_unknown_tag(node, index))
        on_path.add(key)
        stack.append((node, depth, True))
        stack.extend((c, depth + 1, False) for c in children(node) if id(c) not in sizes)
    expanded = sizes[id(root)]
    if expanded - len(sizes) > MAX_ALIAS_EXPANSION:
        message = f"YAML aliases expand to {expanded:,} nodes from {len(sizes):,}; refusing (alias bomb)"
        return [_error("E005", message, root, index, "use fewer nested aliases")]
    return warnings


def children(node: yaml.Node) -> list[yaml.Node]:
    """The keys and values of a mapping, the items of a list (nothing for a scalar)."""
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def _error(code: str, message: str, node: yaml.Node, index: LineIndex, hint: str | None = None) -> Diagnostic:
    start = node.start_mark.index
    return Diagnostic(code, Severity.ERROR, message, index.span(start, start + 1), hint=hint)


def _unknown_tag(node: yaml.Node, index: LineIndex) -> Diagnostic:
    message = f"unknown YAML tag {node.tag!r} is ignored; the value is read as plain data"
    return Diagnostic("W010", Severity.WARNING, message, node_span(node, index))


class NestingError(ValueError):
    """A value nested deeper than MAX_DEPTH; `node` is where the limit was crossed."""

    def __init__(self, node: yaml.Node) -> None:
        super().__init__(f"value nested deeper than {MAX_DEPTH} levels")
        self.node = node


def nesting_diagnostic(exc: NestingError, index: LineIndex) -> Diagnostic:
    hint = "flatten the data: workflow values need no more than a few levels of nesting"
    return _error("E006", str(exc), exc.node, index, hint)


def to_value(node: yaml.Node, depth: int = 0) -> Any:
    """Convert a node to plain JSON data (mappings keep the last duplicate key)."""
    if node.tag == STR_TAG and isinstance(node, yaml.ScalarNode):
        return node.value
    if isinstance(node, yaml.ScalarNode):
        return scalar_value(node)
    if depth >= MAX_DEPTH:
        raise NestingError(node)
    if isinstance(node, yaml.SequenceNode):
        return [to_value(child, depth + 1) for child in node.value]
    return {key_text(k): to_value(v, depth + 1) for k, v in node.value}


def key_text(node: yaml.Node) -> str:
    """A mapping key as the reference sees it: scalars by their text, others as JSON."""
    if isinstance(node, yaml.ScalarNode):
        if node.tag == STR_TAG:
            return str(node.value)
        value = scalar_value(node)
        return "" if value is None else value if isinstance(value, str) else _js_string(value)
    return json.dumps(to_value(node), separators=(",", ":"))


def _js_string(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def scalar_value(node: yaml.ScalarNode) -> Any:
    """The typed value of a scalar, by its resolved tag (unknown tags read as strings).

    Strings (most scalars) are the node's text; other values are computed once per node.
    """
    if node.tag == STR_TAG:
        return node.value
    try:
        return node.__dict__["_lobster_value"]
    except KeyError:
        value = node.__dict__["_lobster_value"] = _typed(node.tag, node.value)
        return value


def _typed(tag: str, text: str) -> Any:
    try:
        if tag == NULL_TAG:
            return None
        if tag == BOOL_TAG:
            return text.lower() == "true"
        if tag == INT_TAG:
            return _int(text)
        if tag == FLOAT_TAG:
            return _float(text)
    except ValueError:
        return text
    return text


def _int(text: str) -> int:
    body = text.lstrip("+-")
    sign = -1 if text.startswith("-") else 1
    if body.startswith("0o"):
        return sign * int(body[2:], 8)
    if body.startswith("0x"):
        return sign * int(body[2:], 16)
    return sign * int(body)


def _float(text: str) -> float | int | None:
    """A YAML/JSON float as JavaScript holds it: integral values are plain integers, and
    .inf/.nan (or an overflowing literal) become null, as JSON.stringify writes them."""
    if text.lower().endswith((".inf", ".nan")):
        return None
    value = float(text)
    if not math.isfinite(value):
        return None
    return int(value) if value.is_integer() and abs(value) < 2**53 else value
