"""`lobster graph`: draw a workflow's steps and data flow as Mermaid, DOT or text, from its IR."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lobsterlang import ir
from lobsterlang.graph.model import Edge, Graph, Node, build_graph
from lobsterlang.graph.render import RENDERERS

FORMATS = tuple(RENDERERS)

__all__ = ["FORMATS", "Edge", "Graph", "Node", "build_graph", "render_graph", "resolve_args"]


def resolve_args(workflow: ir.Workflow, given: Mapping[str, Any] | None) -> dict[str, Any]:
    """Arg defaults (entries with a `default` key) overlaid with every given key."""
    args = {a.name: a.default for a in workflow.args or () if a.has_default}
    args.update(given or {})
    return args


def render_graph(workflow: ir.Workflow, fmt: str = "mermaid", given: Mapping[str, Any] | None = None) -> str:
    """The text `lobster graph --format FMT` prints, without the final newline."""
    return RENDERERS[fmt](build_graph(workflow, resolve_args(workflow, given)))
