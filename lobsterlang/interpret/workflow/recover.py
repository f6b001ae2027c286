"""`lobster resume --run ID`: continue an interrupted run from its journal, never re-running a recorded step."""

from __future__ import annotations

import os
import sys
from typing import Any

from lobsterlang import ir
from lobsterlang.interpret.envelope import Envelope, cancelled_envelope, error_envelope
from lobsterlang.interpret.state import StateStore
from lobsterlang.interpret.workflow.context import Answer, Frame, Options
from lobsterlang.interpret.workflow.engine import Halt, Runner
from lobsterlang.interpret.workflow.errors import WorkflowError, WorkflowUsageError
from lobsterlang.interpret.workflow.journal import EventJournal
from lobsterlang.interpret.workflow.retry import policy
from lobsterlang.interpret.workflow.runlock import hold_run
from lobsterlang.interpret.workflow.runlog import RunLog
from lobsterlang.interpret.workflow.runs import drive
from lobsterlang.interpret.workflow.session import Journaled, RunInfo, file_digest, save_halt
from lobsterlang.interpret.workflow.stores import backend_of, handoff_of


def load_run(store: StateStore, run_id: str) -> RunLog:
    """The journal of an unfinished run, or `Run <id> not found`."""
    backend = backend_of(store)
    if run_id and "/" not in run_id:
        backend.hold(run_id)
    log = backend.read_run(run_id)
    if log is None:
        raise WorkflowUsageError(f"Run {run_id} not found (finished, cancelled or never started)")
    for problem in log.skipped:
        sys.stderr.write(f"warning: {problem}\n")
    return log



def resume_run(run_id: str, decision: Any, retry_step: bool, skip_step: bool, ctx: Any) -> Envelope:
    """Continue run `run_id`; a run waiting at a gate needs a decision, an uncertain step needs a flag.

    The run is claimed first and its journal read after: a process that held it meanwhile may
    have moved it on, finished it, or may still be running it (then this one is refused).
    """
    store: StateStore = ctx.store
    try:
        backend = backend_of(store)
        if not backend.has_run(run_id):
            handoff = handoff_of(store)
            finished = handoff.finished(store, run_id) if handoff is not None else None
            if finished is not None:
                return finished
            load_run(store, run_id)  # `Run … not found`, before any lock file is made
        with hold_run(store, run_id):
            log = load_run(store, run_id)
            if log.halted is not None:
                return _at_gate(log, decision, ctx)
            if log.queued and decision is not None and (decision.approve is not None or decision.has_response):
                raise WorkflowError(f"Run {run_id} is not waiting at a gate: its gate was answered and it is queued "
                                    "for a worker (`lobster runs` lists it; `lobster resume --run ID` gives its result "
                                    "once it finished)")
            if decision is not None and decision.cancel:
                backend.journal(log.run_id).finish()  # nothing runs: the run is forgotten
                return cancelled_envelope()
            return _continue(log, retry_step, skip_step, ctx)
    except WorkflowUsageError as exc:
        return error_envelope("parse_error", str(exc))
    except WorkflowError as exc:
        return error_envelope("runtime_error", str(exc))


def _at_gate(log: RunLog, decision: Any, ctx: Any) -> Envelope:
    assert log.halted is not None
    if decision is None or (decision.approve is None and not decision.has_response and not decision.cancel):
        raise WorkflowUsageError(
            f"Run {log.run_id} is waiting at step {log.halted.get('step')}; "
            "resume it with --approve yes|no, --response-json or --cancel"
        )
    from lobsterlang.interpret.workflow.runs import resume

    step = log.halted.get("step")
    return resume(str(log.halted.get("stateKey")), decision, ctx, run_id=log.run_id, gate=step if isinstance(step, str) else None,
                  log=log)


def _continue(log: RunLog, retry_step: bool, skip_step: bool, ctx: Any) -> Envelope:
    from lobsterlang.ir_codec import from_json

    workflow = from_json(log.start["ir"])
    if not isinstance(workflow, ir.Workflow):
        raise WorkflowError("Invalid run journal")
    journal = backend_of(ctx.store).journal(log.run_id)
    journal.follow(log)
    start = _start_index(log, workflow, journal, retry_step, skip_step)
    path = str(log.start.get("filePath"))
    if file_digest(path) != log.start.get("fileSha256"):
        sys.stderr.write(f"warning: {path} changed since the run started; continuing the workflow as it was\n")
    frame = Frame(workflow, path, dict(log.start.get("args") or {}), dict(ctx.env), ctx.cwd, ctx.cancel,
                  (os.path.realpath(path),), dict(log.results), list(log.spend))
    if log.uncertain is not None and start == log.uncertain[0]:  # the step continues: its recorded branches stay
        frame.resumed_branches = {log.uncertain[1]: dict(log.branches)}
        frame.resumed_attempts = {log.uncertain[1]: log.attempts}
    elif log.carried is not None and start == log.next_index < len(workflow.steps):  # answered inside, not started
        frame.resumed_branches = {workflow.steps[start].id: dict(log.carried)}
    if log.carried_answers and 0 <= start < len(workflow.steps):  # asks inside the step: continue after them
        frame.resumed_answers = {workflow.steps[start].id: _answers(log.carried_answers)}
    answered = _answer(log, workflow, start)
    if answered is not None:  # the step continues after its pipeline's input gate, with the answer given there
        frame.answered = {workflow.steps[start].id: answered}
    opts = Options(mode="tool", raw_args=bool(log.start.get("rawArgs")), store=ctx.store, cancel=ctx.cancel)
    info = RunInfo(log.run_id, log.start.get("fileSha256"), opts.raw_args)
    pending = _pending_gate(frame, opts, journal, start)
    if pending is not None:
        issued = save_halt(opts.store, frame, pending, info, Journaled.of(frame, pending, journal))
        journal.halted(pending.index, pending.gate_id, issued.key, issued.expires_at)
        journal.close()
        return issued.envelope
    return drive(frame, opts, journal, info, start, log.last, fresh=True)


