"""A stand-in LLM adapter (generic http and OpenClaw `/tools/invoke`) whose replies depend on the prompt.

Prompts `slow` and `stream` hold the reply back (`stream` after its first 8 KiB) until the client goes away, which
the server notes in its `gone` queue, or for at most `HOLD_S`: a client that stops waiting on a timeout or a size cap
is seen to do so, without a sleep anywhere.
"""

from __future__ import annotations

import json
import queue
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

HOLD_S = 30.0
"""How long a held reply waits for its client to go away before it is sent after all."""
BIG_TEXT = "x" * 5000

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
    prompt = payload.get("prompt")
    if prompt is None:  # an openclaw.invoke tool call: echo its arguments, `pad` characters of padding on request
        pad = payload.get("pad", 0) if isinstance(payload, dict) else 0
        return {"ok": True, "result": {"args": payload, "padding": "p" * pad}}, 200
    if prompt in ("schema", "schema3"):
        attempt = payload.get("retryContext", {}).get("attempt", 1)
        data = {"score": 3} if attempt >= (2 if prompt == "schema" else 3) else {"wrong": True}
        return {"ok": True, "result": {"output": {"data": data}, "runId": "r1", "model": "m"}}, 200
    if prompt == "big":
        return {"ok": True, "result": {"output": {"text": BIG_TEXT}, "model": payload.get("model", "default")}}, 200
    if prompt in REPLIES:
        return REPLIES[prompt]
    result = {"runId": "run-1", "model": payload.get("model", "default"), "output": {"text": "answer to " + prompt}, "usage": {"inputTokens": 3}}
    return {"ok": True, "result": result}, 200


class Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        payload = body.get("args", body)
        if isinstance(payload, dict) and payload.get("prompt") == "stream":
            self._stream()
            return
        if isinstance(payload, dict) and payload.get("prompt") == "slow" and self._client_left("slow"):
            return
        answer, code = reply(payload)
        if "tool" in body:
            answer = {"ok": True, "result": answer}
        data = json.dumps(answer).encode()
        self.send_response(code)
        self.send_header("content-type", "application/json")
        if isinstance(payload, dict) and payload.get("prompt") == "sized":
            self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _stream(self) -> None:
        """8 KiB of a reply with no length given, then nothing while the client stays: only a reader that counts stops early."""
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.end_headers()
        self.wfile.write(b'{"ok": true, "result": {"output": {"text": "' + b"s" * 8192)
        self.wfile.flush()
        if not self._client_left("stream"):
            self.wfile.write(b'"}}}')

    def _client_left(self, prompt: str) -> bool:
        """Note in the server's `held` that the reply is held back; wait until the client closes the connection
        (True, noted in `gone`) or HOLD_S passed."""
        self.server.held.put(prompt)  # type: ignore[attr-defined]
        self.connection.settimeout(HOLD_S)
        try:
            left = bool(self.connection.recv(1) == b"")
        except TimeoutError:
            return False
        except OSError:
            left = True
        if left:
            self.server.gone.put(prompt)  # type: ignore[attr-defined]
        return left

    def log_message(self, *args: Any) -> None:
        return


def start(port: int = 0) -> ThreadingHTTPServer:
    """Serve in a thread; the server's `held` queue receives the prompt of each reply held back, `gone` the prompt
    of each held reply whose client went away."""
    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.daemon_threads = True
    server.held = queue.Queue()  # type: ignore[attr-defined]
    server.gone = queue.Queue()  # type: ignore[attr-defined]
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    return server


if __name__ == "__main__":
    start(int(sys.argv[1]))
    threading.Event().wait()
