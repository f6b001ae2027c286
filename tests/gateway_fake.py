"""A stand-in OpenClaw gateway for the `openclaw.invoke` / `clawd.invoke` cases: the reply depends on the action.

`POST /tools/invoke` with `{"tool", "action", "args", …}`. Action `echo` answers with what it received
(path, bearer token, content type and the parsed body), so a recorded case shows what the caller sent;
the other actions answer each with one of the reply shapes the callers must handle.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

# action -> (HTTP status, raw response body)
REPLIES: dict[str, tuple[int, str]] = {
    "list": (200, json.dumps({"ok": True, "result": [1, {"a": 2}]})),
    "nothing": (200, json.dumps({"ok": True})),
    "raw-list": (200, json.dumps(["x", "y"])),
    "raw-object": (200, json.dumps({"text": "hi"})),
    "fail": (200, json.dumps({"ok": False, "error": {"message": "no such channel"}})),
    "fail-bare": (200, json.dumps({"ok": False})),
    "fail-text": (200, json.dumps({"ok": False, "error": "denied"})),
    "ok-not-true": (200, json.dumps({"ok": "yes", "result": 1})),
    "http500": (500, "upstream exploded"),
    "not-json": (200, "<html>hello</html>"),
    "empty": (200, ""),
}


class Gateway(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("content-length") or 0))
        body = json.loads(raw or b"null")
        self.server.calls.append(body)  # type: ignore[attr-defined]
        action = body.get("action") if isinstance(body, dict) else None
        if action == "echo":
            received = {"path": self.path, "authorization": self.headers.get("authorization"),
                        "contentType": self.headers.get("content-type"), "body": body}
            status, text = 200, json.dumps({"ok": True, "result": received})
        else:
            status, text = REPLIES.get(str(action), (404, "unknown action"))
        data = text.encode("utf-8")
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        return


def start() -> ThreadingHTTPServer:
    """A gateway on a free local port, serving from a daemon thread; `shutdown()` it when done. Its `calls` lists
    the body of every call it received, in order."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), Gateway)
    server.calls = []  # type: ignore[attr-defined]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server
