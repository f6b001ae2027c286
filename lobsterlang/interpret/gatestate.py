"""Signed gates: issue a token bound to sealed resume state, and check both before a resume does anything.

A halt stores its resume state sealed (a MAC over the whole document) with a `gate` binding:
the state key, the run, the gate, a digest of the stored IR, a digest of the request shown and
the expiry. The token carries the same binding, signed. A resume accepts the state only when
the state's seal is intact and its binding is the token's; otherwise `state_integrity`, and the
state stays where it was. Unsigned state (written by the reference CLI) needs an explicit opt-in.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from datetime import datetime, timezone
from typing import Any

from lobsterlang.durations import HINT, parse_duration
from lobsterlang.interpret.errors import GateExpired, StateIntegrityError, UsageError
from lobsterlang.interpret.signing import MAC_KEY, Signer, digest
from lobsterlang.interpret.state import Claim, CorruptState, StateStore
from lobsterlang.interpret.tokens import TokenPayload

DEFAULT_TTL_S = 7 * 86400
TTL_ENV = "LOBSTER_APPROVAL_TTL"
UNSIGNED_ENV = "LOBSTER_ACCEPT_UNSIGNED_STATE"
SECTION = "lobsterlang"
BINDING = "gate"
BINDING_KEYS = ("kind", "stateKey", "run", "gate", "ir", "shown", "exp")
_YES = ("1", "true", "yes", "y")


def signer_for(store: StateStore) -> Signer:
    """The signer of a state directory (its key is created on first use); `StateIntegrityError` when unusable."""
    try:
        return Signer(store.secret_key())
    except CorruptState as exc:
        raise StateIntegrityError(f"the signing key of {store.root} is unusable: {exc}") from None


def approval_ttl(env: Mapping[str, str], step_value: Any = None) -> int:
    """Seconds a gate stays open: the step's `expires_in`, else LOBSTER_APPROVAL_TTL, else 7 days."""
    if step_value is not None:
        seconds = parse_duration(step_value)
        if seconds is None:
            raise UsageError(f"approval.expires_in {step_value!r} is not a duration; {HINT}")
        return seconds
    configured = env.get(TTL_ENV, "").strip()
    if not configured:
        return DEFAULT_TTL_S
    seconds = parse_duration(configured)
    if seconds is None:
        raise UsageError(f"{TTL_ENV}={configured!r} is not a duration; {HINT}")
    return seconds


def accepts_unsigned(env: Mapping[str, str]) -> bool:
    """LOBSTER_ACCEPT_UNSIGNED_STATE=1 (or `resume --accept-unsigned-state`)."""
    return env.get(UNSIGNED_ENV, "").strip().lower() in _YES


def binding(kind: str, state_key: str, run: str, gate: str, ir_json: Any, shown: Any, ttl_s: int) -> dict[str, Any]:
    """What a token and its state are bound to.

    The IR digest is taken over the IR as it reads back from the state file, because a resume
    computes it again from there; the digest of what was shown is only ever compared.
    """
    return {"kind": kind, "stateKey": state_key, "run": run, "gate": gate, "ir": digest(_as_stored(ir_json)),
            "shown": digest(shown), "exp": int(time.time()) + ttl_s}


def _as_stored(value: Any) -> Any:
    """`value` as it reads back from a state file (lists for tuples, string keys)."""
    return json.loads(json.dumps(value, ensure_ascii=False))


def token_for(signer: Signer, bound: Mapping[str, Any]) -> str:
    """The signed resume token (the reference's outer shape, version 2, plus the binding and a MAC)."""
    return signer.sign({"protocolVersion": 1, "v": 2, **bound})


def write_sealed(store: StateStore, signer: Signer, key: str, state: dict[str, Any], bound: Mapping[str, Any]) -> None:
    """Store `state` with its binding, sealed over exactly what is written."""
    section = dict(state.get(SECTION) or {})
    section[BINDING] = dict(bound)
    document = _as_stored({**state, SECTION: section})
    store.write(key, signer.seal(document))


