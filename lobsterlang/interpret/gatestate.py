"""Signed gates: issue a token bound to sealed resume state, and check both before a resume does anything.

A halt stores its resume state sealed (a MAC over the whole document) with a `gate` binding:
the state key, the run, the gate, the approval id, a digest of the stored IR, a digest of the
request shown and the expiry. The token carries the same binding, signed. A resume accepts the
state only when the state's seal is intact, its binding is the token's and it names what the
operator named (the approval id of `--id`, the run of `--run`); otherwise `state_integrity`, and
the state stays where it was. Unsigned state (written by the reference CLI) needs an explicit opt-in.

The binding is a flat mapping compared field by field (`BINDING_KEYS`), so a field added later
(a gate's path inside a sub-workflow) is bound the same way: add it to the binding and the keys.
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
from lobsterlang.interpret.state import Claim, StateStore, random_hex
from lobsterlang.interpret.statefiles import CorruptState
from lobsterlang.interpret.tokens import TokenPayload

DEFAULT_TTL_S = 7 * 86400
TTL_ENV = "LOBSTER_APPROVAL_TTL"
UNSIGNED_ENV = "LOBSTER_ACCEPT_UNSIGNED_STATE"
SECTION = "lobsterlang"
BINDING = "gate"
BINDING_KEYS = ("kind", "stateKey", "run", "gate", "approvalId", "ir", "shown", "exp")
APPROVAL_ID_ATTEMPTS = 16
_YES = ("1", "true", "yes", "y")


def signer_for(store: StateStore) -> Signer:
    """The signer: the host's key, else the store's (created on first use); `StateIntegrityError` when unusable."""
    if store.host_key_problem is not None:
        raise StateIntegrityError(f"the signing key the host supplied is unusable: {store.host_key_problem}")
    if store.host_key is not None:
        return Signer(store.host_key)
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


def issue(store: StateStore, signer: Signer, key: str, state: dict[str, Any], bound: Mapping[str, Any],
          *, approval: bool) -> tuple[str, str | None]:
    """Seal the state and sign its token; an approval gate also publishes an approval id, bound into both.

    The id is drawn first and bound, then published (linked into place, never over another);
    when it is taken, the state is sealed again with a new one. None when no id could be published
    (the token still works).
    """
    if not approval:
        write_sealed(store, signer, key, state, bound)
        return token_for(signer, bound), None
    token = ""
    for _ in range(APPROVAL_ID_ATTEMPTS):
        approval_id = random_hex(4)
        full = {**bound, "approvalId": approval_id}
        write_sealed(store, signer, key, state, full)
        token = token_for(signer, full)
        try:
            if store.publish_approval_id(approval_id, key, token):
                return token, approval_id
        except OSError:
            break
    return token, None


def check_approval_id(binding: Mapping[str, Any] | None, given: str, cleaned: str) -> None:
    """`StateIntegrityError` unless the token an approval index holds was issued for that approval id."""
    if binding is not None and binding.get("approvalId") != cleaned:
        raise StateIntegrityError(
            f'Approval ID "{given}" is not the id its gate was issued with; nothing ran (an index copied from '
            "another gate, or written by a lobsterlang that did not bind approval ids: resume with the token, "
            "or with lobster resume --run RUN_ID)"
        )


def verify_claim(
    store: StateStore, claim: Claim, key: str, token: TokenPayload | None,
    env: Mapping[str, str], ir_of: Callable[[dict[str, Any]], Any], expect: Mapping[str, Any] | None = None,
) -> dict[str, Any] | None:
    """The state's binding (None for accepted unsigned state); `StateIntegrityError` with the state put back.

    `token` is the verified token, or None when the caller resumes by run id (the state's own
    seal is then all there is to check). `expect` holds binding fields the caller named (the run
    of `resume --run` and the gate its journal shows): signed state bound to anything else is
    refused. An unsigned token only ever opens unsigned state.
    """
    try:
        if token is not None and token.binding is None and isinstance(claim.value, dict) and MAC_KEY in claim.value:
            raise StateIntegrityError(f"Resume state {key} is signed; an unsigned token cannot open it (nothing ran)")
        bound = _verified(store, claim, key, token.binding if token is not None else None, env, ir_of)
        _check_expected(key, bound, expect or {})
        return bound
    except StateIntegrityError:
        claim.put_back()
        raise


def _check_expected(key: str, bound: Mapping[str, Any] | None, expect: Mapping[str, Any]) -> None:
    if bound is None:
        return  # accepted unsigned state binds nothing (the opt-in trusts every writer)
    for field, value in expect.items():
        if bound.get(field) != value:
            raise StateIntegrityError(f"Resume state {key} belongs to {field} {bound.get(field)!r}, not {value!r}; nothing ran")


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
