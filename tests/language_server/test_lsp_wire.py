"""The language server over raw stdio, fed what a broken or hostile client sends: every request gets a response or a
JSON-RPC error, the server never exits on bad input, and a FIFO in the workspace or a lone surrogate in a document
does not stop it answering."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

WAIT = 60.0
"""A safety net only: every answer below comes at once when the server works."""
OK = "steps:\n  - id: fetch\n    run: echo hi\n"


class RawClient:
    """`lobster lsp` on pipes, written to byte by byte as a test wishes; a thread reads its framed messages."""

    def __init__(self, cwd: Path, env: dict[str, str] | None = None) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "lobsterlang", "lsp"], cwd=cwd, env={**os.environ, **(env or {})},
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )
        self.messages: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.stderr = b""
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._drain_stderr, daemon=True).start()
        self.next_id = 1

    def _read(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        while True:
            length = None
            while True:
                line = stream.readline()
                if not line:
                    self.messages.put(None)
                    return
                if line == b"\r\n":
                    break
                name, _, value = line.partition(b":")
                if name.lower() == b"content-length":
                    length = int(value)
            assert length is not None
            self.messages.put(json.loads(stream.read(length)))

    def _drain_stderr(self) -> None:
        assert self.process.stderr is not None
        self.stderr = self.process.stderr.read()

    def send_bytes(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def send(self, message: dict[str, Any] | bytes) -> None:
        body = message if isinstance(message, bytes) else json.dumps(message).encode()
        self.send_bytes(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def request(self, method: str, params: Any) -> int:
        number, self.next_id = self.next_id, self.next_id + 1
        self.send({"jsonrpc": "2.0", "id": number, "method": method, "params": params})
        return number

    def notify(self, method: str, params: Any) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def answer(self, number: int | None) -> dict[str, Any]:
        """The next response with this id (`None`: an error response with `id: null`), skipping notifications."""
        while True:
            message = self.messages.get(timeout=WAIT)
            assert message is not None, f"the server ended: {self.stderr.decode(errors='replace')[-2000:]}"
            if "id" in message and "method" not in message and message["id"] == number:
                return message

    def initialize(self, root: Path) -> None:
        """Initialize as a client that pulls diagnostics (and can be asked to pull again), with `root` as the workspace."""
        capabilities: dict[str, Any] = {"textDocument": {"diagnostic": {}}, "workspace": {"diagnostics": {"refreshSupport": True}}}
        self.answer(self.request("initialize", {"capabilities": capabilities, "rootUri": root.as_uri(),
                                                "workspaceFolders": [{"uri": root.as_uri(), "name": "ws"}]}))
        self.notify("initialized", {})

    def open(self, path: Path, text: str) -> str:
        self.notify("textDocument/didOpen", {"textDocument": {"uri": path.as_uri(), "languageId": "lobster", "version": 1, "text": text}})
        return path.as_uri()

    def finish(self) -> int:
        """Shut down politely and return the exit code."""
        self.answer(self.request("shutdown", None))
        self.notify("exit", None)
        assert self.process.stdin is not None
        self.process.stdin.close()
        return self.process.wait(timeout=WAIT)


@pytest.fixture
def client(tmp_path: Path) -> Any:
    started = RawClient(tmp_path)
    yield started
    if started.process.poll() is None:
        started.process.kill()
        started.process.wait()


BAD_POSITIONS = [
    {"line": -1, "character": 0}, {"line": 2**31, "character": 0}, {"line": 0}, {"line": 0, "character": -5},
    {"line": "zero", "character": 0}, None,
]


def test_bad_params_and_bad_bodies_get_protocol_errors(client: RawClient, tmp_path: Path) -> None:
    """Params that do not parse: Invalid params with the request's id; a body that is no request: an error with
    `id: null` (or its id when it has one); the highest position there is: an answer."""
    client.initialize(tmp_path)
    uri = client.open(tmp_path / "a.lobster", OK)
    for position in BAD_POSITIONS:
        answer = client.answer(client.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": position}))
        assert answer["error"]["code"] == -32602 and "textDocument/hover" in answer["error"]["message"], (position, answer)
    highest = {"line": 2**31 - 1, "character": 2**31 - 1}
    for method in ("textDocument/hover", "textDocument/definition", "textDocument/completion", "textDocument/references"):
        params: dict[str, Any] = {"textDocument": {"uri": uri}, "position": highest}
        if method == "textDocument/references":
            params["context"] = {"includeDeclaration": True}
        assert "error" not in client.answer(client.request(method, params)), method
    client.send(b"{not json")
    assert client.answer(None)["error"]["code"] == -32700
    client.send(b"[1, 2]")
    assert client.answer(None)["error"]["code"] == -32600
    client.send({"jsonrpc": "1.0", "id": 77, "method": "textDocument/hover", "params": {}})
    assert client.answer(77)["error"]["code"] == -32600
    client.send(b'{"jsonrpc": "2.0", "id": 78, "method": "textDocument/hover", "params": {"textDocument": {"uri": "\xff"}}}')
    assert client.answer(None)["error"]["code"] == -32700  # not UTF-8
    assert client.finish() == 0


def test_an_impossible_content_length_is_answered_and_survived(client: RawClient, tmp_path: Path) -> None:
    client.initialize(tmp_path)
    client.send_bytes(b"Content-Length: 99999999999999999999\r\n\r\n{}")
    answer = client.answer(None)
    assert answer["error"]["code"] == -32600 and "99,999,999,999,999,999,999 bytes" in answer["error"]["message"]
    assert client.process.poll() is None
    assert client.process.stdin is not None
    client.process.stdin.close()  # the rest of that "message" never comes: the server ends with its input
    assert client.process.wait(timeout=WAIT) == 0
    assert b"Traceback" not in client.stderr


def test_an_oversized_message_is_dropped_and_the_next_one_answered(tmp_path: Path) -> None:
    client = RawClient(tmp_path, {"LOBSTER_MAX_INPUT_BYTES": "1000"})  # bodies up to 6,000 bytes + 1 MiB
    try:
        client.initialize(tmp_path)
        body = b'{"jsonrpc": "2.0", "id": 5, "method": "x", "params": "' + b"a" * (2 << 20) + b'"}'
        client.send(body)
        assert client.answer(None)["error"]["code"] == -32600
        uri = client.open(tmp_path / "a.lobster", OK)
        hover = client.answer(client.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 1, "character": 10}}))
        assert "error" not in hover
        assert client.finish() == 0
    finally:
        client.process.kill()
        client.process.wait()


def test_a_fifo_in_the_workspace_and_a_lone_surrogate_stop_nothing(client: RawClient, tmp_path: Path) -> None:
    """The workspace scan skips a FIFO and a device (as a request on their URIs does); a document holding a lone
    surrogate (valid JSON, no valid UTF-8) gets its diagnostic."""
    (tmp_path / "ok.lobster").write_text(OK, encoding="utf-8")
    os.mkfifo(tmp_path / "pipe.lobster")
    (tmp_path / "zero.lobster").symlink_to("/dev/zero")
    client.initialize(tmp_path)
    symbols = client.answer(client.request("workspace/symbol", {"query": "fetch"}))
    assert [s["name"] for s in symbols["result"]] == ["fetch"]
    for name in ("pipe.lobster", "zero.lobster"):
        hover = {"textDocument": {"uri": (tmp_path / name).as_uri()}, "position": {"line": 0, "character": 0}}
        assert "error" not in client.answer(client.request("textDocument/hover", hover))
    uri = client.open(tmp_path / "odd.lobster", "steps:\n  - id: a\n    run: echo \ud800\n")  # sent as JSON `\ud800`
    report = client.answer(client.request("textDocument/diagnostic", {"textDocument": {"uri": uri}}))
    [item] = report["result"]["items"]
    assert item["code"] == "E001" and "lone surrogate U+D800" in item["message"]
    assert item["range"]["start"] == {"line": 2, "character": 14}
    assert client.finish() == 0
