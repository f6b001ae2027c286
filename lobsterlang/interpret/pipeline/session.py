"""Tool-mode runs and resumes of pipelines: halts become resume state, tokens and envelopes."""

from __future__ import annotations

from typing import Any

from lobsterlang import ir
from lobsterlang.interpret import gatestate
from lobsterlang.interpret.envelope import (
    Envelope,
    cancelled_envelope,
    needs_approval_envelope,
    needs_input_envelope,
    ok_envelope,
)
from lobsterlang.interpret.errors import CommandError, LobsterRunError, StateNotFound, UsageError
from lobsterlang.interpret.pipeline.commands.gates import check_response
from lobsterlang.interpret.pipeline.runtime import Halt, PipelineResult, RunContext, run_pipeline
from lobsterlang.interpret.state import Claim, now_iso
from lobsterlang.interpret.tokens import PIPELINE_KIND, TokenPayload
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


def envelope_for(pipeline: ir.Pipeline, result: PipelineResult, ctx: RunContext) -> Envelope:
    """The envelope of a finished run; a halt writes sealed resume state and issues a signed token."""
    if result.halt is None:
        return ok_envelope(to_json_data(result.items))
    store = ctx.store
    ttl = gatestate.approval_ttl(ctx.env)
    signer = gatestate.signer_for(store)
    key = store.new_state_key(STATE_PREFIX)
    state = _resume_state(pipeline, result.halt)
    request = to_json_data(result.halt.request)
    bound = gatestate.binding(PIPELINE_KIND, key, key, str(result.halt.index), state["pipeline"], request, ttl)
    approval = result.halt.kind == "approval_request"
    token, approval_id = gatestate.issue(store, signer, key, state, bound, approval=approval)
    if approval:
        return needs_approval_envelope(request, token, approval_id)
    return needs_input_envelope(request, token)


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


def resume(state_key: str, decision: Decision, ctx: RunContext, token: TokenPayload | None = None) -> Envelope:
    """Continue a halted pipeline after its gate, at most once per token.

    The state is claimed, then checked against the token; anything refused before the
    pipeline continues (integrity, expiry, a wrong kind of answer) puts the state back.
    `--cancel` of a state that is already gone succeeds, as in the reference.
    """
    store = ctx.store
    try:
        claim = store.claim(state_key, "Resume state not found" if decision.cancel else "Pipeline resume state not found")
    except StateNotFound:
        if decision.cancel:
            return cancelled_envelope()
        raise
    try:
        state, pipeline = _checked(claim, state_key, decision, ctx, token)
    except LobsterRunError:
        claim.put_back()
        raise
    store.delete_approval_ids(state_key)
    try:
        if pipeline is None:
            return cancelled_envelope()
        return _continue(state, pipeline, decision, ctx)
    finally:
        claim.release()


def _checked(
    claim: Claim, key: str, decision: Decision, ctx: RunContext, token: TokenPayload | None,
) -> tuple[dict[str, Any], ir.Pipeline | None]:
    """The verified state and, unless the decision cancels, the pipeline to continue."""
    bound = gatestate.verify_claim(ctx.store, claim, key, token, ctx.env, _stored_ir)
    state = _valid(claim.value)
    if decision.cancel or decision.approve is False:
        return state, None
    gatestate.check_open(bound, state, ctx.env)
    _check_decision(state, decision)
    return state, _stored_pipeline(state)


def _stored_ir(state: dict[str, Any]) -> Any:
    return state.get("pipeline")


def _continue(state: dict[str, Any], pipeline: ir.Pipeline, decision: Decision, ctx: RunContext) -> Envelope:
    items = [decision.response] if decision.has_response else list(state["items"])
    result = run_pipeline(pipeline, items, ctx, start_at=state["resumeAtIndex"])
    return envelope_for(pipeline, result, ctx)


def _valid(value: Any) -> dict[str, Any]:
    ok = (
        isinstance(value, dict) and isinstance(value.get("pipeline"), (dict, list)) and isinstance(value.get("items"), list)
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
        stored = state["pipeline"]
        pipeline = _reference_pipeline(stored) if isinstance(stored, list) else from_json(stored)
    except (IRFormatError, KeyError, TypeError, ValueError):
        raise CommandError("Invalid pipeline resume state") from None
    if not isinstance(pipeline, ir.Pipeline) or not 0 <= state["resumeAtIndex"] <= len(pipeline.stages):
        raise CommandError("Invalid pipeline resume state")
    return pipeline


def compile_text(text: str) -> ir.Pipeline:
    """The pipeline IR, or `UsageError` with the parser's first message."""
    from lobsterlang.compile import compile_pipeline

    result = compile_pipeline(text)
    if result.ir is None or not result.ok:
        raise UsageError(result.diagnostics[0].message if result.diagnostics else "Empty pipeline")
    return result.ir


def _reference_pipeline(stages: list[Any]) -> ir.Pipeline:
    """The reference's stored stages (`{name, args, raw}`; accepted unsigned state only), compiled from their text."""
    raws = [stage.get("raw") if isinstance(stage, dict) else None for stage in stages]
    if not raws or not all(isinstance(raw, str) and raw.strip() for raw in raws):
        raise ValueError("stage without text")
    try:
        pipeline = compile_text(" | ".join(str(raw) for raw in raws))
    except UsageError:
        raise ValueError("stage text does not parse") from None
    if len(pipeline.stages) != len(stages):
        raise ValueError("stage count differs")
    return pipeline
