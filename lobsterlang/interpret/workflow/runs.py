"""Start, continue and resume runs: the journal around the engine, halts to resume state, tokens and run ids."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from typing import Any

from lobsterlang import ir
from lobsterlang.interpret import gatestate
from lobsterlang.interpret.envelope import Envelope, cancelled_envelope, error_envelope, ok_envelope
from lobsterlang.interpret.errors import Cancelled, LobsterRunError, StateIntegrityError, StateNotFound
from lobsterlang.interpret.pipeline import allowlist
from lobsterlang.interpret.state import Claim, StateStore
from lobsterlang.interpret.tokens import TokenPayload
from lobsterlang.interpret.values import to_json_data
from lobsterlang.interpret.workflow.context import Answer, Frame, Options
from lobsterlang.interpret.workflow.engine import Runner, gate_path
from lobsterlang.interpret.workflow.errors import NotRetried, StepTimeout, WorkflowError, WorkflowUsageError
from lobsterlang.interpret.workflow.gategroup import answer as gategroup_answer
from lobsterlang.interpret.workflow.gategroup import forget_group, group_of
from lobsterlang.interpret.workflow.gates import approver_of, check_approver, check_response
from lobsterlang.interpret.workflow.journal import EventJournal, new_run_id
from lobsterlang.interpret.workflow.runlock import RunBusy, hold_run
from lobsterlang.interpret.workflow.runlog import RunLog
from lobsterlang.interpret.workflow.session import RunInfo, Stored, file_digest, read_state, save_halts, take_journaled
from lobsterlang.interpret.workflow.stores import backend_of, handoff_of


def start_run(frame: Frame, opts: Options) -> Envelope:
    """Run a freshly loaded workflow from its first step, journaling every step."""
    allowlist.check_workflow(frame.workflow, frame.base_env)  # before the run exists: nothing to forget
    info = RunInfo(new_run_id(), file_digest(frame.path), opts.raw_args)
    journal = backend_of(opts.store).journal(info.run_id)
    with hold_run(opts.store, info.run_id):
        journal.start(frame.path, frame.args, frame.workflow, info.digest, opts.raw_args, opts.schedule)
        return drive(frame, opts, journal, info, 0, None, fresh=True)


def drive(frame: Frame, opts: Options, journal: EventJournal, info: RunInfo, start: int, last: str | None,
          *, fresh: bool) -> Envelope:
    """Run from `start`; a halt writes resume state, the end of the run removes the journal."""
    opts.run_id = info.run_id
    allowlist.check_workflow(frame.workflow, frame.base_env, start)
    runner = Runner(frame, opts, journal)
    try:
        outcome = runner.run(start, last)
    except Cancelled:
        if not runner.started and not fresh:
            journal.pending = []  # nothing ran: the run is still waiting at its gate
        journal.close()
        raise
    except StepTimeout:  # the step started and may have had its effect: uncertain, as after a crash
        journal.close()  # `lobster runs` lists it; `resume --run ID --retry-step|--skip-step` decides
        raise
    except NotRetried as exc:  # failed after a dispatch, which may have taken effect: kept, as after a timeout
        journal.not_retried(runner.index, exc.step_id, exc.calls)
        journal.close()
        raise
    except StateIntegrityError:  # the journal cannot be written (a special file in its place): leave it be
        journal.pending = []
        raise
    except BaseException:
        if fresh or runner.started:
            journal.finish()
        raise
    if outcome.halt is not None:
        envelope, issued = save_halts(opts.store, frame, outcome.halt, info, journal, opts.children)
        gates = [{"step": gate_path(g.path), "stateKey": i.key} for g, i in zip(outcome.halt.group, issued, strict=False)]
        journal.halted(outcome.halt.index, outcome.halt.gate_id, issued[0].key, issued[0].expires_at, gates)
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
    nested = stored.nested
    records = nested["kept"] if nested is not None else stored.results
    name = str(nested["leaf"]) if nested is not None else gate
    where = str(nested["key"]) if nested is not None else gate
    if is_input:
        check_response(gate, stored.state.get("inputSchema"), decision.response)
        if nested is not None and isinstance(nested.get("stage"), int):  # an `ask` inside: its pipeline continues
            nested.setdefault("answers", {})[where] = {"stage": nested["stage"], "response": decision.response}
        elif stored.pipeline_stage is None:  # an `input:` step (inside a `pipeline:` step, the step itself continues)
            records[where] = {"id": name, "subject": stored.state.get("inputSubject"), "response": decision.response}
        return
    approver = approver_of(env)
    identity = stored.state.get("approvalIdentity")
    check_approver(gate, identity if isinstance(identity, dict) else {}, approver)
    if nested is not None and isinstance(nested.get("stage"), int):  # an `approve` inside: its pipeline continues
        shown_request = nested.get("shown")
        items = shown_request.get("items") if isinstance(shown_request, dict) else None
        nested.setdefault("answers", {})[where] = Answer(nested["stage"], None, items if isinstance(items, list) else []).encoded()
        return
    if stored.pipeline_stage is not None:  # an `approve` stage of the `pipeline:` step: the step itself continues
        return
    shown = nested.get("record") if nested is not None else stored.results.get(gate)
    record = dict(shown if isinstance(shown, dict) else {"id": name})
    record["approved"] = True
    if approver:
        record["approvedBy"] = approver
    records[where] = record


def _forget(store: StateStore, claim: Claim, stored: Stored | None, key: str) -> None:
    claim.release()
    keys = [key, *(stored.state.get("supersededResumeStateKeys") or [] if stored else [])]
    for old in keys:
        if isinstance(old, str):
            store.delete_approval_ids(old)


def resume(state_key: str, decision: Any, ctx: Any, token: TokenPayload | None = None, run_id: str | None = None,
           gate: str | None = None, log: RunLog | None = None) -> Envelope:
    """Resume a workflow halted at a gate (called by `lobster resume` for `workflow-file` tokens).

    `decision` is `lobsterlang.interpret.pipeline.session.Decision` (approve / response /
    cancel); `ctx` a pipeline `RunContext` (env, cwd, store, cancel); `token` the verified
    token (None for `resume --run RUN_ID`, which checks the state's own seal and that it is
    bound to run `run_id` and its journal's `gate`; `log`: that journal, read while the run is held,
    so not read again). Returns the envelope. Whatever is refused before a step starts puts the
    state back unchanged.
    """
    store: StateStore = ctx.store
    bound_run = token.binding.get("run") if token is not None and isinstance(token.binding, dict) else None
    try:
        claim = _claim(store, state_key, run_id or bound_run)
    except StateNotFound:
        if decision.cancel:
            return cancelled_envelope()  # already cancelled (or finished): cancelling again succeeds
        raise
    try:
        stored = _verified(claim, state_key, decision, ctx, token, _expected(run_id, gate))
    except (WorkflowError, LobsterRunError) as exc:
        claim.put_back()
        if isinstance(exc, LobsterRunError):
            raise
        return error_envelope("runtime_error", str(exc))
    run_id = str(stored.extra.get("runId") or run_id or new_run_id())
    held = False
    try:
        with hold_run(store, run_id):
            held = True
            return _decide(stored, decision, ctx, claim, state_key, run_id, log)
    except (RunBusy, StateIntegrityError) as exc:
        if held:
            raise
        claim.put_back()  # another process runs it, or its lock file is unusable: the token stays valid
        if isinstance(exc, StateIntegrityError):
            raise
        return error_envelope("runtime_error", str(exc))


def _decide(stored: Stored, decision: Any, ctx: Any, claim: Claim, state_key: str, run_id: str,
            log: RunLog | None) -> Envelope:
    if decision.cancel or decision.approve is False:
        forget_group(ctx.store, stored, run_id)  # the other gates pending with it, if any
        _forget(ctx.store, claim, stored, state_key)
        backend_of(ctx.store).journal(run_id).finish()
        return cancelled_envelope()
    return _continue(stored, decision, ctx, claim, state_key, run_id, log)


def _claim(store: StateStore, key: str, run_id: Any) -> Claim:
    """Claim the state; a claim left by a resume that died before any step started is taken over."""
    try:
        return store.claim(key, "Workflow resume state not found")
    except StateNotFound:
        if isinstance(run_id, str) and _waiting_at(store, run_id, key) and store.recover_abandoned_claim(key):
            return store.claim(key, "Workflow resume state not found")
        raise


def _waiting_at(store: StateStore, run_id: str, key: str) -> bool:
    """Whether run `run_id`'s journal still ends at the gate whose state is `key` (nothing ran since)."""
    log = backend_of(store).read_run(run_id)
    if log is None or log.halted is None:
        return False
    gates = log.halted.get("gates")
    return log.halted.get("stateKey") == key or (isinstance(gates, list) and any(
        isinstance(g, dict) and g.get("stateKey") == key for g in gates))


