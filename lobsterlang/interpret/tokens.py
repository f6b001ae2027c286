"""Resume tokens: base64url JSON `{protocolVersion:1, v, kind, stateKey, …}`, a pointer to stored state.

Version 2 tokens (the ones lobsterlang issues) carry the gate's binding and an HMAC made with
the state directory's key (`gatestate`); version 1 tokens are the reference CLI's unsigned
pointers, accepted only with an explicit opt-in.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lobsterlang.interpret.errors import InvalidToken
from lobsterlang.interpret.signing import Signer, decode_json
from lobsterlang.interpret.state import resume_key_prefix
from lobsterlang.record import Record

PIPELINE_KIND = "pipeline-resume"
WORKFLOW_KIND = "workflow-file"
KINDS = (PIPELINE_KIND, WORKFLOW_KIND)
PREFIXES = {PIPELINE_KIND: "pipeline_resume", WORKFLOW_KIND: "workflow_resume"}
_UNSIGNED_FIELDS = {"protocolVersion", "v", "kind", "stateKey"}
UNSIGNED_HINT = "unsigned token (written by another Lobster CLI?); resume with --accept-unsigned-state to accept it"


class TokenPayload(Record):
    """A decoded token: the engine (`kind`), where its state lives, and the signed binding (None: unsigned)."""

    kind: str
    state_key: str
    binding: dict[str, Any] | None = None


def kind_of_key(state_key: str) -> str:
    """The token kind a resume state key belongs to; `InvalidToken` for any other key."""
    prefix = resume_key_prefix(state_key)
    if prefix is None:
        raise InvalidToken("Invalid token")
    return PIPELINE_KIND if prefix == "pipeline_resume" else WORKFLOW_KIND


def decode_token(token: str, signer: Callable[[], Signer], accept_unsigned: bool = False) -> TokenPayload:
    """Check a token in the reference's order, then its signature; raise `InvalidToken` with its message.

    The state key must be a resume state key of the token's kind before any file is touched.
    Inline tokens (a `pipeline` array, the legacy workflow form) are refused: a token can
    never carry stages, only point at state this machine wrote.
    """
    data = decode_json(token)
    if not isinstance(data, dict):
        raise InvalidToken("Invalid token")
    if data.get("protocolVersion") != 1:
        raise InvalidToken("Unsupported protocol version")
    if data.get("v") not in (1, 2) or isinstance(data.get("v"), bool):
        raise InvalidToken("Unsupported token version")
    kind, key = data.get("kind"), data.get("stateKey")
    invalid = "Invalid workflow token" if kind == WORKFLOW_KIND else "Invalid token"
    if kind not in KINDS or not isinstance(key, str) or resume_key_prefix(key) != PREFIXES.get(str(kind)):
        raise InvalidToken(invalid)
    if data["v"] == 1:
        if set(data) != _UNSIGNED_FIELDS:
            raise InvalidToken(invalid)
        if not accept_unsigned:
            raise InvalidToken(f"{invalid}: {UNSIGNED_HINT}")
        return TokenPayload(str(kind), key)
    return TokenPayload(str(kind), key, signer().verify(token))


def encode_unsigned(kind: str, state_key: str) -> str:
    """The reference's token for a state key (tests and fixtures; lobsterlang never issues these)."""
    from lobsterlang.interpret.signing import encode_json

    return encode_json({"protocolVersion": 1, "v": 1, "kind": kind, "stateKey": state_key})
