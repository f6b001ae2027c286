"""A refused rename is a `RequestFailed` error with the reason, and the server logs no traceback for it (editors show
the server's stderr as errors in their logs)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from lsprotocol import types

FLOW = "steps:\n  - id: fetch\n    run: echo hi\n  - id: use\n    run: cat\n    stdin: $fetch.json\n"
BROKEN = FLOW.replace("  - id: use\n", "  - id: fetch\n")


def _framed(message: dict[str, Any]) -> bytes:
    body = json.dumps(message).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def _responses(stdout: bytes) -> dict[int, dict[str, Any]]:
    found: dict[int, dict[str, Any]] = {}
    while stdout:
        head, _, rest = stdout.partition(b"\r\n\r\n")
        length = int(head.split(b"Content-Length:")[1].split(b"\r\n")[0])
        message = json.loads(rest[:length])
        stdout = rest[length:]
        if "id" in message and "method" not in message:
            found[message["id"]] = message
    return found


def _session(tmp_path: Path, requests: list[tuple[str, dict[str, Any]]]) -> tuple[dict[int, dict[str, Any]], str]:
    """Open flow.lobster and broken.lobster, send `requests` (ids 2, 3…), shut down; the answers by id and stderr."""
    messages: list[dict[str, Any]] = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {}}},
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
    ]
    for name, text in (("flow", FLOW), ("broken", BROKEN)):
        item = {"uri": (tmp_path / f"{name}.lobster").as_uri(), "languageId": "lobster", "version": 1, "text": text}
        messages.append({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": item}})
    messages += [{"jsonrpc": "2.0", "id": n, "method": m, "params": p} for n, (m, p) in enumerate(requests, start=2)]
    messages += [{"jsonrpc": "2.0", "id": 99, "method": "shutdown"}, {"jsonrpc": "2.0", "method": "exit"}]
    proc = subprocess.run([sys.executable, "-m", "lobsterlang", "lsp"], input=b"".join(map(_framed, messages)),
                          capture_output=True, timeout=300, cwd=tmp_path, check=False)
    return _responses(proc.stdout), proc.stderr.decode("utf-8", "replace")


def _at(tmp_path: Path, name: str, line: int, character: int) -> dict[str, Any]:
    return {"textDocument": {"uri": (tmp_path / f"{name}.lobster").as_uri()}, "position": {"line": line, "character": character}}


def test_refused_renames_are_request_failed_with_the_reason_and_no_traceback(tmp_path: Path) -> None:
    answers, stderr = _session(tmp_path, [
        ("textDocument/rename", {**_at(tmp_path, "flow", 5, 13), "newName": "use"}),
        ("textDocument/rename", {**_at(tmp_path, "flow", 5, 13), "newName": "not a name"}),
        ("textDocument/prepareRename", _at(tmp_path, "broken", 5, 13)),
    ])
    failed = types.LSPErrorCodes.RequestFailed.value
    assert answers[2]["error"]["code"] == failed and answers[2]["error"]["message"] == "a step named `use` already exists"
    assert answers[3]["error"]["code"] == failed and "not a valid step name" in answers[3]["error"]["message"]
    assert answers[4]["error"]["code"] == failed and "the file has errors" in answers[4]["error"]["message"]
    assert "Traceback" not in stderr and "ERROR" not in stderr, stderr
    assert answers[99]["result"] is None
