"""Tool-mode runs and resumes of pipelines: halts become resume state, tokens and envelopes."""

from __future__ import annotations

from typing import Any

from lobsterlang import ir
from lobsterlang.interpret.envelope import (
    Envelope,
    cancelled_envelope,
    needs_approval_envelope,
    needs_input_envelope,
    ok_envelope,
)
from lobsterlang.interpret.errors import CommandError, StateNotFound, UsageError
from lobsterlang.interpret.pipeline.commands.gates import check_response
from lobsterlang.interpret.pipeline.runtime import Halt, PipelineResult, RunContext, run_pipeline
from lobsterlang.interpret.state import Claim, StateStore, now_iso
from lobsterlang.interpret.tokens import PIPELINE_KIND
from lobsterlang.interpret.values import to_json_data
from lobsterlang.record import Record

STATE_PREFIX = "pipeline_resume"
NO_RESPONSE = object()


class Decision(Record):
    """What `resume` was asked to do: `approve` yes/no, answer with `response`, or `cancel`."""

    approve: bool | None = None
    response: Any = NO_RESPONSE
    cancel: bool = False

    @property
    def has_response(self) -> bool:
        return self.response is not NO_RESPONSE


def envelope_for(pipeline: ir.Pipeline, result: PipelineResult, store: StateStore) -> Envelope:
    """The envelope of a finished run; a halt writes resume state and issues a token."""
    if result.halt is None:
        return ok_envelope(to_json_data(result.items))
    key = store.new_state_key(STATE_PREFIX)
    store.write(key, _resume_state(pipeline, result.halt))
    token = store.new_token(PIPELINE_KIND, key)
    if result.halt.kind == "approval_request":
        return needs_approval_envelope(to_json_data(result.halt.request), token, store.new_approval_id(key))
    return needs_input_envelope(to_json_data(result.halt.request), token)


def _resume_state(pipeline: ir.Pipeline, halt: Halt) -> dict[str, Any]:
    from lobsterlang.ir_codec import to_json

    approval = halt.kind == "approval_request"
    state: dict[str, Any] = {
        "pipeline": to_json(pipeline),
        "resumeAtIndex": halt.index + 1,
        "items": to_json_data(halt.request.get("items", [])) if approval else [],
        "haltType": halt.kind,
        "prompt": to_json_data(halt.request.get("prompt")),
    }
    if not approval:
        state["inputSchema"] = to_json_data(halt.request.get("responseSchema"))
    state["createdAt"] = now_iso()
    return state


def resume(state_key: str, decision: Decision, ctx: RunContext) -> Envelope:
    """Continue a halted pipeline after its gate, at most once per token."""
    store = ctx.store
    if decision.cancel:
        store.claim(state_key, "Resume state not found").release()
        store.delete_approval_ids(state_key)
        return cancelled_envelope()
    state = _peek(store, state_key)
    _check_decision(state, decision)
    claim = store.claim(state_key)
    store.delete_approval_ids(state_key)
    try:
        return _continue(claim, decision, ctx)
    finally:
        claim.release()


def _continue(claim: Claim, decision: Decision, ctx: RunContext) -> Envelope:
    state = _valid(claim.value)
    if decision.approve is False:
        return cancelled_envelope()
    pipeline = _stored_pipeline(state)
    items = [decision.response] if decision.has_response else list(state["items"])
    result = run_pipeline(pipeline, items, ctx, start_at=state["resumeAtIndex"])
    return envelope_for(pipeline, result, ctx.store)


def _peek(store: StateStore, key: str) -> dict[str, Any]:
    from lobsterlang.interpret.state import CorruptState

    try:
        value = store.read(key)
    except CorruptState:
        raise CommandError("Invalid pipeline resume state") from None
    if value is None:
        raise StateNotFound()
    return _valid(value)


def _valid(value: Any) -> dict[str, Any]:
    ok = (
        isinstance(value, dict) and isinstance(value.get("pipeline"), dict) and isinstance(value.get("items"), list)
        and isinstance(value.get("resumeAtIndex"), int) and not isinstance(value.get("resumeAtIndex"), bool)
    )
    if not ok:
        raise CommandError("Invalid pipeline resume state")
    return value  # type: ignore[no-any-return]


def _check_decision(state: dict[str, Any], decision: Decision) -> None:
    if state.get("haltType", "approval_request") == "approval_request":
        if decision.has_response:
            raise UsageError("approval resumes require --approve yes|no, not --response-json")
        return
    if not decision.has_response:
        raise UsageError("pipeline input resumes require --response-json <json>")
    problem = check_response(state.get("inputSchema"), decision.response, "pipeline input response")
    if problem is not None:
        raise UsageError(problem)


def _stored_pipeline(state: dict[str, Any]) -> ir.Pipeline:
    from lobsterlang.ir_codec import IRFormatError, from_json

    try:
        pipeline = from_json(state["pipeline"])
    except (IRFormatError, KeyError, TypeError, ValueError):
        raise CommandError("Invalid pipeline resume state") from None
    if not isinstance(pipeline, ir.Pipeline) or not 0 <= state["resumeAtIndex"] <= len(pipeline.stages):
        raise CommandError("Invalid pipeline resume state")
    return pipeline
