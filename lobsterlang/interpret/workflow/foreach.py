"""`for_each`: sub-steps once per item, in order, in a scope with the item and index variables.

The loop is one attempt of its step: the step's `timeout_ms` bounds the whole loop, its `retry:` makes
another attempt and its `on_error` handles the failure, as in the reference. Each sub-step of each item
is a branch `<item index>/<sub-step id>`: the run journal records it, and a later attempt (a retry, or a
resumed run) takes the recorded branches and runs only the rest, so a finished item never runs twice.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from lobsterlang import ir
from lobsterlang.interpret.process import Cancellation
from lobsterlang.interpret.values import UNDEFINED, stringify
from lobsterlang.interpret.workflow import gates
from lobsterlang.interpret.workflow.attempt import AttemptCancellation, pause
from lobsterlang.interpret.workflow.conditions import should_run
from lobsterlang.interpret.workflow.env import apply_env
from lobsterlang.interpret.workflow.errors import NestedGate, PipelineHalted, WorkflowError
from lobsterlang.interpret.workflow.refs import Record, make_record
from lobsterlang.interpret.workflow.stdin import stdin_value
from lobsterlang.interpret.workflow.templates import Scope

if TYPE_CHECKING:
    from lobsterlang.interpret.workflow.engine import Runner


def js_typeof(value: Any) -> str:
    """JavaScript `typeof` for JSON data (`null` and arrays are `object`)."""
    if value is UNDEFINED:
        return "undefined"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    return "string" if isinstance(value, str) else "object"


def loop_items(runner: Runner, step: ir.Step, loop: ir.ForEach) -> list[Any]:
    """The array to loop over, or `Workflow step <id> for_each: …`."""
    value = stdin_value(loop.source, runner.scope())
    if not isinstance(value, list):
        raise WorkflowError(f"Workflow step {step.id} for_each: expected array, got {js_typeof(value)}")
    return value


class BatchPauses:
    """`pause_ms` between batches of `batch_size` items, slept only before work that really runs.

    Each batch after the first owes a pause, slept just before its first sub-step that runs. The debt is
    dropped when the batch holds a record the run's journal kept (the batch began in an earlier attempt of
    the run, which paused then), and a batch whose sub-steps are all skipped runs nothing to pause for.
    """

    def __init__(self, loop: ir.ForEach, sleep: Callable[[float], object] = time.sleep) -> None:
        self.batch = loop.batch_size if isinstance(loop.batch_size, int) and loop.batch_size > 0 else 1
        ms = loop.pause_ms
        self.seconds = float(ms) / 1000 if isinstance(ms, (int, float)) and not isinstance(ms, bool) else 0.0
        self.owed = False
        self._sleep = sleep

    def item(self, index: int) -> None:
        """Item `index` begins."""
        if self.seconds and index > 0 and index % self.batch == 0:
            self.owed = True

    def restored(self) -> None:
        """A sub-step's record came from the journal."""
        self.owed = False

    def before_run(self) -> None:
        """A sub-step is about to run."""
        if self.owed:
            self.owed = False
            self._sleep(self.seconds)


def run_for_each(runner: Runner, step: ir.Step, loop: ir.ForEach, cancel: Cancellation) -> Record:
    """Run every item (one attempt, stopped by `cancel`); the record's json is one `{item, index, <sub-step>: output…}`
    object per item."""
    items = loop_items(runner, step, loop)
    pauses = BatchPauses(loop, lambda seconds: pause(cancel, seconds))
    iterations = []
    for index, item in enumerate(items):
        pauses.item(index)
        iterations.append(_iteration(runner, step, loop, item, index, pauses, cancel))
    return make_record(step.id, stringify(iterations), iterations)


def _iteration(
    runner: Runner, step: ir.Step, loop: ir.ForEach, item: Any, index: int, pauses: BatchPauses, cancel: Cancellation,
) -> dict[str, Any]:
    item_var, index_var = loop.item_var or "item", loop.index_var or "index"
    scope_results = dict(runner.frame.results)
    scope_results[item_var] = {"json": item, "stdout": item if isinstance(item, str) else stringify(item)}
    scope_results[index_var] = {"json": index, "stdout": str(index)}
    iteration: dict[str, Any] = {item_var: item, index_var: index}
    previous: Record | None = None
    for sub in loop.steps:
        cancel.check()
        if not should_run(sub.when, scope_results):
            scope_results[sub.id] = {"id": sub.id, "skipped": True}
            continue
        key = f"{index}/{sub.id}"
        record = runner.recorded_branch(step, key)
        if record is not None:
            pauses.restored()
        else:  # not recorded by an earlier attempt of this run
            pauses.before_run()
            cancel.check()  # a signal may have come during the pause
            runner.branch_started(step, key)
            since = len(cancel.calls) if isinstance(cancel, AttemptCancellation) else 0
            scope = Scope(runner.frame.args, scope_results, runner.opts.raw_args, runner.frame.authored)
            gate = SubGate(runner, step, sub, index)
            record = gate.ask_input(scope, previous) if sub.input is not None else _run_in_branch(gate, scope, cancel, key)
            if sub.approval is not None:
                gate.ask_approval(record, scope)
            runner.cost.record(f"{step.id}.{sub.id}", record)
            runner.branch_done(step, key, record)
            runner.keep_branch(step, key, record)
            if isinstance(cancel, AttemptCancellation):
                cancel.settled(since)  # kept: a retry will not repeat its calls
        scope_results[sub.id] = record
        previous = record if not record.get("error") else previous
        runner.cost.check(runner.frame.workflow.cost_limit, runner.opts.err)
        iteration[sub.id] = _output(record)
    return iteration


