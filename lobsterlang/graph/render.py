"""Render a workflow graph as Mermaid, Graphviz DOT or plain text, escaping every label."""

from __future__ import annotations

import re

from lobsterlang.graph.model import Graph
from lobsterlang.terminal import visible

_NOT_KEY = re.compile(r"[^A-Za-z0-9_]")
_MERMAID_ESCAPES = {
    "&": "&amp;", '"': "&quot;", "<": "&lt;", ">": "&gt;", "\\": "#92;",
    "|": "#124;", "#": "#35;", "%": "#37;", "\ufb02": "#64258;", "\xb6": "#182;",
}
"""HTML entities, and Mermaid's own `#code;` entities where an HTML one would not survive.

Mermaid turns `#code;` into `&#code;` when it draws, so `&#124;` would show as `&|`: numeric
codes are written without the `&`. `#` itself is escaped, so user text cannot form such a code;
`%` is, so `%%{init: …}%%` and `%%` comments cannot appear; `\\` is, so a `\\n` in a command
is not drawn as a line break; `ﬂ` and `¶` are the characters Mermaid's placeholders for entities
are made of.
"""
MERMAID_LINE_BREAK = "\\n"
"""What Mermaid draws as a line break inside a label (the label's own backslashes are escaped)."""
DOT_LINE_BREAK = "\\n"
"""Graphviz's escape for a centred line break inside a label string."""
_OBJECT_NAMES = frozenset({
    "__proto__", "constructor", "hasOwnProperty", "isPrototypeOf", "propertyIsEnumerable", "toLocaleString", "toString",
    "valueOf", "__defineGetter__", "__defineSetter__", "__lookupGetter__", "__lookupSetter__",
})
"""Names Mermaid's layout cannot use as node keys (it keeps nodes in plain objects: `__proto__` or `toString` fails)."""
_EDGE_ESCAPES = {**_MERMAID_ESCAPES, "(": "#40;", ")": "#41;", "[": "#91;", "]": "#93;", "{": "#123;", "}": "#125;"}
"""Edge labels are not quoted (`-->|label|`, as the reference writes them): brackets are syntax there."""


def mermaid_key(step_id: str) -> str:
    """The id with characters outside [A-Za-z0-9_] (per UTF-16 unit) replaced by `_`."""
    return "".join("__" if ord(ch) > 0xFFFF else _NOT_KEY.sub("_", ch) for ch in step_id)


def mermaid_keys(ids: list[str]) -> dict[str, str]:
    """A unique Mermaid node key for each id; a collision appends `_2`, `_3`… to the bare key. A key that would
    start with a digit or be a name of JavaScript's Object.prototype gets `s_` before it."""
    keys: dict[str, str] = {}
    used: set[str] = set()
    for step_id in ids:
        base = mermaid_key(step_id)
        key = "s_" + base if (base[:1].isdigit() and base[:1].isascii()) or base in _OBJECT_NAMES else base
        n = 2
        while key in used:
            key, n = f"{base}_{n}", n + 1
        used.add(key)
        keys[step_id] = key
    return keys


def mermaid_label(text: str) -> str:
    """A node label (inside `["…"]`) whose every character Mermaid shows as written."""
    return "".join(_MERMAID_ESCAPES.get(ch, ch) for ch in text)


def mermaid_edge_label(text: str) -> str:
    """An edge label (inside `-->|…|`) whose every character Mermaid shows as written."""
    return "".join(_EDGE_ESCAPES.get(ch, ch) for ch in text)


def render_mermaid(graph: Graph) -> str:
    keys = mermaid_keys([n.id for n in graph.nodes])
    lines = ["flowchart TD"]
    for node in graph.nodes:
        label = MERMAID_LINE_BREAK.join(mermaid_label(line) for line in node.lines)
        lines.append(f'  {keys[node.id]}{{"{label}"}}' if node.diamond else f'  {keys[node.id]}["{label}"]')
    if graph.nodes:
        lines.append("")
    for edge in graph.edges:
        label = MERMAID_LINE_BREAK.join(mermaid_edge_label(line) for line in edge.lines)
        lines.append(f"  {keys[edge.source]} -->|{label}| {keys[edge.target]}")
    return "\n".join(lines)


def dot_quote(text: str) -> str:
    """A DOT string literal: backslashes and double quotes escaped."""
    return '"' + _dot_escaped(text) + '"'


def dot_label(lines: tuple[str, ...]) -> str:
    """A DOT label string that Graphviz draws as these lines: `&` is written `&amp;`, as Graphviz reads HTML
    entities (`&lt;`, `&#35;`) in labels."""
    return '"' + DOT_LINE_BREAK.join(_dot_escaped(line.replace("&", "&amp;")) for line in lines) + '"'


def _dot_escaped(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def render_dot(graph: Graph) -> str:
    lines = ["digraph workflow {", "  rankdir=TB;"]
    for node in graph.nodes:
        shape = "diamond" if node.diamond else "box"
        lines.append(f"  {dot_quote(node.id)} [shape={shape},label={dot_label(node.lines)}];")
    if graph.nodes:
        lines.append("")
    lines += [f"  {dot_quote(e.source)} -> {dot_quote(e.target)} [label={dot_label(e.lines)}];" for e in graph.edges]
    lines.append("}")
    return "\n".join(lines)


def render_ascii(graph: Graph) -> str:
    """One line per node (its details whole) and per edge; control characters from the file escaped."""
    lines = ["Workflow Graph", "", "Nodes:"]
    for node in graph.nodes:
        lines.append(f"- {node.id} [{node.kind_text}] ({node.details})" if node.details else f"- {node.id} [{node.kind_text}]")
    lines += ["", "Edges:"]
    lines += [f"- {e.source} -> {e.target} ({e.label})" for e in graph.edges] or ["- (none)"]
    return "\n".join(visible(line) for line in lines)


RENDERERS = {"mermaid": render_mermaid, "dot": render_dot, "ascii": render_ascii}
