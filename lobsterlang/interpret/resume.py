"""Resume by token or approval id: decode, pick the engine by the token's kind, and return its envelope.

Workflow tokens (`kind: "workflow-file"`) go to the workflow engine as

    lobsterlang.interpret.workflow.resume(state_key: str, decision: Decision, ctx: RunContext) -> Envelope

where `Decision` (approve / response / cancel) is `lobsterlang.interpret.pipeline.session.Decision`
and `ctx.store` is the state store (`ctx.store.claim(state_key, ...)` makes it single-use).
The engine returns the envelope; this module prints it and picks the exit code.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

from lobsterlang.interpret.envelope import Envelope, error_envelope
from lobsterlang.interpret.errors import LobsterRunError
from lobsterlang.interpret.pipeline.runtime import RunContext
from lobsterlang.interpret.signals import cancel_on_signals
from lobsterlang.interpret.state import StateStore
from lobsterlang.interpret.tokens import PIPELINE_KIND, WORKFLOW_KIND, TokenPayload, decode_token


def token_for(token: str | None, approval_id: str | None, store: StateStore) -> TokenPayload:
    """The token's payload; an approval id is looked up and turned into one."""
    if token:
        return decode_token(token)
    key = store.approval_state_key(approval_id or "")
    kind = PIPELINE_KIND if key.startswith("pipeline_resume_") else WORKFLOW_KIND
    return TokenPayload(kind, key)


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
            payload = token_for(token, approval_id, ctx.store)
            if payload.kind == WORKFLOW_KIND:
                return _resume_workflow(payload.state_key, decision, ctx)
            from lobsterlang.interpret.pipeline.session import resume

            return resume(payload.state_key, decision, ctx)
    except LobsterRunError as exc:
        return error_envelope(exc.error_type, exc.message)
    except (OSError, RecursionError) as exc:
        from lobsterlang.interpret.pipeline.frontend import as_run_error

        return error_envelope("runtime_error", as_run_error(exc).message)


def _resume_workflow(state_key: str, decision: Any, ctx: RunContext) -> Envelope:
    workflow_resume = workflow_entry("resume")
    if workflow_resume is None:
        return error_envelope("runtime_error", "workflow files are not supported by this build")
    envelope: Envelope = workflow_resume(state_key, decision, ctx)
    return envelope


def workflow_entry(name: str) -> Any:
    """A function of the workflow engine (`run_file`, `resume`), or None when this build has none."""
    try:
        module = importlib.import_module("lobsterlang.interpret.workflow")
    except ImportError:
        return None
    return getattr(module, name, None)
