"""Every place a step id or an arg name is written: its definition and each reference, as exact name spans."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Iterator
from itertools import chain
from pathlib import Path
from typing import Literal

from lobsterlang import ir
from lobsterlang.record import Record

NameKind = Literal["step", "arg"]
Role = Literal["definition", "reference"]


class Occurrence(Record):
    """The name `name` of a step or arg written at `start`..`end`; `field` says where (`id`, `stdin`, `when`, `run`…)."""

    kind: NameKind
    name: str
    start: int
    end: int
    role: Role
    field: str

    def contains(self, offset: int) -> bool:
        return self.start <= offset <= self.end


def occurrences(workflow: ir.Workflow, text: str, among: Iterable[Occurrence] | None = None) -> list[Occurrence]:
    """Every definition and reference of a step id or arg in `workflow` (or only those `among`), in source order,
    without duplicates.

    A `$name` inside a for_each loop that names the loop's item or index variable is not a step reference.
    Only spans whose text is the name itself are returned (an escaped YAML string may not map one to one).
    """
    found = {(o.start, o.end): o for o in (_all(workflow) if among is None else among) if text[o.start : o.end] == o.name}
    return sorted(found.values(), key=lambda o: o.start)


def steps_overlapping(step_starts: list[int], start: int, end: int) -> tuple[int, int]:
    """The slice of the steps (by their start offsets, in order) that `start`..`end` overlaps."""
    return max(0, bisect_right(step_starts, start) - 1), bisect_right(step_starts, end)


def occurrences_in_steps(workflow: ir.Workflow, text: str, first: int, last: int) -> list[Occurrence]:
    """The occurrences in `workflow.steps[first:last]` and at the workflow's level, as `occurrences` lists them."""
    candidates = chain(_workflow_level(workflow), *(_step_occurrences(step) for step in workflow.steps[first:last]))
    return occurrences(workflow, text, candidates)


def references(workflow: ir.Workflow, text: str, kind: NameKind, name: str) -> list[Occurrence]:
    """The definition (if any) and every reference of step or arg `name`."""
    return [o for o in occurrences(workflow, text) if o.kind == kind and o.name == name]


def unmapped(workflow: ir.Workflow, text: str, kind: NameKind, name: str) -> int:
    """How many references to `name` cannot be located exactly in `text` (0 in all but contrived YAML escapes)."""
    return sum(1 for o in _all(workflow) if o.kind == kind and o.name == name and text[o.start : o.end] != name)


def step_ids(workflow: ir.Workflow) -> list[str]:
    """Ids of every step, branch and for_each sub-step."""
    return [node.id for node in _defining(workflow) if not isinstance(node, ir.ArgDecl)]


def _all(workflow: ir.Workflow) -> Iterator[Occurrence]:
    yield from _workflow_level(workflow)
    for step in workflow.steps:
        yield from _step_occurrences(step)


def _workflow_level(workflow: ir.Workflow) -> Iterator[Occurrence]:
    """The arg definitions and the references in the workflow's own `env:` and `cwd:`."""
    for arg in workflow.args or ():
        yield Occurrence("arg", arg.name, arg.name_span.start, arg.name_span.end, "definition", "args")
    yield from _env_refs(workflow.env, (), "env")
    if workflow.cwd is not None:
        yield from _template_refs(workflow.cwd, (), "cwd")


Defining = ir.ArgDecl | ir.Step | ir.Branch
"""What defines a name: an arg declaration, or a step, branch or for_each sub-step (its id)."""


def _defining(workflow: ir.Workflow) -> Iterator[Defining]:
    yield from workflow.args or ()
    for step in workflow.steps:
        yield from _step_defining(step)


def _step_defining(step: ir.Step) -> Iterator[ir.Step | ir.Branch]:
    yield step
    if isinstance(step.action, ir.Parallel):
        yield from step.action.branches
    elif isinstance(step.action, ir.ForEach):
        yield from step.action.steps


def definition(node: Defining) -> Occurrence:
    """The definition of the name `node` defines (not yet checked against the text, as `occurrences` does)."""
    if isinstance(node, ir.ArgDecl):
        return Occurrence("arg", node.name, node.name_span.start, node.name_span.end, "definition", "args")
    return _id(node)


def defining_by_name(workflow: ir.Workflow) -> dict[tuple[NameKind, str], list[Defining]]:
    """What defines each step id and arg, in source order (`definition` of each gives its Occurrence)."""
    found: dict[tuple[NameKind, str], list[Defining]] = {}
    for node in _defining(workflow):
        key: tuple[NameKind, str] = ("arg", node.name) if isinstance(node, ir.ArgDecl) else ("step", node.id)
        found.setdefault(key, []).append(node)
    return found


