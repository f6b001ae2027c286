"""Start, continue and resume runs: the journal around the engine, halts to resume state, tokens and run ids."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from typing import Any

from lobsterlang import ir
from lobsterlang.interpret.envelope import Envelope, cancelled_envelope, error_envelope, ok_envelope
from lobsterlang.interpret.errors import Cancelled, LobsterRunError
from lobsterlang.interpret.state import Claim, StateStore
from lobsterlang.interpret.values import to_json_data
from lobsterlang.interpret.workflow.context import Frame, Options
from lobsterlang.interpret.workflow.engine import Runner
from lobsterlang.interpret.workflow.errors import WorkflowError, WorkflowUsageError
from lobsterlang.interpret.workflow.gates import check_approver, check_response
from lobsterlang.interpret.workflow.journal import Journal, new_run_id
from lobsterlang.interpret.workflow.runlock import RunBusy, hold_run
from lobsterlang.interpret.workflow.session import RunInfo, Stored, file_digest, read_state, save_halt


def start_run(frame: Frame, opts: Options) -> Envelope:
    """Run a freshly loaded workflow from its first step, journaling every step."""
    info = RunInfo(new_run_id(), file_digest(frame.path), opts.raw_args)
    journal = Journal(opts.store, info.run_id)
    with hold_run(opts.store, info.run_id):
        journal.start(frame.path, frame.args, frame.workflow, info.digest, opts.raw_args)
        return drive(frame, opts, journal, info, 0, None, fresh=True)


def drive(frame: Frame, opts: Options, journal: Journal, info: RunInfo, start: int, last: str | None,
          *, fresh: bool) -> Envelope:
    """Run from `start`; a halt writes resume state, the end of the run removes the journal."""
    runner = Runner(frame, opts, journal)
    try:
        outcome = runner.run(start, last)
    except Cancelled:
        journal.close()
        raise
    except BaseException:
        if fresh or runner.started:
            journal.finish()
        raise
    if outcome.halt is not None:
        envelope, key = save_halt(opts.store, frame, outcome.halt, info)
        journal.halted(outcome.halt.index, outcome.halt.step, key)
        journal.close()
        return envelope
    journal.finish()
    return ok_envelope(to_json_data(outcome.output))


def last_with_record(workflow: ir.Workflow, results: Mapping[str, Any], before: int) -> str | None:
    """The last step (in file order, before index `before`) that has a record."""
    for step in reversed(workflow.steps[:before]):
        if step.id in results:
            return step.id
    return None


def apply_decision(stored: Stored, decision: Any, env: Mapping[str, str]) -> None:
    """Record the approval or the input response on the gate step (usage errors keep the token)."""
    gate = stored.gate_id or ""
    is_input = "inputStepId" in stored.state
    if is_input and decision.approve is not None:
        raise WorkflowUsageError("Workflow resume requires --response-json for input requests")
    if not is_input and decision.has_response:
        raise WorkflowUsageError("Workflow resume requires --approve yes|no for approval requests")
    if is_input:
        check_response(gate, stored.state.get("inputSchema"), decision.response)
        stored.results[gate] = {"id": gate, "subject": stored.state.get("inputSubject"), "response": decision.response}
        return
    approver = env.get("LOBSTER_APPROVAL_APPROVED_BY") or None
    identity = stored.state.get("approvalIdentity")
    check_approver(gate, identity if isinstance(identity, dict) else {}, approver)
    record = dict(stored.results.get(gate) or {"id": gate})
    record["approved"] = True
    if approver:
        record["approvedBy"] = approver
    stored.results[gate] = record


def _forget(store: StateStore, claim: Claim, stored: Stored | None, key: str) -> None:
    claim.release()
    keys = [key, *(stored.state.get("supersededResumeStateKeys") or [] if stored else [])]
    for old in keys:
        if isinstance(old, str):
            store.delete_approval_ids(old)


def resume(state_key: str, decision: Any, ctx: Any) -> Envelope:
    """Resume a workflow halted at a gate (called by `lobster resume` for `workflow-file` tokens).

    `decision` is `lobsterlang.interpret.pipeline.session.Decision` (approve / response /
    cancel); `ctx` a pipeline `RunContext` (env, cwd, store, cancel). Returns the envelope.
    """
    store: StateStore = ctx.store
    claim = store.claim(state_key, "Workflow resume state not found")
    try:
        stored = read_state(claim.value)
    except WorkflowError as exc:
        _forget(store, claim, None, state_key)
        return error_envelope("runtime_error", str(exc))
    run_id = str(stored.extra.get("runId") or new_run_id())
    try:
        with hold_run(store, run_id):
            return _decide(stored, decision, ctx, claim, state_key, run_id)
    except RunBusy as exc:  # `resume --run` is continuing this run: the token stays valid
        _restore(store, claim, state_key)
        return error_envelope("runtime_error", str(exc))


def _decide(stored: Stored, decision: Any, ctx: Any, claim: Claim, state_key: str, run_id: str) -> Envelope:
    if decision.cancel or decision.approve is False:
        _forget(ctx.store, claim, stored, state_key)
        Journal(ctx.store, run_id).finish()
        return cancelled_envelope()
    return _continue(stored, decision, ctx, claim, state_key, run_id)


def _continue(stored: Stored, decision: Any, ctx: Any, claim: Claim, state_key: str, run_id: str) -> Envelope:
    store: StateStore = ctx.store
    try:
        apply_decision(stored, decision, ctx.env)
    except WorkflowUsageError as exc:
        _restore(store, claim, state_key)
        return error_envelope("parse_error", str(exc))
    warn_if_changed(stored, sys.stderr)
    spend = stored.extra.get("cost")
    frame = Frame(stored.workflow, stored.path, stored.args, dict(ctx.env), ctx.cwd, ctx.cancel,
                  (os.path.realpath(stored.path),), stored.results, spend if isinstance(spend, list) else [])
    opts = Options(mode="tool", raw_args=bool(stored.extra.get("rawArgs")), store=store, cancel=ctx.cancel)
    info = RunInfo(run_id, stored.extra.get("fileSha256"), opts.raw_args, (*_superseded(stored), state_key))
    journal = Journal(store, run_id)
    last = stored.state.get("inputStepId") or last_with_record(stored.workflow, stored.results, stored.index)
    gate = stored.gate_id or ""
    journal.pending.append({"event": "resumed", "index": stored.index, "records": {gate: stored.results.get(gate)}, "last": last})
    return _drive_resumed(frame, opts, journal, info, stored, last, claim, state_key)


def _drive_resumed(frame: Frame, opts: Options, journal: Journal, info: RunInfo, stored: Stored, last: str | None,
                   claim: Claim, state_key: str) -> Envelope:
    try:
        envelope = drive(frame, opts, journal, info, stored.index, last, fresh=False)
    except (WorkflowError, LobsterRunError) as exc:
        if journal.written:  # a step started: the token is spent
            _forget(opts.store, claim, stored, state_key)
        else:
            _restore(opts.store, claim, state_key)
        if isinstance(exc, Cancelled):
            raise
        return error_envelope("runtime_error", exc.message if isinstance(exc, LobsterRunError) else str(exc))
    _forget(opts.store, claim, stored, state_key)
    return envelope


def _superseded(stored: Stored) -> tuple[str, ...]:
    keys = stored.state.get("supersededResumeStateKeys") or []
    return tuple(k for k in keys if isinstance(k, str))


def _restore(store: StateStore, claim: Claim, state_key: str) -> None:
    """Put a claimed state back: the resume failed before any step started, so the token stays valid."""
    store.write(state_key, claim.value)
    claim.release()


def warn_if_changed(stored: Stored, err: Any) -> None:
    """Say so when the file changed since the gate; the stored IR runs either way."""
    before = stored.extra.get("fileSha256")
    if before and file_digest(stored.path) != before:
        err.write(f"warning: {stored.path} changed since the run halted; resuming the workflow as it was at the gate\n")
        err.flush()