def _answers(given: dict[str, Any]) -> dict[str, Answer]:
    """The journal's answers to `ask` and `approve` stages inside a step, by branch key."""
    return {key: answer for key, value in given.items() if (answer := Answer.decoded(value)) is not None}


def _answer(log: RunLog, workflow: ir.Workflow, start: int) -> Answer | None:
    """The answer the run was resumed with at the gate inside the `pipeline:` step at `start`, if any."""
    answer = log.answer
    if answer is None or not 0 <= start < len(workflow.steps) or answer.get("step") != workflow.steps[start].id:
        return None
    return Answer.decoded(answer)


def _start_index(log: RunLog, workflow: ir.Workflow, journal: EventJournal, retry_step: bool, skip_step: bool) -> int:
    """Where the run continues: after its last recorded step, or at the uncertain one (by the flags' leave)."""
    if log.uncertain is None:
        return log.next_index
    index, step_id = log.uncertain
    in_flight = uncertain_branches(log, workflow.steps[index])
    if retry_step or (log.branch_journaled and not in_flight and not skip_step and not log.not_retried):
        return index  # a step whose branches are journaled, none in flight: only unrecorded branches run
    if not skip_step and not log.not_retried and not log.dispatched and _retries_left(workflow.steps[index], log.attempts):
        sys.stderr.write(f"note: step {step_id} was interrupted in attempt {log.attempts} of "
                         f"{policy(workflow.steps[index].retry).max}; its retry policy runs it again\n")
        return index
    if skip_step:
        step = workflow.steps[index]
        journal.step_done(index, step, {step_id: {"id": step_id, "skipped": True}}, log.last, log.spend)
        log.results[step_id] = {"id": step_id, "skipped": True}
        return index + 1
    if log.not_retried:
        raise WorkflowUsageError(
            f"Run {log.run_id}: step {step_id} failed after calling {', '.join(log.not_retried)}, which may have taken "
            "effect, and was not retried; resume with --retry-step to run it again or --skip-step to skip it"
        )
    spent = _why_not_again(workflow.steps[index], log)
    if in_flight:
        recorded = f"; its {len(log.branches)} recorded branch(es) do not run again" if log.branches else ""
        raise WorkflowUsageError(
            f"Run {log.run_id}: branch {', '.join(in_flight)} of step {step_id} was started but not recorded as "
            f"finished (uncertain){spent}; resume with --retry-step to run it again{recorded}, or --skip-step to skip the step"
        )
    raise WorkflowUsageError(
        f"Run {log.run_id}: step {step_id} was started but not recorded as finished (uncertain){spent}; "
        "resume with --retry-step to run it again or --skip-step to skip it"
    )


def _why_not_again(step: ir.Step, log: RunLog) -> str:
    """Why the uncertain step's retry policy does not run it again (nothing to say when it has none)."""
    if log.dispatched:
        return f" after calling {', '.join(dict.fromkeys(log.dispatched))}, which may have taken effect"
    return "" if step.retry is None else f" (its retry policy's {log.attempts} attempts were all started)"


def _retries_left(step: ir.Step, attempts: int) -> bool:
    """Whether the step's `retry:` allows another attempt."""
    return step.retry is not None and attempts < policy(step.retry).max


def uncertain_branches(log: RunLog, step: ir.Step) -> list[str]:
    """The branches of the uncertain step that may have had an effect unrecorded (none once a `wait: any` has a winner)."""
    action = step.action
    if isinstance(action, ir.Parallel) and action.wait == "any" and log.branches:
        return []
    return list(log.open_branches)


def _pending_gate(frame: Frame, opts: Options, journal: EventJournal, start: int) -> Halt | None:
    """An approval step that ran but whose halt was not recorded: issue its request again."""
    if start == 0 or start > len(frame.workflow.steps):
        return None
    step = frame.workflow.steps[start - 1]
    record = frame.results.get(step.id)
    if step.approval is None or record is None or record.get("approved") or record.get("skipped") or record.get("error"):
        return None
    runner = Runner(frame, opts, journal)
    env = runner.step_env(step, runner.scope())
    return runner.approval_gate(start - 1, step, record, env)
