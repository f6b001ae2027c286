"""The run loop: steps in order, conditions, retries, timeouts, on_error (loops included), gates and the final output."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from lobsterlang import ir
from lobsterlang.interpret.errors import Cancelled, LobsterRunError
from lobsterlang.interpret.llmspend import SpendLedger, StepSpend
from lobsterlang.interpret.process import Cancellation
from lobsterlang.interpret.workflow import gates
from lobsterlang.interpret.workflow.attempt import AttemptCancellation, deadline
from lobsterlang.interpret.workflow.conditions import should_run
from lobsterlang.interpret.workflow.context import Answer, Frame, Options
from lobsterlang.interpret.workflow.cost import CostTracker, Held
from lobsterlang.interpret.workflow.dispatch import after_dispatch, not_retried, noting
from lobsterlang.interpret.workflow.env import apply_env
from lobsterlang.interpret.workflow.errors import (
    Dispatched,
    NestedGate,
    NestedGates,
    PipelineHalted,
    StepTimeout,
    Unrecoverable,
    WorkflowError,
    locate,
)
from lobsterlang.interpret.workflow.idempotency import with_key
from lobsterlang.interpret.workflow.records import output_items, synthetic_record
from lobsterlang.interpret.workflow.refs import Record, make_record
from lobsterlang.interpret.workflow.retry import policy, with_retry
from lobsterlang.interpret.workflow.shell import check_cwd, is_posix_shell, run_shell
from lobsterlang.interpret.workflow.stdin import stdin_bytes, stdin_value
from lobsterlang.interpret.workflow.templates import Scope, render, render_shell

Status = Literal["ok", "needs_approval", "needs_input"]


@dataclass
class Halt:
    """A gate the run stopped at: its step, index, request item and (approvals) identity policy; `stage`: the
    pipeline stage that requested input or approval inside a `pipeline:` step (the step continues there on resume)."""

    step: ir.Step
    index: int
    request: dict[str, Any]
    identity: dict[str, Any]
    stage: int | None = None
    nested: NestedGate | None = None
    """The gate inside the step (a sub-workflow's, a loop's, a branch's) that the run halted at."""
    kept: dict[str, Record] | None = None
    """With `nested`: the records made inside the step before its gate (they do not run again on resume)."""
    group: tuple[NestedGate, ...] = ()
    """With `nested`: every gate the step stopped at (parallel branches: several, each answered on its own)."""

    @property
    def is_input(self) -> bool:
        if self.nested is not None:
            return self.nested.kind == "input"
        if self.stage is not None:
            return self.request.get("type") != "approval_request"
        return self.step.input is not None

    @property
    def resume_index(self) -> int:
        """The step a resume starts at: the next one, or this one when it halted inside (its pipeline, its loop…)."""
        return self.index if self.stage is not None or self.nested is not None else self.index + 1

    @property
    def gate_id(self) -> str:
        """The gate's name: its step id, or its path from the top-level step (`deploy > prod_gate`)."""
        return gate_path(self.nested.path) if self.nested is not None else self.step.id


def gate_path(segments: Sequence[str]) -> str:
    """A nested gate's path as it is shown: `deploy > prod_gate`, `loop[3] > confirm`."""
    return " > ".join(segments)


@dataclass
class Outcome:
    """How a run ended: `ok` with output items, or halted at a gate."""

    status: Status
    output: list[Any]
    halt: Halt | None = None


class Hooks:
    """Called around each top-level step (the run journal overrides these)."""

    def step_started(self, index: int, step: ir.Step) -> None:
        """Before a step's command starts."""

    def step_done(self, index: int, step: ir.Step, results: dict[str, Record], last: str | None,
                  spend: Sequence[dict[str, Any]] = ()) -> None:
        """After a step's record (or records) were stored; `spend`: the run's LLM spend so far."""

    def branch_started(self, index: int, step: ir.Step, key: str) -> None:
        """Before one branch of a `for_each` or `parallel` step runs its command (from the branch's thread)."""

    def branch_done(self, index: int, step: ir.Step, key: str, record: Record,
                    spend: Sequence[dict[str, Any]] = ()) -> None:
        """After one branch's record was made."""

    def dispatched(self, index: int, step: ir.Step, call: str, branch: str | None = None) -> None:
        """Before a call of step `index` goes out (`openclaw.invoke`…), from `branch` of it (None: the step itself):
        after it, the step is not retried on its own while that branch is unrecorded."""


def stopped(cancel: Cancellation) -> bool:
    """Whether `cancel` (or one of its parents) was cancelled."""
    try:
        cancel.check()
    except Cancelled:
        return True
    return False


class Runner:
    """Executes the steps of one frame from a start index."""

    def __init__(self, frame: Frame, opts: Options, hooks: Hooks | None = None, caller: SpendLedger | None = None) -> None:
        self.frame = frame
        self.opts = opts
        self.hooks = hooks or Hooks()
        self.started = False
        self.index = 0
        """The index of the step that runs now."""
        self.cost = CostTracker(frame.base_env, frame.spend, opts.err, SpendLedger(caller))
        """`caller`: the ledger of the run whose `workflow:` step runs this one, which counts these calls too."""
        self.cost.recognise(frame.results)

    @property
    def steps(self) -> tuple[ir.Step, ...]:
        return self.frame.workflow.steps

    def run(self, start: int = 0, last: str | None = None) -> Outcome:
        """Run steps `start`…; `last` is the step whose record gives the output if no later step runs."""
        for index in range(start, len(self.steps)):
            step = self.steps[index]
            self.frame.cancel.check()
            try:
                kind, halt = self.run_step(index, step)
            except (WorkflowError, LobsterRunError) as exc:
                locate(exc, step, self.frame)
                raise
            if kind not in ("skipped", "replayed") and step.input is None:
                self.count_cost(step)
            if halt is not None:
                if not halt.is_input and halt.nested is None and not self.nested:
                    self.hooks.step_done(index, step, self.frame.results, step.id, self.cost.entries)
                return Outcome("needs_input" if halt.is_input else "needs_approval", [], halt)
            last = step.id if kind in ("ran", "replayed") else last
            if kind != "replayed":
                self.hooks.step_done(index, step, self.frame.results, last, self.cost.entries)
            if kind == "skip_rest":
                break
        self.cost.settle_unbilled()  # what skipped or failed steps left unbilled, and the run's last word on its limit
        self.cost.check(self.frame.workflow.cost_limit, self.opts.err)
        return Outcome("ok", output_items(self.frame.results.get(last) if last else None))

    def count_cost(self, step: ir.Step) -> None:
        """Bill what the step (and its branches) spent, and the calls it paid for that no item carried (a failed
        pipeline's); then check `cost_limit`. A loop's sub-steps were billed as they ran."""
        held: list[Held] = []
        if isinstance(step.action, ir.Parallel):
            for branch in step.action.branches:
                self.cost.track(branch.id, self.frame.results.get(branch.id), held)
        elif not isinstance(step.action, ir.ForEach):
            self.cost.track(step.id, self.frame.results.get(step.id), held)
        self.cost.settle_held(held)
        self.cost.settle_unbilled()
        self.cost.check(self.frame.workflow.cost_limit, self.opts.err)

    @property
    def nested(self) -> bool:
        """This runner runs a sub-workflow (its gates halt the top-level run, which journals its steps)."""
        return bool(self.frame.key_path)

    def run_step(self, index: int, step: ir.Step) -> tuple[str, Halt | None]:
        """One step: `skipped`, `ran`, `failed`, `skip_rest` or `replayed` (its record came from an earlier attempt),
        and the halt when it stops at a gate."""
        results = self.frame.results
        if step.id in self.frame.replayed:
            return self.replayed_kind(step), None
        if not should_run(step.when, results):
            results[step.id] = {"id": step.id, "skipped": True}
            return "skipped", None
        if step.input is not None:
            return "ran", self.input_gate(index, step)
        return self.run_action(index, step)

    def replayed_kind(self, step: ir.Step) -> str:
        """How a step whose record was kept ended, as `run_step` says it: its record decides what runs next."""
        record = self.frame.results.get(step.id) or {}
        if record.get("skipped"):
            return "skipped"
        if record.get("error"):
            return "skip_rest" if step.on_error == "skip_rest" else "failed"
        return "replayed"

    def kept_branches(self, step: ir.Step) -> dict[str, Record]:
        """The records made inside `step` so far (its branches, its loop's sub-steps, its sub-workflow's steps)."""
        return dict(self.frame.resumed_branches.get(step.id, {}))

    def begin(self, index: int, step: ir.Step) -> None:
        self.started = True
        self.index = index
        self.hooks.step_started(index, step)

    def recorded_branch(self, step: ir.Step, key: str) -> Record | None:
        """The record of branch `key` of `step` kept from an earlier attempt (the journal's, or this run's); None: run it."""
        return self.frame.resumed_branches.get(step.id, {}).get(key)

    def recorded_answer(self, step: ir.Step, key: str) -> Answer | None:
        """The answer given at the `ask` inside branch `key` of `step`, when the run resumed there."""
        return self.frame.resumed_answers.get(step.id, {}).get(key)

    def keep_branch(self, step: ir.Step, key: str, record: Record) -> None:
        """Keep a finished branch's record for the step's next attempt (a `retry:` runs only what did not finish)."""
        self.frame.resumed_branches.setdefault(step.id, {})[key] = record

    def branch_started(self, step: ir.Step, key: str) -> None:
        self.hooks.branch_started(self.index, step, key)

    def branch_done(self, step: ir.Step, key: str, record: Record) -> None:
        self.hooks.branch_done(self.index, step, key, record, self.cost.entries)

    def step_env(self, step: ir.Step, scope: Scope) -> dict[str, str]:
        return self.keyed(apply_env(self.frame.base_env, [self.frame.workflow.env, step.env], scope), step.id)

    def keyed(self, env: dict[str, str], *path: str | int) -> dict[str, str]:
        """`env` plus LOBSTER_IDEMPOTENCY_KEY for the step at `path` in this frame."""
        return with_key(env, self.opts.run_id, (*self.frame.key_path, *path))

    def step_cwd(self, template: ir.Template | None, scope: Scope) -> str:
        """`cwd` with args filled in, relative to the run's directory; the run's own cwd by default."""
        if template is None:
            return self.frame.cwd
        return os.path.join(self.frame.cwd, render(template, Scope(scope.args, {}, scope.raw)))

    def scope(self) -> Scope:
        return Scope(self.frame.args, self.frame.results, self.opts.raw_args, self.frame.authored)

    def run_action(self, index: int, step: ir.Step) -> tuple[str, Halt | None]:
        scope = self.scope()
        env = self.step_env(step, scope)
        cwd = self.step_cwd(step.cwd or self.frame.workflow.cwd, scope)
        stdin = None if isinstance(step.action, ir.ForEach) else stdin_value(step.stdin, scope)
        first = self.frame.resumed_attempts.get(step.id, 0) + 1
        made = 0
        self.begin(index, step)

        def journaled_attempt() -> tuple[Record, dict[str, Record]]:
            """One attempt; each retry is journaled as `started` too, so a crash-resume counts the attempts made."""
            nonlocal made
            if made:
                self.hooks.step_started(index, step)
            made += 1
            return self.attempt(step, env, cwd, stdin)

        rules = policy(step.retry)
        try:
            record, branches = with_retry(step.id, rules, journaled_attempt, self.retryable, str, self.opts.err, first=first)
        except PipelineHalted as gate:
            return "ran", self.pipeline_gate(index, step, gate)
        except (NestedGate, NestedGates) as reached:
            group = reached.gates if isinstance(reached, NestedGates) else (reached,)
            return "ran", Halt(step, index, group[0].request, group[0].identity, nested=group[0],
                               kept=self.kept_branches(step), group=group)
        except (Unrecoverable, Cancelled):
            raise
        except (WorkflowError, LobsterRunError) as exc:
            return self.failed(step, self.unwrapped(step, exc, first + made - 1 < rules.max))
        finally:
            self.frame.resumed_branches.pop(step.id, None)
        self.frame.results.update(branches)
        self.frame.results[step.id] = record
        if step.approval is not None:
            return "ran", self.approval_gate(index, step, record, env)
        return "ran", None

    def pipeline_gate(self, index: int, step: ir.Step, gate: PipelineHalted) -> Halt:
        """A stage of the step's own pipeline requested input or approval: the run halts there (`needs_input`,
        `needs_approval`). Anything else (a sub-step's or a branch's, which arrive as `NestedGate` unless a terminal
        asks) fails the step."""
        if not isinstance(step.action, ir.PipelineRun) or gate.step_id != step.id:
            raise Unrecoverable(str(gate)) from None
        return Halt(step, index, gate.request, gate.identity, gate.stage)

    def retryable(self, exc: Exception) -> bool:
        if isinstance(exc, (Unrecoverable, Cancelled, Dispatched)) or stopped(self.frame.cancel):
            return False
        self.stop_when_over_budget()
        return True

    def stop_when_over_budget(self) -> None:
        """Before a retry: with `cost_limit` `action: stop`, the calls the failed attempt paid for count, and passing
        the limit ends the step (CostLimitExceeded) instead of paying again."""
        limit = self.frame.workflow.cost_limit
        if limit is not None and limit.action == "stop":
            self.cost.settle_unbilled()
            self.cost.check(limit, self.opts.err)

    def unwrapped(self, step: ir.Step, exc: Exception, retries_left: bool) -> Exception:
        """The step's failure: a failure after a dispatch says it was not retried (when `retry:` would have)."""
        if not isinstance(exc, Dispatched):
            return exc
        if not retries_left:
            return exc.cause
        stops_run = step.on_error not in ("continue", "skip_rest") and not self.frame.key_path
        return not_retried(step.id, exc, stops_run=stops_run, run_id=self.opts.run_id)

    def failed(self, step: ir.Step, exc: Exception) -> tuple[str, None]:
        mode = step.on_error if step.on_error in ("continue", "skip_rest") else "stop"
        message = exc.message if isinstance(exc, LobsterRunError) else str(exc)
        if mode == "stop":
            raise exc if isinstance(exc, WorkflowError) else WorkflowError(message)
        self.frame.results[step.id] = {"id": step.id, "error": True, "errorMessage": message}
        return ("skip_rest" if mode == "skip_rest" else "failed"), None

    def attempt(self, step: ir.Step, env: dict[str, str], cwd: str, stdin: Any) -> tuple[Record, dict[str, Record]]:
        """One attempt under the step's timeout; a timeout becomes `Step '<id>' timed out after <n>ms`, a failure
        after a dispatch `Dispatched`."""
        cancel = AttemptCancellation(self.frame.cancel, noting(self.hooks.dispatched, self.index, step, self.frame),
                                     within=step.id if self.nested else None)
        timeout = step.timeout_ms if isinstance(step.timeout_ms, int) and not isinstance(step.timeout_ms, bool) else None
        with deadline(cancel, timeout):
            try:
                return self.execute(step, env, cwd, stdin, cancel)
            except Exception as exc:
                failure: Exception = exc
                if cancel.timed_out and not stopped(self.frame.cancel):
                    failure = StepTimeout(f"Step '{step.id}' timed out after {timeout}ms")
                failure = after_dispatch(failure, cancel)
                if failure is exc:
                    raise
                raise failure from None

    def execute(
        self, step: ir.Step, env: dict[str, str], cwd: str, stdin: Any, cancel: AttemptCancellation,
    ) -> tuple[Record, dict[str, Record]]:
        action = step.action
        if isinstance(action, ir.ForEach):
            from lobsterlang.interpret.workflow.foreach import run_for_each

            return run_for_each(self, step, action, cancel), {}
        if isinstance(action, ir.Parallel):
            from lobsterlang.interpret.workflow.parallel import run_parallel

            return run_parallel(self, step, action, cwd, cancel)
        if isinstance(action, ir.WorkflowCall):
            from lobsterlang.interpret.workflow.compose import run_child

            return run_child(self, step, action, env, cwd, cancel), {}
        return self.run_command(step.id, action, env, cwd, stdin, cancel, answer=self.frame.answered.get(step.id)), {}

    def run_command(
        self, step_id: str, action: ir.Action | None, env: dict[str, str], cwd: str, stdin: Any, cancel: Cancellation,
        scope: Scope | None = None, answer: Answer | None = None,
    ) -> Record:
        """A shell or pipeline command (steps, branches and loop sub-steps), or a no-op record; `answer`: a top-level
        pipeline step continues after its input gate."""
        scope = scope or self.scope()
        if isinstance(action, ir.PipelineRun):
            from lobsterlang.interpret.workflow.pipeline_step import run_pipeline_step

            check_cwd(step_id, cwd, env)
            spend = StepSpend(self.cost.ledger, step_id)
            return run_pipeline_step(step_id, action, scope, env, cwd, stdin, self.opts, cancel, answer, spend)
        if not isinstance(action, ir.ShellRun) or not action.command.text.strip():
            return synthetic_record(step_id, stdin)
        text = render_shell(action.command, scope, env, is_posix_shell(env))
        check_cwd(step_id, cwd, env)
        out = run_shell(text.command, {**env, **text.env}, cwd, stdin_bytes(stdin), cancel)
        return make_record(step_id, out.stdout)

    def approval_gate(self, index: int, step: ir.Step, record: Record, env: dict[str, str]) -> Halt | None:
        request, identity = gates.approval_request(step, record, env)
        if identity.get("initiatedBy"):
            record["initiatedBy"] = identity["initiatedBy"]
        if not self.opts.interactive:
            return Halt(step, index, request, identity)
        from lobsterlang.interpret.workflow.prompts import ask_approval

        ask_approval(step, request, identity, record, self.frame.base_env, self.opts)
        return None

    def input_gate(self, index: int, step: ir.Step) -> Halt | None:
        stdin = stdin_value(step.stdin, self.scope())
        previous = self.previous_record(index)
        subject = gates.input_subject(step, stdin, previous)
        request = gates.input_request(step, subject)
        if not self.opts.interactive:
            return Halt(step, index, request, {})
        from lobsterlang.interpret.workflow.prompts import ask_input

        self.frame.results[step.id] = {"id": step.id, "subject": subject, "response": ask_input(step, self.opts)}
        return None

    def previous_record(self, index: int) -> Record | None:
        """The record of the closest earlier step that completed (not skipped, not failed)."""
        for step in reversed(self.steps[:index]):
            record = self.frame.results.get(step.id)
            if record is not None and not record.get("skipped") and not record.get("error"):
                return record
        return None