def _expected(run_id: str | None, gate: str | None) -> dict[str, str]:
    """The binding fields `resume --run` names: the run, and the gate its journal waits at."""
    named = {"run": run_id, "gate": gate}
    return {field: value for field, value in named.items() if value is not None}


def _verified(claim: Claim, key: str, decision: Any, ctx: Any, token: TokenPayload | None,
              expect: dict[str, str]) -> Stored:
    """The claimed state, checked: seal and binding, readable IR, and (unless cancelling) not expired."""
    bound = gatestate.verify_claim(ctx.store, claim, key, token, ctx.env, _stored_ir, expect)
    stored = read_state(claim.value)
    if not (decision.cancel or decision.approve is False):
        gatestate.check_open(bound, stored.state, ctx.env)
    return stored


def _stored_ir(state: dict[str, Any]) -> Any:
    section = state.get("lobsterlang")
    return section.get("ir") if isinstance(section, dict) else None


def _continue(stored: Stored, decision: Any, ctx: Any, claim: Claim, state_key: str, run_id: str,
              log: RunLog | None) -> Envelope:
    store: StateStore = ctx.store
    journal = _followed(stored, claim, state_key, run_id, store, log)
    try:
        apply_decision(stored, decision, ctx.env)
    except WorkflowUsageError as exc:
        claim.put_back()  # nothing ran: the token stays valid
        return error_envelope("parse_error", str(exc))
    warn_if_changed(stored, sys.stderr)
    if group_of(stored):  # one of several gates pending at once: the run goes on once all are answered
        try:
            waiting = gategroup_answer(store, stored, run_id, journal)
        except StateIntegrityError:
            claim.put_back()
            raise
        if waiting is not None:
            journal.close()
            _forget(store, claim, stored, state_key)
            return waiting
    spend = stored.extra.get("cost")
    frame = Frame(stored.workflow, stored.path, stored.args, dict(ctx.env), ctx.cwd, ctx.cancel,
                  (os.path.realpath(stored.path),), stored.results, spend if isinstance(spend, list) else [])
    opts = Options(mode="tool", raw_args=bool(stored.extra.get("rawArgs")), store=store, cancel=ctx.cancel,
                   children=stored.children)
    info = RunInfo(run_id, stored.extra.get("fileSha256"), opts.raw_args, (*_superseded(stored), state_key))
    gate = stored.gate_id or ""
    stage = stored.pipeline_stage
    if stored.nested is not None:  # the step the gate is in runs again: what it recorded replays, the rest runs
        kept, top = stored.nested["kept"], stored.workflow.steps[stored.index].id
        frame.resumed_branches[top], frame.resumed_answers[top] = kept, stored.nested_answers()
        last = last_with_record(stored.workflow, stored.results, stored.index)
        journal.resumed(stored.index, {}, last, frame.spend, branches=kept, answers=stored.nested.get("answers"))
    elif stage is None:
        last = stored.state.get("inputStepId") or last_with_record(stored.workflow, stored.results, stored.index)
        journal.resumed(stored.index, {gate: stored.results.get(gate)}, last, frame.spend)
    else:  # the `pipeline:` step continues after the stage that halted, with the answer or the approved items
        answer = Answer(stage, None, stored.approved_items) if "approvalStepId" in stored.state else Answer(stage, decision.response)
        frame.answered[gate] = answer
        last = last_with_record(stored.workflow, stored.results, stored.index)
        journal.resumed(stored.index, {}, last, frame.spend, answer={"step": gate, **answer.encoded()})
    handoff = handoff_of(store)
    if handoff is not None and handoff.wants_worker(store, run_id, ctx.env):  # a detached run: the rest goes to workers
        return handoff.hand_off(store, journal, state_key, ctx.cwd, lambda: _forget(store, claim, stored, state_key), claim.put_back)
    return _drive_resumed(frame, opts, journal, info, stored, last, claim, state_key)