def verify_claim(
    store: StateStore, claim: Claim, key: str, token: TokenPayload | None,
    env: Mapping[str, str], ir_of: Callable[[dict[str, Any]], Any],
) -> dict[str, Any] | None:
    """The state's binding (None for accepted unsigned state); `StateIntegrityError` with the state put back.

    `token` is the verified token, or None when the caller resumes by run id (the state's own
    seal is then all there is to check). An unsigned token only ever opens unsigned state.
    """
    try:
        if token is not None and token.binding is None and isinstance(claim.value, dict) and MAC_KEY in claim.value:
            raise StateIntegrityError(f"Resume state {key} is signed; an unsigned token cannot open it (nothing ran)")
        return _verified(store, claim, key, token.binding if token is not None else None, env, ir_of)
    except StateIntegrityError:
        claim.put_back()
        raise


def _verified(
    store: StateStore, claim: Claim, key: str, token_binding: Mapping[str, Any] | None,
    env: Mapping[str, str], ir_of: Callable[[dict[str, Any]], Any],
) -> dict[str, Any] | None:
    state = claim.value
    if claim.problem or not isinstance(state, dict):
        raise StateIntegrityError(f"Resume state {key} is unreadable ({claim.problem or 'not a JSON object'}); nothing ran")
    if MAC_KEY not in state:
        if token_binding is not None:
            raise StateIntegrityError(f"Resume state {key} lost its signature; nothing ran")
        if not accepts_unsigned(env):
            raise StateIntegrityError(
                f"Resume state {key} is not signed (written by another Lobster CLI?); nothing ran. If you trust "
                f"every writer of {store.root}, resume with --accept-unsigned-state (or {UNSIGNED_ENV}=1)"
            )
        return None
    if not signer_for(store).is_sealed(state):
        raise StateIntegrityError(f"Resume state {key} was modified after its gate was issued; nothing ran")
    section = state.get(SECTION)
    bound = section.get(BINDING) if isinstance(section, dict) else None
    if not isinstance(bound, dict) or bound.get("stateKey") != key or bound.get("ir") != digest(ir_of(state)):
        raise StateIntegrityError(f"Resume state {key} does not belong to this key; nothing ran")
    if token_binding is not None and any(token_binding.get(k) != bound.get(k) for k in BINDING_KEYS):
        raise StateIntegrityError(f"Resume state {key} does not match its token; nothing ran")
    return bound


def check_open(bound: Mapping[str, Any] | None, state: Mapping[str, Any], env: Mapping[str, str]) -> None:
    """`GateExpired` when the gate's window has passed (unsigned state: its createdAt plus the TTL)."""
    expires = bound.get("exp") if bound is not None else _unsigned_expiry(state, env)
    if isinstance(expires, (int, float)) and time.time() > expires:
        what = "Input request" if "inputStepId" in state or state.get("haltType") == "input_request" else "Approval"
        raise GateExpired(f"{what} expired at {iso(expires)}; the gate can only be cancelled (lobster resume --cancel)")


def _unsigned_expiry(state: Mapping[str, Any], env: Mapping[str, str]) -> float | None:
    created = state.get("createdAt")
    if not isinstance(created, str):
        return None
    try:
        start = datetime.fromisoformat(created.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None
    return start + approval_ttl(env)


def iso(seconds: float) -> str:
    """Unix seconds as `2026-01-02T03:04:05Z`."""
    return datetime.fromtimestamp(seconds, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def is_expired(expires_at: Any) -> bool:
    """Whether an ISO `expiresAt` (as journals record it) is in the past."""
    if not isinstance(expires_at, str):
        return False
    try:
        return datetime.fromisoformat(expires_at.replace("Z", "+00:00")).timestamp() < time.time()
    except ValueError:
        return False
