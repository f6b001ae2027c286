"""Tool-mode envelopes, key for key as the reference prints them (`protocolVersion` first)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lobsterlang.interpret.values import stringify

PROTOCOL_VERSION = 1
Envelope = dict[str, Any]


def _status(status: str, output: list[Any], approval: Any = None, request: Any = None) -> Envelope:
    return {
        "protocolVersion": PROTOCOL_VERSION,
        "ok": True,
        "status": status,
        "output": output,
        "requiresApproval": approval,
        "requiresInput": request,
    }


def ok_envelope(output: list[Any]) -> Envelope:
    """`status: ok` with the final items."""
    return _status("ok", output)


def needs_approval_envelope(request: Mapping[str, Any], token: str, approval_id: str | None) -> Envelope:
    """`status: needs_approval`: the approval request item plus `resumeToken` (and `approvalId` when issued)."""
    approval = {**request, "resumeToken": token}
    if approval_id is not None:
        approval["approvalId"] = approval_id
    return _status("needs_approval", [], approval)


def needs_input_envelope(request: Mapping[str, Any], token: str) -> Envelope:
    """`status: needs_input`: prompt, schema, optional defaults/subject, the `path` of a gate inside a step, and
    `resumeToken` (no items, no id)."""
    shown: dict[str, Any] = {"type": "input_request", "prompt": request.get("prompt"), "responseSchema": request.get("responseSchema")}
    for key in ("defaults", "subject", "path"):
        if key in request:
            shown[key] = request[key]
    shown["resumeToken"] = token
    return _status("needs_input", [], None, shown)


def with_pending(envelopes: list[Envelope]) -> Envelope:
    """Several gates pending at once: the first one's envelope, plus `pendingGates` listing every pending gate's
    request (with its own `resumeToken` and `approvalId`) in order; each is answered on its own."""
    pending = [e["requiresApproval"] or e["requiresInput"] for e in envelopes]
    return {**envelopes[0], "pendingGates": pending}


def cancelled_envelope() -> Envelope:
    """`status: cancelled` (resume --approve no, resume --cancel)."""
    return _status("cancelled", [])


def error_envelope(error_type: str, message: str) -> Envelope:
    """`ok: false` with `error: {type, message}`; there is no `status`."""
    return {"protocolVersion": PROTOCOL_VERSION, "ok": False, "error": {"type": error_type, "message": message}}


def dump(envelope: Mapping[str, Any]) -> str:
    """The envelope as the reference prints it: 2-space JSON and a newline."""
    return stringify(envelope, 2) + "\n"