def _step_occurrences(step: ir.Step) -> Iterator[Occurrence]:
    yield from map(_id, _step_defining(step))
    yield from _step_refs(step, ())


def _id(node: ir.Step | ir.Branch) -> Occurrence:
    start = node.id_span.start
    if node.id_span.end - start == len(node.id) + 2:  # a quoted id
        start += 1
    return Occurrence("step", node.id, start, start + len(node.id), "definition", "id")


def _step_refs(step: ir.Step | ir.Branch, loop_vars: tuple[str, ...]) -> Iterator[Occurrence]:
    action = step.action
    if isinstance(action, ir.ShellRun):
        yield from _template_refs(action.command, loop_vars, action.key)
    elif isinstance(action, ir.PipelineRun):
        yield from _template_refs(action.template, loop_vars, "pipeline")
    elif isinstance(action, ir.WorkflowCall):
        yield from _template_refs(action.path, loop_vars, "workflow")
        for wf_arg in action.args or ():
            if wf_arg.template is not None:
                yield from _template_refs(wf_arg.template, loop_vars, "workflow_args")
    elif isinstance(action, ir.Parallel):
        for branch in action.branches:
            yield from _step_refs(branch, loop_vars)
    elif isinstance(action, ir.ForEach):
        yield from _stdin_refs(action.source, loop_vars, "for_each")
        inner = (*loop_vars, action.item_var or "item", action.index_var or "index")
        for sub in action.steps:
            yield from _step_refs(sub, inner)
    yield from _stdin_refs(step.stdin, loop_vars, "stdin")
    yield from _env_refs(step.env, loop_vars, "env")
    if step.cwd is not None:
        yield from _template_refs(step.cwd, loop_vars, "cwd")
    if isinstance(step, ir.Step) and isinstance(step.when, ir.ExprCondition):
        yield from _expr_refs(step.when.expr, loop_vars, step.when_key or "when")


def _env_refs(env: tuple[ir.EnvVar, ...] | None, loop_vars: tuple[str, ...], field: str) -> Iterator[Occurrence]:
    for var in env or ():
        if var.template is not None:
            yield from _template_refs(var.template, loop_vars, field)


def _stdin_refs(stdin: ir.Stdin | None, loop_vars: tuple[str, ...], field: str) -> Iterator[Occurrence]:
    if isinstance(stdin, ir.StdinRef):
        yield from _step_ref(stdin.ref, loop_vars, field)
    elif isinstance(stdin, ir.StdinTemplate):
        yield from _template_refs(stdin.template, loop_vars, field)


def _template_refs(template: ir.Template, loop_vars: tuple[str, ...], field: str) -> Iterator[Occurrence]:
    for part in template.parts:
        if isinstance(part, ir.ArgRef):
            start = part.span.start + 2  # after `${`
            yield Occurrence("arg", part.name, start, start + len(part.name), "reference", field)
        elif isinstance(part, ir.StepRef):
            yield from _step_ref(part, loop_vars, field)


def _step_ref(ref: ir.StepRef, loop_vars: tuple[str, ...], field: str) -> Iterator[Occurrence]:
    if ref.step not in loop_vars:
        start = ref.span.start + 1  # after `$`
        yield Occurrence("step", ref.step, start, start + len(ref.step), "reference", field)


def _expr_refs(expr: ir.Expr, loop_vars: tuple[str, ...], field: str) -> Iterator[Occurrence]:
    if isinstance(expr, ir.StepRef):
        yield from _step_ref(expr, loop_vars, field)
    elif isinstance(expr, ir.Not):
        yield from _expr_refs(expr.operand, loop_vars, field)
    elif isinstance(expr, (ir.Compare, ir.Logical)):
        yield from _expr_refs(expr.left, loop_vars, field)
        yield from _expr_refs(expr.right, loop_vars, field)


class CallArg(Record):
    """A `workflow_args` key naming arg `name` of the sub-workflow at `path` (as written, relative to the caller)."""

    path: str
    name: str
    start: int
    end: int


def call_args(workflow: ir.Workflow, text: str) -> list[CallArg]:
    """Every `workflow_args` key of the steps that call a sub-workflow with a literal path."""
    found = []
    for step in workflow.steps:
        call = step.action
        if not isinstance(call, ir.WorkflowCall) or call.path.refs:
            continue
        for arg in call.args or ():
            start = arg.span.start + (1 if text.startswith(('"', "'"), arg.span.start) else 0)
            if text[start : start + len(arg.name)] == arg.name:
                found.append(CallArg(call.path.text, arg.name, start, start + len(arg.name)))
    return found


def called_path(caller: str, written: str) -> Path:
    """The file a `workflow:` path names: relative paths are relative to the caller's directory."""
    return (Path(caller).parent / written).resolve()
