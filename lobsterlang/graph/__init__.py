"""`lobster graph`: draw a workflow's steps and data flow as Mermaid, DOT or text, from its IR."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lobsterlang import ir
from lobsterlang.graph.model import Edge, Graph, Node, build_graph
from lobsterlang.graph.render import RENDERERS

FORMATS = tuple(RENDERERS)

__all__ = ["FORMATS", "Edge", "Graph", "Node", "build_graph", "render_graph"]


def render_graph(workflow: ir.Workflow, fmt: str = "mermaid", given: Mapping[str, Any] | None = None) -> str:
    """The text `lobster graph --format FMT` prints, without the final newline. Labels show the file's text; `given`
    (`--args-json`) fills in the values of the args it names."""
    return RENDERERS[fmt](build_graph(workflow, given or {}))
