"""Resume tokens: base64url JSON `{protocolVersion:1, v:1, kind, stateKey}`, a pointer to stored state."""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from lobsterlang.interpret.errors import InvalidToken
from lobsterlang.record import Record

PIPELINE_KIND = "pipeline-resume"
WORKFLOW_KIND = "workflow-file"
KINDS = (PIPELINE_KIND, WORKFLOW_KIND)


class TokenPayload(Record):
    """A decoded token: which engine resumes it (`kind`) and where its state lives (`state_key`)."""

    kind: str
    state_key: str


def encode_token(kind: str, state_key: str) -> str:
    """The reference's token: unpadded base64url of compact JSON, keys in its order."""
    payload = {"protocolVersion": 1, "v": 1, "kind": kind, "stateKey": state_key}
    raw = json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def decode_token(token: str) -> TokenPayload:
    """Check a token in the reference's order; raise `InvalidToken` with its message.

    Inline tokens (a `pipeline` array, the legacy workflow form) are refused: a token can
    never carry stages, only point at state this machine wrote.
    """
    data = _decode_json(token)
    if not isinstance(data, dict):
        raise InvalidToken("Invalid token")
    if data.get("protocolVersion") != 1:
        raise InvalidToken("Unsupported protocol version")
    if data.get("v") != 1:
        raise InvalidToken("Unsupported token version")
    kind, key = data.get("kind"), data.get("stateKey")
    if kind not in KINDS or not isinstance(key, str) or not key or set(data) != {"protocolVersion", "v", "kind", "stateKey"}:
        raise InvalidToken("Invalid workflow token" if kind == WORKFLOW_KIND else "Invalid token")
    return TokenPayload(kind, key)


def _decode_json(token: str) -> Any:
    text = token.strip()
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        return json.loads(raw.decode("utf-8"))
    except (binascii.Error, ValueError, UnicodeDecodeError):
        raise InvalidToken("Invalid token") from None
