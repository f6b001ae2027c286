"""Flatten a workflow into units (steps, parallel branches, for_each sub-steps) in run order."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Literal

from lobsterlang import ir
from lobsterlang.record import Record
from lobsterlang.span import Span

UnitKind = Literal["step", "branch", "substep"]
Action = ir.ShellRun | ir.PipelineRun | ir.WorkflowCall | ir.Parallel | ir.ForEach


class Unit(Record):
    """Something that runs: a top-level step, a branch of a parallel step, or a for_each sub-step.

    `index` is the position of the top-level step that owns it; `loop` is the enclosing
    for_each (sub-steps only); `position` orders sub-steps within their loop.
    """

    id: str
    kind: UnitKind
    action: Action | None
    stdin: ir.Stdin | None
    env: tuple[ir.EnvVar, ...] | None
    cwd: ir.Template | None
    when: ir.Condition | None
    step: ir.Step
    index: int
    position: int
    loop: ir.ForEach | None
    span: Span
    id_span: Span


def units(workflow: ir.Workflow) -> Iterator[Unit]:
    """Every unit, parents before their branches and sub-steps."""
    for index, step in enumerate(workflow.steps):
        yield _step_unit(step, index)
        action = step.action
        if isinstance(action, ir.Parallel):
            for position, branch in enumerate(action.branches):
                yield _branch_unit(branch, step, index, position)
        elif isinstance(action, ir.ForEach):
            for position, sub in enumerate(action.steps):
                yield Unit(sub.id, "substep", sub.action, sub.stdin, sub.env, sub.cwd, sub.when, step, index, position,
                           action, sub.span, sub.id_span)


def _step_unit(step: ir.Step, index: int) -> Unit:
    return Unit(step.id, "step", step.action, step.stdin, step.env, step.cwd, step.when, step, index, 0, None,
                step.span, step.id_span)


def _branch_unit(branch: ir.Branch, step: ir.Step, index: int, position: int) -> Unit:
    return Unit(branch.id, "branch", branch.action, branch.stdin, branch.env, branch.cwd, None, step, index, position,
                None, branch.span, branch.id_span)


def templates(unit: Unit) -> Iterator[tuple[ir.Template, str]]:
    """The templates a unit renders at run time, each with the field it sits in."""
    action = unit.action
    if isinstance(action, ir.ShellRun):
        yield action.command, action.key
    elif isinstance(action, ir.PipelineRun):
        yield action.template, "pipeline"
    elif isinstance(action, ir.WorkflowCall):
        yield action.path, "workflow"
        for arg in action.args or ():
            if arg.template is not None:
                yield arg.template, "workflow_args"
    for env in unit.env or ():
        if env.template is not None:
            yield env.template, "env"
    if isinstance(unit.stdin, ir.StdinTemplate):
        yield unit.stdin.template, "stdin"


def condition_refs(condition: ir.Condition | None) -> Iterator[ir.StepRef]:
    if isinstance(condition, ir.ExprCondition):
        yield from expr_refs(condition.expr)


def expr_nodes(expr: ir.Expr) -> Iterator[ir.Expr]:
    """Every node of a condition expression, each before its operands."""
    yield expr
    if isinstance(expr, ir.Not):
        yield from expr_nodes(expr.operand)
    elif isinstance(expr, ir.Compare | ir.Logical):
        yield from expr_nodes(expr.left)
        yield from expr_nodes(expr.right)


def expr_refs(expr: ir.Expr) -> Iterator[ir.StepRef]:
    return (node for node in expr_nodes(expr) if isinstance(node, ir.StepRef))


def data_refs(unit: Unit) -> Iterator[tuple[ir.StepRef, str]]:
    """Every `$step.path` the unit reads, with the field it sits in (conditions excluded)."""
    if isinstance(unit.stdin, ir.StdinRef):
        yield unit.stdin.ref, "stdin"
    if isinstance(unit.action, ir.ForEach):
        source = unit.action.source
        if isinstance(source, ir.StdinRef):
            yield source.ref, "for_each"
        elif isinstance(source, ir.StdinTemplate):
            yield from ((p, "for_each") for p in source.template.parts if isinstance(p, ir.StepRef))
    for template, field in templates(unit):
        for part in template.parts:
            if isinstance(part, ir.StepRef):
                yield part, field


def stages(unit: Unit) -> tuple[ir.Stage, ...]:
    """The parsed pipeline stages of a `pipeline:` unit (empty otherwise)."""
    action = unit.action
    if isinstance(action, ir.PipelineRun) and action.pipeline is not None:
        return action.pipeline.stages
    return ()
