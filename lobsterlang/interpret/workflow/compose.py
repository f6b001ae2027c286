"""`workflow:` steps: run another workflow file with `workflow_args`, detecting cycles."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from lobsterlang import ir
from lobsterlang.interpret.confine import outside_message
from lobsterlang.interpret.pipeline import allowlist
from lobsterlang.interpret.process import Cancellation
from lobsterlang.interpret.values import stringify
from lobsterlang.interpret.workflow.attempt import INSIDE
from lobsterlang.interpret.workflow.context import Frame, check_required_args, resolve_args
from lobsterlang.interpret.workflow.engine import Hooks
from lobsterlang.interpret.workflow.errors import NestedGate, NestedGates, WorkflowError
from lobsterlang.interpret.workflow.loader import load_workflow
from lobsterlang.interpret.workflow.refs import Record, make_record
from lobsterlang.interpret.workflow.templates import Scope, render

if TYPE_CHECKING:
    from lobsterlang.interpret.workflow.engine import Halt, Runner

CONTAINERS = (ir.WorkflowCall, ir.ForEach, ir.Parallel)
"""Between a `workflow:` step's child step and a key inside that step, in the keys of its journaled branches."""


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


class ChildHooks(Hooks):
    """A sub-workflow's steps, journaled as branches of the `workflow:` step that runs it (`<child step>`, and
    `<child step> > <its branch>` inside it): a resumed or retried step replays them instead of running them again."""

    def __init__(self, runner: Runner, step: ir.Step) -> None:
        self.runner = runner
        self.step = step

    def step_started(self, index: int, step: ir.Step) -> None:
        if not isinstance(step.action, CONTAINERS):  # what runs inside a container is journaled on its own
            self.runner.branch_started(self.step, step.id)

    def step_done(self, index: int, step: ir.Step, results: dict[str, Record], last: str | None,
                  spend: Sequence[dict[str, Any]] = ()) -> None:
        branches = step.action.branches if isinstance(step.action, ir.Parallel) else ()
        for key in (*(b.id for b in branches), step.id):
            if key in results:
                self.kept(key, results[key])

    def branch_started(self, index: int, step: ir.Step, key: str) -> None:
        self.runner.branch_started(self.step, f"{step.id}{INSIDE}{key}")

    def branch_done(self, index: int, step: ir.Step, key: str, record: Record,
                    spend: Sequence[dict[str, Any]] = ()) -> None:
        self.kept(f"{step.id}{INSIDE}{key}", record)

    def kept(self, key: str, record: Record) -> None:
        self.runner.branch_done(self.step, key, record)
        self.runner.keep_branch(self.step, key, record)


def child_frame(runner: Runner, step: ir.Step, workflow: ir.Workflow, path: str, args: dict[str, Any],
                env: dict[str, str], cwd: str, cancel: Cancellation) -> Frame:
    """The child's frame, with what an earlier attempt of `step` recorded inside it: the records of its steps (they
    are replayed) and, per child step, the records made inside that step."""
    frame = Frame(
        workflow, path, args, env, cwd, cancel, (*runner.frame.stack, path),
        key_path=(*runner.frame.key_path, step.id),
    )
    for key, record in runner.frame.resumed_branches.get(step.id, {}).items():
        child_step, inside, rest = key.partition(INSIDE)
        if inside:
            frame.resumed_branches.setdefault(child_step, {})[rest] = record
        else:
            frame.results[key] = record
    for key, answer in runner.frame.resumed_answers.get(step.id, {}).items():
        child_step, inside, rest = key.partition(INSIDE)
        if inside:
            frame.resumed_answers.setdefault(child_step, {})[rest] = answer
        else:  # the child's `pipeline:` step continues after the stage that asked
            frame.answered[key] = answer
    frame.replayed = frozenset(s.id for s in workflow.steps if s.id in frame.results)
    return frame


def run_child(
    runner: Runner, step: ir.Step, call: ir.WorkflowCall, env: dict[str, str], cwd: str, cancel: Cancellation,
) -> Record:
    """Run the child to completion (its steps journaled as this step's branches); its output becomes this step's
    record. A gate inside it halts the run (`NestedGate`, with the gate's path from this step)."""
    from lobsterlang.interpret.workflow.engine import Runner as ChildRunner

    path = child_path(runner, step, call)
    workflow = runner.opts.children.get(path)
    if workflow is None:
        workflow = runner.opts.children[path] = load_workflow(path)[0]
    allowlist.check_workflow(workflow, env)
    args = resolve_args(workflow, child_args(call, runner.scope()))
    try:
        check_required_args(workflow, args)
    except WorkflowError as exc:
        raise WorkflowError(f"Workflow step {step.id}: {path}: {exc}") from None
    frame = child_frame(runner, step, workflow, path, args, env, cwd, cancel)
    outcome = ChildRunner(frame, runner.opts, ChildHooks(runner, step), caller=runner.cost.ledger).run()
    if outcome.halt is not None:
        raise child_gate(step, outcome.halt, frame)
    value = outcome.output[0] if len(outcome.output) == 1 else outcome.output
    stdout = "" if not outcome.output else value if isinstance(value, str) else stringify(value)
    return make_record(step.id, stdout, value)


def child_gate(step: ir.Step, halt: Halt, frame: Frame) -> NestedGate | NestedGates:
    """The gate (or gates) a sub-workflow halted at, seen from the `workflow:` step `step`."""
    if halt.nested is not None:
        group = tuple(gate.inside(step.id, f"{halt.step.id}{INSIDE}") for gate in halt.group)
        return group[0] if len(group) == 1 else NestedGates(group)
    kind = "input" if halt.is_input else "approval"
    record = None if halt.is_input else frame.results.get(halt.step.id)
    return NestedGate((step.id, halt.step.id), halt.step.id, kind, halt.request, halt.identity, record, halt.step,
                      halt.stage)
