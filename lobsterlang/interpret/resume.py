"""Resume by token or approval id: verify, pick the engine by the token's kind, and return its envelope.

Workflow tokens (`kind: "workflow-file"`) go to the workflow engine as

    lobsterlang.interpret.workflow.resume(state_key: str, decision: Decision, ctx: RunContext,
                                          token: TokenPayload | None) -> Envelope

where `Decision` (approve / response / cancel) is `lobsterlang.interpret.pipeline.session.Decision`
and `ctx.store` is the state store (`ctx.store.claim(state_key, ...)` makes it single-use).
The token is verified (signature, key shape) before any state file is read; the engine checks
the claimed state against it (`gatestate.verify_claim`). The engine returns the envelope; this
module prints it and picks the exit code.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from lobsterlang.interpret.envelope import Envelope, error_envelope
from lobsterlang.interpret.errors import InvalidToken, LobsterRunError
from lobsterlang.interpret.gatestate import accepts_unsigned, check_approval_id, signer_for
from lobsterlang.interpret.pipeline.runtime import RunContext
from lobsterlang.interpret.signals import cancel_on_signals
from lobsterlang.interpret.state import StateStore, approval_id_of
from lobsterlang.interpret.tokens import UNSIGNED_HINT, WORKFLOW_KIND, TokenPayload, decode_token, kind_of_key


def token_for(token: str | None, approval_id: str | None, store: StateStore, env: Mapping[str, str]) -> TokenPayload:
    """The token's verified payload; an approval id is looked up and its stored token verified."""
    unsigned = accepts_unsigned(env)
    if token:
        return decode_token(token, lambda: signer_for(store), unsigned)
    key, stored = store.approval_index(approval_id or "")
    if stored is not None:
        payload = decode_token(stored, lambda: signer_for(store), unsigned)
        if payload.state_key != key:
            raise InvalidToken("Invalid token")
        check_approval_id(payload.binding, approval_id or "", approval_id_of(approval_id or ""))
        return payload
    if not unsigned:
        raise InvalidToken(f'Approval ID "{approval_id}": {UNSIGNED_HINT}')
    return TokenPayload(kind_of_key(key), key)


def resume_envelope(
    token: str | None, approval_id: str | None, decide: Callable[[], Any],
    env: Mapping[str, str] | None = None, cwd: str | None = None,
) -> Envelope:
    """Check the arguments (`decide` raises on bad ones), then resume; errors become error envelopes."""
    from lobsterlang.interpret.pipeline.frontend import make_context

    ctx = make_context("tool", env, cwd)
    try:
        with cancel_on_signals(ctx.cancel):
            decision = decide()
            payload = token_for(token, approval_id, ctx.store, ctx.env)
            if payload.kind == WORKFLOW_KIND:
                return _resume_workflow(payload, decision, ctx)
            from lobsterlang.interpret.pipeline.session import resume

            return resume(payload.state_key, decision, ctx, payload)
    except LobsterRunError as exc:
        return error_envelope(exc.error_type, exc.message)
    except (OSError, RecursionError) as exc:
        from lobsterlang.interpret.pipeline.frontend import as_run_error

        return error_envelope("runtime_error", as_run_error(exc).message)


def _resume_workflow(payload: TokenPayload, decision: Any, ctx: RunContext) -> Envelope:
    from lobsterlang.interpret.workflow.runs import resume

    return resume(payload.state_key, decision, ctx, payload)
