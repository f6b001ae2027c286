"""A stand-in LLM adapter (generic http and OpenClaw `/tools/invoke`) whose replies depend on the prompt."""

from __future__ import annotations

import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any

# Inputs of the recorded LLM cases (tests/cases/llm.json), shared by the test and its recorder.
ARTIFACTS = '["note one", {"kind":"doc","text":"t"}, 5, [1,2]]'
EMAILS = json.dumps([
    {"id": "m1", "from": "Ann <ann@example.com>", "subject": "Lunch?", "labels": ["UNREAD", "INBOX"], "snippet": "tomorrow?"},
    {"id": "m2", "from": "billing@shop.example", "subject": "Invoice 42 - action required", "labels": ["UNREAD"]},
    {"id": "m3", "sender": "no-reply@service.example", "subject": "Your weekly digest", "labels": ["UNREAD"]},
    {"messageId": "m4", "from": "bob@example.com", "subject": "Re: plans", "labels": ["unread"], "thread_id": "t4"},
    {"id": "m5", "from": "Carol <carol@example.com>", "subject": "URGENT: server down", "labels": []},
    "just a string",
])

REPLIES: dict[str, tuple[Any, int]] = {
    "fail": ({"ok": False, "error": {"message": "model overloaded"}}, 200),
    "http500": ({"x": 1}, 500),
    "bare": ({"text": "hello"}, 200),
    "invalid": ({"ok": True, "result": {"nooutput": 1}}, 200),
    "badschema": ({"ok": True, "result": {"output": {"data": {"wrong": 1}}}}, 200),
}


def triage(artifacts: list[Any]) -> dict[str, Any]:
    """Decisions for `email.triage --llm`: unread mail needs a reply, anything mentioning money needs action."""
    decisions: list[dict[str, Any]] = []
    for email in artifacts:
        labels = email.get("labels", [])
        if "invoice" in email.get("subject", "").lower():
            decisions.append({"id": email["id"], "category": "needs_action", "rationale": "pay it"})
        elif "UNREAD" in labels:
            reply = {"body": f"Thanks for {email['subject']}"} if email["id"] != "m4" else {"subject": "Custom", "body": "ok"}
            decisions.append({"id": email["id"], "category": "needs_reply", "reply": reply})
        else:
            decisions.append({"id": email["id"], "category": "fyi"})
    decisions.append({"id": "", "category": "fyi"})
    return {"ok": True, "result": {"output": {"data": {"decisions": decisions}}}}


def reply(payload: dict[str, Any]) -> tuple[Any, int]:
    if payload.get("schemaVersion") == "email_triage.v1":
        return triage(payload["artifacts"]), 200
    prompt = payload["prompt"]
    if prompt == "schema":
        attempt = payload.get("retryContext", {}).get("attempt", 1)
        data = {"score": 3} if attempt >= 2 else {"wrong": True}
        return {"ok": True, "result": {"output": {"data": data}, "runId": "r1", "model": "m"}}, 200
    if prompt in REPLIES:
        return REPLIES[prompt]
    result = {"runId": "run-1", "model": payload.get("model", "default"), "output": {"text": "answer to " + prompt}, "usage": {"inputTokens": 3}}
    return {"ok": True, "result": result}, 200


class Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        answer, code = reply(body.get("args", body))
        if "tool" in body:
            answer = {"ok": True, "result": answer}
        data = json.dumps(answer).encode()
        self.send_response(code)
        self.send_header("content-type", "application/json")
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        return


def start(port: int = 0) -> HTTPServer:
    server = HTTPServer(("127.0.0.1", port), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


if __name__ == "__main__":
    start(int(sys.argv[1]))
    threading.Event().wait()
