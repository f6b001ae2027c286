"""HMAC-SHA256 signing of gate tokens and stored documents; knows nothing about where state lives.

    signer = Signer(secret)
    token = signer.sign(payload)          # opaque base64url string
    payload = signer.verify(token)        # the payload, or InvalidToken
    document = signer.seal(document)      # adds "mac" over the rest of the document
    signer.is_sealed(document)            # True when its "mac" matches

Payloads and documents are JSON data; the MAC covers their canonical JSON (sorted keys, ASCII),
with a different domain tag for tokens and documents so one can never stand in for the other.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
from collections.abc import Mapping
from typing import Any

from lobsterlang.interpret.errors import InvalidToken

MAC_KEY = "mac"
_TOKEN_TAG = b"lobsterlang-token-v2\n"
_DOCUMENT_TAG = b"lobsterlang-state-v2\n"


def canonical(value: Any) -> bytes:
    """The bytes a MAC or digest covers: sorted keys, no spaces, ASCII only."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode("ascii")


def digest(value: Any) -> str:
    """SHA-256 (hex) of a value's canonical JSON: binds IR and shown requests without storing them twice."""
    return hashlib.sha256(canonical(value)).hexdigest()


def encode_json(value: Any) -> str:
    """Unpadded base64url of compact JSON (the shape of the reference's tokens)."""
    raw = json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def decode_json(token: str) -> Any:
    """The JSON inside a token, or InvalidToken."""
    text = token.strip()
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        return json.loads(raw.decode("utf-8"))
    except (binascii.Error, ValueError, UnicodeDecodeError):
        raise InvalidToken("Invalid token") from None


class Signer:
    """Signs and verifies with one secret key (at least 32 bytes)."""

    def __init__(self, key: bytes) -> None:
        if len(key) < 32:
            raise ValueError("signing key must be at least 32 bytes")
        self._key = key

    def _mac(self, tag: bytes, body: Mapping[str, Any]) -> str:
        return hmac.new(self._key, tag + canonical(dict(body)), hashlib.sha256).hexdigest()

    def sign(self, payload: Mapping[str, Any]) -> str:
        """A token carrying `payload` and its MAC."""
        body = {k: v for k, v in payload.items() if k != MAC_KEY}
        return encode_json({**body, MAC_KEY: self._mac(_TOKEN_TAG, body)})

    def verify(self, token: str) -> dict[str, Any]:
        """The payload of a token this key signed; `InvalidToken("Invalid token")` otherwise."""
        data = decode_json(token)
        if not isinstance(data, dict) or not self._matches(_TOKEN_TAG, data):
            raise InvalidToken("Invalid token")
        return {k: v for k, v in data.items() if k != MAC_KEY}

    def seal(self, document: Mapping[str, Any]) -> dict[str, Any]:
        """`document` with a `mac` over everything else in it."""
        body = {k: v for k, v in document.items() if k != MAC_KEY}
        return {**body, MAC_KEY: self._mac(_DOCUMENT_TAG, body)}

    def is_sealed(self, document: Any) -> bool:
        """Whether `document` is a mapping whose `mac` this key made over the rest of it."""
        return isinstance(document, dict) and self._matches(_DOCUMENT_TAG, document)

    def _matches(self, tag: bytes, data: Mapping[str, Any]) -> bool:
        given = data.get(MAC_KEY)
        if not isinstance(given, str):
            return False
        body = {k: v for k, v in data.items() if k != MAC_KEY}
        try:
            expected = self._mac(tag, body)
        except (TypeError, ValueError):
            return False
        return hmac.compare_digest(given, expected)
