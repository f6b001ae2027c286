"""`LOBSTER_IDEMPOTENCY_KEY`: one key per step of a run, the same for every attempt, retry and resume of it."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

KEY_VAR = "LOBSTER_IDEMPOTENCY_KEY"


def idempotency_key(run_id: str, path: tuple[str | int, ...]) -> str:
    """`lobster-<32 hex>` from the run id and the step's path (calling steps, step id, loop index, branch id)."""
    text = "\0".join([run_id, *(str(part) for part in path)])
    return "lobster-" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def with_key(env: Mapping[str, str], run_id: str, path: tuple[str | int, ...]) -> dict[str, str]:
    """`env` plus the step's key (a run without an id, such as a plan, gets none)."""
    if not run_id:
        return dict(env)
    return {**env, KEY_VAR: idempotency_key(run_id, path)}
