"""What the formatter must not change: a workflow's IR without positions, comments, file name and pipeline spelling."""

from __future__ import annotations

import json
from typing import Any

from lobsterlang import ir
from lobsterlang.record import Record, fields

_POSITIONS = frozenset({"span", "name_span", "id_span", "comments", "source"})
_SPELLING = {ir.Pipeline: "text", ir.Stage: "raw"}


def meaning(workflow: ir.Workflow) -> str:
    """A canonical JSON text of the IR; two workflows mean the same when these are equal.

    Pipelines are compared by their parsed stages, so only their spelling (spacing and quoting)
    may differ; everything else must be identical, values included.
    """
    return json.dumps(_strip(workflow), sort_keys=True, ensure_ascii=True)


def same_meaning(a: ir.Workflow, b: ir.Workflow) -> bool:
    return meaning(a) == meaning(b)


def same_comments(a: ir.Workflow, b: ir.Workflow) -> bool:
    """Whether both hold the same comments (their texts, in any order: the formatter may move a comment, never drop
    or change one)."""
    return sorted(c.text.rstrip() for c in a.comments) == sorted(c.text.rstrip() for c in b.comments)


def _strip(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_strip(item) for item in value]
    if not isinstance(value, Record):
        return value  # plain JSON data as written
    out: dict[str, Any] = {"type": type(value).__name__}
    for name in fields(value):
        if name not in _POSITIONS and name != _SPELLING.get(type(value)) and not _spelled_pipeline(value, name):
            out[name] = _strip(getattr(value, name))
    return out


def _spelled_pipeline(node: Record, name: str) -> bool:
    """The text of a pipeline that parsed: its stages carry the meaning."""
    return isinstance(node, ir.PipelineRun) and name == "template" and node.pipeline is not None
