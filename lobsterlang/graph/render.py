"""Render a workflow graph as Mermaid, Graphviz DOT or plain text, escaping every label."""

from __future__ import annotations

import re

from lobsterlang.graph.model import Graph
from lobsterlang.terminal import visible

_NOT_KEY = re.compile(r"[^A-Za-z0-9_]")
_MERMAID_ESCAPES = {
    "&": "&amp;", '"': "&quot;", "<": "&lt;", ">": "&gt;",
    "|": "#124;", "#": "#35;", "%": "#37;", "\ufb02": "#64258;", "\xb6": "#182;",
}
"""HTML entities, and Mermaid's own `#code;` entities where an HTML one would not survive.

Mermaid turns `#code;` into `&#code;` when it draws, so `&#124;` would show as `&|`: numeric
codes are written without the `&`. `#` itself is escaped, so user text cannot form such a code;
`%` is, so `%%{init: …}%%` and `%%` comments cannot appear; `ﬂ` and `¶` are the characters
Mermaid's placeholders for entities are made of.
"""
_EDGE_ESCAPES = {**_MERMAID_ESCAPES, "(": "#40;", ")": "#41;", "[": "#91;", "]": "#93;", "{": "#123;", "}": "#125;"}
"""Edge labels are not quoted (`-->|label|`, as the reference writes them): brackets are syntax there."""


def mermaid_key(step_id: str) -> str:
    """The id with characters outside [A-Za-z0-9_] (per UTF-16 unit) replaced by `_`."""
    return "".join("__" if ord(ch) > 0xFFFF else _NOT_KEY.sub("_", ch) for ch in step_id)


def mermaid_keys(ids: list[str]) -> dict[str, str]:
    """A unique Mermaid node key for each id; a collision appends `_2`, `_3`… to the bare key."""
    keys: dict[str, str] = {}
    used: set[str] = set()
    for step_id in ids:
        base = mermaid_key(step_id)
        key = "s_" + base if base[:1].isdigit() and base[:1].isascii() else base
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
        label = mermaid_label(node.label)
        lines.append(f'  {keys[node.id]}{{"{label}"}}' if node.diamond else f'  {keys[node.id]}["{label}"]')
    if graph.nodes:
        lines.append("")
    lines += [f"  {keys[e.source]} -->|{mermaid_edge_label(e.label)}| {keys[e.target]}" for e in graph.edges]
    return "\n".join(lines)


def dot_quote(text: str) -> str:
    """A DOT string literal: backslashes and double quotes escaped."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def render_dot(graph: Graph) -> str:
    lines = ["digraph workflow {", "  rankdir=TB;"]
    for node in graph.nodes:
        shape = "diamond" if node.diamond else "box"
        lines.append(f"  {dot_quote(node.id)} [shape={shape},label={dot_quote(node.label)}];")
    if graph.nodes:
        lines.append("")
    lines += [f"  {dot_quote(e.source)} -> {dot_quote(e.target)} [label={dot_quote(e.label)}];" for e in graph.edges]
    lines.append("}")
    return "\n".join(lines)


def ascii_details(label: str) -> str:
    """The reference's text output reads details back from the label: the part after the first `\\n`."""
    parts = label.split("\\n")
    return parts[1] if len(parts) > 1 else ""


def render_ascii(graph: Graph) -> str:
    lines = ["Workflow Graph", "", "Nodes:"]
    for node in graph.nodes:
        details = ascii_details(node.label)
        lines.append(f"- {node.id} [{node.kind_text}] ({details})" if details else f"- {node.id} [{node.kind_text}]")
    lines += ["", "Edges:"]
    lines += [f"- {e.source} -> {e.target} ({e.label})" for e in graph.edges] or ["- (none)"]
    return visible("\n".join(lines), lines=True)  # text for a terminal: control characters from the file escaped


RENDERERS = {"mermaid": render_mermaid, "dot": render_dot, "ascii": render_ascii}
