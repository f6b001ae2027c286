"""What is written at an offset: a step id or arg (definition or reference), a sub-workflow arg, a pipeline command or flag, a key."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Literal

from lobsterlang import ir
from lobsterlang.query.names import Occurrence, call_args, occurrences
from lobsterlang.record import Record

HitKind = Literal["step", "arg", "call_arg", "command", "flag", "key"]

_KEY_RE = re.compile(r"[ \t]*(?:-[ \t]+)?(\$?[A-Za-z_][A-Za-z0-9_]*)[ \t]*:")


class Hit(Record):
    """The thing at an offset: `name` written at `start`..`end`.

    `detail` is the command of a flag, the sub-workflow path of a call arg, and for a step or arg
    whether this spot is its `definition` or a `reference`.
    """

    kind: HitKind
    name: str
    start: int
    end: int
    detail: str = ""


def at_offset(workflow: ir.Workflow, text: str, offset: int, named: list[Occurrence] | None = None) -> Hit | None:
    """The innermost named thing whose span holds `offset` (an offset just past a name still counts).

    `named` is `occurrences(workflow, text)` when the caller keeps it (it is worked out otherwise).
    """
    for occ in occurrences(workflow, text) if named is None else named:
        if occ.contains(offset):
            return Hit(occ.kind, occ.name, occ.start, occ.end, occ.role)
    for call in call_args(workflow, text):
        if call.start <= offset <= call.end:
            return Hit("call_arg", call.name, call.start, call.end, call.path)
    return _in_pipeline(workflow, offset) or key_at(text, offset)


def _in_pipeline(workflow: ir.Workflow, offset: int) -> Hit | None:
    for stage in pipeline_stages(workflow):
        name = stage.name
        if name.span.start <= offset <= name.span.end:
            return Hit("command", name.value, name.span.start, name.span.end)
        for arg in stage.args:
            if isinstance(arg, ir.Flag) and arg.name_span.start <= offset <= arg.name_span.end:
                return Hit("flag", arg.name, arg.name_span.start, arg.name_span.end, name.value)
    return None


def pipeline_stages(workflow: ir.Workflow) -> Iterator[ir.Stage]:
    """Every parsed stage of every `pipeline:` in the workflow (steps, branches and loop sub-steps)."""
    for action in actions(workflow):
        if isinstance(action, ir.PipelineRun) and action.pipeline is not None:
            yield from action.pipeline.stages


def actions(workflow: ir.Workflow) -> Iterator[ir.Action]:
    """The action of every step, branch and loop sub-step, parents first."""
    for step in workflow.steps:
        if step.action is None:
            continue
        yield step.action
        if isinstance(step.action, ir.Parallel):
            yield from (b.action for b in step.action.branches if b.action is not None)
        elif isinstance(step.action, ir.ForEach):
            yield from (s.action for s in step.action.steps if s.action is not None)


def key_at(text: str, offset: int) -> Hit | None:
    """The mapping key written on the line of `offset`, if `offset` is on it."""
    line_start = text.rfind("\n", 0, offset) + 1
    found = _KEY_RE.match(text, line_start)
    if found is None or not found.start(1) <= offset <= found.end(1):
        return None
    return Hit("key", found.group(1), found.start(1), found.end(1))