def _output(record: Record) -> Any:
    """What a sub-step gives its item: its json, else an input's response, else its stdout."""
    for key in ("json", "response"):
        if key in record:
            return record[key]
    return record.get("stdout")


class SubGate:
    """A sub-step of one item, and the gate it may be: an `approval:` or `input:` sub-step asks on a terminal, and
    otherwise halts the run (`NestedGate`, path `<loop>[<index>] > <sub-step>`); its answer is its branch's record."""

    def __init__(self, runner: Runner, step: ir.Step, sub: ir.Step, index: int) -> None:
        self.runner, self.step, self.sub, self.index = runner, step, sub, index

    def env(self, scope: Scope) -> dict[str, str]:
        frame = self.runner.frame
        env = apply_env(frame.base_env, [frame.workflow.env, self.step.env, self.sub.env], scope)
        return self.runner.keyed(env, self.step.id, self.index, self.sub.id)

    @property
    def key(self) -> str:
        return f"{self.index}/{self.sub.id}"

    def halt(self, kind: str, request: dict[str, Any], identity: dict[str, Any], record: Record | None,
             stage: int | None = None) -> NestedGate:
        path = (f"{self.step.id}[{self.index}]", self.sub.id)
        return NestedGate(path, self.key, kind, request, identity, record, self.sub, stage)

    def ask_approval(self, record: Record, scope: Scope) -> None:
        """Approve the sub-step's record on a terminal, or halt the run for its approval."""
        request, identity = gates.approval_request(self.sub, record, self.env(scope))
        if identity.get("initiatedBy"):
            record["initiatedBy"] = identity["initiatedBy"]
        if not self.runner.opts.interactive:
            raise self.halt("approval", request, identity, record)
        from lobsterlang.interpret.workflow.prompts import ask_approval

        ask_approval(self.sub, request, identity, record, self.runner.frame.base_env, self.runner.opts)

    def ask_input(self, scope: Scope, previous: Record | None) -> Record:
        """The input sub-step's record (`subject`, `response`), asked on a terminal; otherwise the run halts for it."""
        subject = gates.input_subject(self.sub, stdin_value(self.sub.stdin, scope), previous)
        if not self.runner.opts.interactive:
            raise self.halt("input", gates.input_request(self.sub, subject), {}, None)
        from lobsterlang.interpret.workflow.prompts import ask_input

        return {"id": self.sub.id, "subject": subject, "response": ask_input(self.sub, self.runner.opts)}


def _run_in_branch(gate: SubGate, scope: Scope, cancel: Cancellation, key: str) -> Record:
    """`_run_sub`, its dispatches journaled as branch `key`'s (the loop's items run one at a time)."""
    if not isinstance(cancel, AttemptCancellation):
        return _run_sub(gate, scope, cancel)
    outer, cancel.branch = cancel.branch, key
    try:
        return _run_sub(gate, scope, cancel)
    finally:
        cancel.branch = outer


def _run_sub(gate: SubGate, scope: Scope, cancel: Cancellation) -> Record:
    """The sub-step's command; an `ask` or `approve` in its pipeline halts the run there (it continues after the stage on resume)."""
    runner, sub = gate.runner, gate.sub
    env = gate.env(scope)
    cwd = runner.step_cwd(sub.cwd or gate.step.cwd or runner.frame.workflow.cwd, scope)
    stdin = stdin_value(sub.stdin, scope)
    answer = runner.recorded_answer(gate.step, gate.key)
    try:
        return runner.run_command(sub.id, sub.action, env, cwd, stdin, cancel, scope, answer)
    except PipelineHalted as asked:
        if runner.opts.interactive:
            raise
        raise gate.halt(asked.kind, asked.request, asked.identity, None, asked.stage) from None
