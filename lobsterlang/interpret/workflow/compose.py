"""`workflow:` steps: run another workflow file with `workflow_args`, detecting cycles."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from lobsterlang import ir
from lobsterlang.interpret.confine import outside_message
from lobsterlang.interpret.pipeline import allowlist
from lobsterlang.interpret.process import Cancellation
from lobsterlang.interpret.values import stringify
from lobsterlang.interpret.workflow.context import Frame, check_required_args, resolve_args
from lobsterlang.interpret.workflow.errors import WorkflowError
from lobsterlang.interpret.workflow.loader import load_workflow
from lobsterlang.interpret.workflow.refs import Record, make_record
from lobsterlang.interpret.workflow.templates import Scope, render

if TYPE_CHECKING:
    from lobsterlang.interpret.workflow.engine import Runner


def child_path(runner: Runner, step: ir.Step, call: ir.WorkflowCall) -> str:
    """The child file: relative to the parent file's directory, canonical, existing, not on the stack."""
    path = os.path.join(runner.frame.directory, render(call.path, runner.scope()))
    if not os.path.exists(path):
        raise WorkflowError(f"Workflow step {step.id} workflow file not found: {os.path.normpath(path)}")
    canonical = os.path.realpath(path)
    outside = outside_message(f"Workflow step {step.id} workflow file", canonical, runner.frame.base_env)
    if outside is not None:
        raise WorkflowError(outside)
    if canonical in runner.frame.stack:
        raise WorkflowError(f"Workflow step {step.id} creates a cycle: {canonical} is already being executed")
    return canonical


def child_args(call: ir.WorkflowCall, scope: Scope) -> dict[str, Any]:
    """`workflow_args`: string values rendered as templates (always strings), others as written."""
    return {a.name: render(a.template, scope) if a.template is not None else a.value for a in call.args or ()}


def run_child(
    runner: Runner, step: ir.Step, call: ir.WorkflowCall, env: dict[str, str], cwd: str, cancel: Cancellation,
) -> Record:
    """Run the child to completion; its gates are refused, its output becomes this step's record."""
    from lobsterlang.interpret.workflow.engine import Runner as ChildRunner

    path = child_path(runner, step, call)
    workflow, _ = load_workflow(path)
    allowlist.check_workflow(workflow, env)
    args = resolve_args(workflow, child_args(call, runner.scope()))
    try:
        check_required_args(workflow, args)
    except WorkflowError as exc:
        raise WorkflowError(f"Workflow step {step.id}: {path}: {exc}") from None
    frame = Frame(
        workflow, path, args, env, cwd, cancel, (*runner.frame.stack, path),
        key_path=(*runner.frame.key_path, step.id),
    )
    outcome = ChildRunner(frame, runner.opts, caller=runner.cost.ledger).run()
    if outcome.halt is not None:
        what = "input" if outcome.halt.is_input else "approval"
        raise WorkflowError(
            f"Workflow step {step.id} sub-workflow halted for {what}. "
            "Sub-workflow approval/input gates are not supported in composition."
        )
    value = outcome.output[0] if len(outcome.output) == 1 else outcome.output
    stdout = "" if not outcome.output else value if isinstance(value, str) else stringify(value)
    return make_record(step.id, stdout, value)
