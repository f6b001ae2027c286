"""Flatten a workflow into units (steps, parallel branches, for_each sub-steps) in run order.

IR records are final classes, so the walkers of the linter test `type(node) is ir.X`: on a
Record class (which has a metaclass) `isinstance` costs several times more when it fails.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Literal

from lobsterlang import ir
from lobsterlang.span import Span

UnitKind = Literal["step", "branch", "substep"]
Action = ir.ShellRun | ir.PipelineRun | ir.WorkflowCall | ir.Parallel | ir.ForEach


class Unit:
    """Something that runs: a top-level step, a branch of a parallel step, or a for_each sub-step.

    `index` is the position of the top-level step that owns it; `loop` is the enclosing
    for_each (sub-steps only); `position` orders sub-steps within their loop. `templates`,
    `data_refs`, `arg_refs` and `condition_nodes` are what most rules read, worked out once here. A plain
    slotted class, not a Record: a file has a unit per step, built on every lint.
    """

    __slots__ = (
        "action", "arg_refs", "condition_nodes", "cwd", "data_refs", "env", "gate", "id", "id_span", "index", "kind", "loop",
        "position", "span", "stdin", "step", "templates", "when",
    )

    id: str
    kind: UnitKind
    action: Action | None
    stdin: ir.Stdin | None
    env: tuple[ir.EnvVar, ...] | None
    cwd: ir.Template | None
    when: ir.Condition | None
    gate: Literal["approval", "input"] | None
    """What gate it is itself (`approval:` or `input:`; `step` is the top-level step that owns it)."""
    step: ir.Step
    index: int
    position: int
    loop: ir.ForEach | None
    span: Span
    id_span: Span
    templates: list[tuple[ir.Template, str]]
    """The templates it renders at run time, each with the field it sits in."""
    data_refs: list[tuple[ir.StepRef, str]]
    """Every `$step.path` it reads, with the field it sits in (its condition excluded)."""
    arg_refs: list[ir.ArgRef]
    """Every `${arg}` of its `templates`, in order (its `cwd` excluded)."""
    condition_nodes: list[ir.Expr]
    """The nodes of its expression condition (`expr_nodes`), empty without one."""

    def __init__(self, node: ir.Step | ir.Branch, kind: UnitKind, when: ir.Condition | None, step: ir.Step, index: int,
                 position: int = 0, loop: ir.ForEach | None = None) -> None:
        self.id, self.kind, self.action, self.stdin = node.id, kind, node.action, node.stdin
        self.env, self.cwd, self.when, self.step = node.env, node.cwd, when, step
        self.gate = "approval" if node.approval is not None else "input" if node.input is not None else None
        self.index, self.position, self.loop = index, position, loop
        self.span, self.id_span = node.span, node.id_span
        self.templates = templates(self)
        self.data_refs, self.arg_refs = template_refs(self)
        self.condition_nodes = expr_nodes(when.expr) if type(when) is ir.ExprCondition else []

    def __repr__(self) -> str:
        return f"Unit({self.kind} {self.id!r})"


def units(workflow: ir.Workflow) -> Iterator[Unit]:
    """Every unit, parents before their branches and sub-steps."""
    for index, step in enumerate(workflow.steps):
        yield from step_units(step, index)


def step_units(step: ir.Step, index: int) -> Iterator[Unit]:
    """The units of the top-level step at `index`: the step, then its branches or sub-steps."""
    yield Unit(step, "step", step.when, step, index)
    action = step.action
    if type(action) is ir.Parallel:
        for position, branch in enumerate(action.branches):
            yield Unit(branch, "branch", None, step, index, position)
    elif type(action) is ir.ForEach:
        for position, sub in enumerate(action.steps):
            yield Unit(sub, "substep", sub.when, step, index, position, action)


class UnitCache:
    """For one document: the units of each top-level step of its last lint. A step the compile reused (the same
    IR object, `compile.reuse`) keeps its units; only their `index` is set to where the step now stands."""

    def __init__(self) -> None:
        self._steps: dict[int, tuple[ir.Step, list[Unit]]] = {}

    def units(self, workflow: ir.Workflow) -> list[Unit]:
        """`units(workflow)`, reusing the units of unchanged steps."""
        found: list[Unit] = []
        kept: dict[int, tuple[ir.Step, list[Unit]]] = {}
        for index, step in enumerate(workflow.steps):
            known = self._steps.get(id(step))
            if known is not None and known[0] is step:
                mine = known[1]
                for unit in mine:
                    unit.index = index
            else:
                mine = list(step_units(step, index))
            kept[id(step)] = (step, mine)
            found += mine
        self._steps = kept
        return found


def templates(unit: Unit) -> list[tuple[ir.Template, str]]:
    """`Unit.templates`."""
    action = unit.action
    found: list[tuple[ir.Template, str]]
    if type(action) is ir.ShellRun:
        found = [(action.command, action.key)]
    elif type(action) is ir.PipelineRun:
        found = [(action.template, "pipeline")]
    elif type(action) is ir.WorkflowCall:
        found = [(action.path, "workflow")]
        for arg in action.args or ():
            if arg.template is not None:
                found.append((arg.template, "workflow_args"))
    else:
        found = []
    for env in unit.env or ():
        if env.template is not None:
            found.append((env.template, "env"))
    if type(unit.stdin) is ir.StdinTemplate:
        found.append((unit.stdin.template, "stdin"))
    return found


def expr_nodes(expr: ir.Expr) -> list[ir.Expr]:
    """Every node of a condition expression, each before its operands (left before right)."""
    found: list[ir.Expr] = []
    pending = [expr]
    while pending:
        node = pending.pop()
        found.append(node)
        if type(node) is ir.Not:
            pending.append(node.operand)
        elif type(node) is ir.Compare or type(node) is ir.Logical:
            pending += (node.right, node.left)
    return found


def template_refs(unit: Unit) -> tuple[list[tuple[ir.StepRef, str]], list[ir.ArgRef]]:
    """`Unit.data_refs` and `Unit.arg_refs`, in one pass over the parts of `unit.templates`."""
    found: list[tuple[ir.StepRef, str]] = []
    args: list[ir.ArgRef] = []
    if type(unit.stdin) is ir.StdinRef:
        found.append((unit.stdin.ref, "stdin"))
    if type(unit.action) is ir.ForEach:
        source = unit.action.source
        if type(source) is ir.StdinRef:
            found.append((source.ref, "for_each"))
        elif type(source) is ir.StdinTemplate:
            found += ((p, "for_each") for p in source.template.parts if type(p) is ir.StepRef)
    for template, field in unit.templates:
        for part in template.parts:
            if type(part) is ir.StepRef:
                found.append((part, field))
            elif type(part) is ir.ArgRef:
                args.append(part)
    return found, args


def stages(unit: Unit) -> tuple[ir.Stage, ...]:
    """The parsed pipeline stages of a `pipeline:` unit (empty otherwise)."""
    action = unit.action
    if isinstance(action, ir.PipelineRun) and action.pipeline is not None:
        return action.pipeline.stages
    return ()