def _followed(stored: Stored, claim: Claim, state_key: str, run_id: str, store: StateStore,
              known: RunLog | None) -> EventJournal:
    """The run's journal, continued from where it stands (`known`: as read while the run was held), with the records
    the state names there put in (the state is put back when they cannot be)."""
    backend = backend_of(store)
    journal = backend.journal(run_id)
    try:
        log = known if known is not None and known.run_id == run_id else backend.read_run(run_id)
        if log is not None:
            journal.follow(log)
        take_journaled(stored, state_key, log, journal.shadow)
    except StateIntegrityError:
        claim.put_back()
        raise
    return journal


def _drive_resumed(frame: Frame, opts: Options, journal: EventJournal, info: RunInfo, stored: Stored, last: str | None,
                   claim: Claim, state_key: str) -> Envelope:
    try:
        envelope = drive(frame, opts, journal, info, stored.index, last, fresh=False)
    except (WorkflowError, LobsterRunError) as exc:
        if journal.written:  # a step started (or the run moved on): the token is spent
            _forget(opts.store, claim, stored, state_key)
        else:
            claim.put_back()
        if isinstance(exc, Cancelled):
            raise
        kind = exc.error_type if isinstance(exc, StateIntegrityError) else "runtime_error"
        return error_envelope(kind, exc.message if isinstance(exc, LobsterRunError) else str(exc))
    _forget(opts.store, claim, stored, state_key)
    return envelope


def _superseded(stored: Stored) -> tuple[str, ...]:
    keys = stored.state.get("supersededResumeStateKeys") or []
    return tuple(k for k in keys if isinstance(k, str))


def warn_if_changed(stored: Stored, err: Any) -> None:
    """Say so when the file (or a sub-workflow stored with a gate inside a step) changed since the gate; the stored IR
    runs either way."""
    digests = (stored.nested or {}).get("digests")
    files = {stored.path: stored.extra.get("fileSha256"), **(digests if isinstance(digests, dict) else {})}
    for path, before in files.items():
        if before and file_digest(path) != before:
            err.write(f"warning: {path} changed since the run halted; resuming the workflow as it was at the gate\n")
    err.flush()
