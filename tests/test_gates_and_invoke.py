"""Interactive gates on a terminal, `openclaw.invoke` against a local gateway, and CLI dispatch."""

from __future__ import annotations

import io
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any, ClassVar

import pytest

from lobsterlang.cli import main
from lobsterlang.compile import compile_pipeline
from lobsterlang.interpret.errors import CommandError
from lobsterlang.interpret.pipeline.runtime import RunContext, run_pipeline


def run(text: str, items: list[Any], **ctx: Any) -> list[Any]:
    pipeline = compile_pipeline(text).ir
    assert pipeline is not None
    return run_pipeline(pipeline, items, RunContext(**ctx)).items


def terminal(answer: str) -> dict[str, Any]:
    return {"interactive": True, "prompt_in": io.StringIO(answer + "\n"), "prompt_out": io.StringIO()}


def test_approve_on_a_terminal_passes_items_through() -> None:
    ctx = terminal("YES")
    assert run("approve --prompt 'Go?' | pick a", [{"a": 1, "b": 2}], **ctx) == [{"a": 1}]
    assert ctx["prompt_out"].getvalue() == '[\n  {\n    "a": 1,\n    "b": 2\n  }\n]\nGo? [y/N] '  # what is approved, then the question


def test_approve_on_a_terminal_refused() -> None:
    with pytest.raises(CommandError, match="Not approved"):
        run("approve", [1], **terminal("n"))


def test_approve_emit_halts_even_on_a_terminal() -> None:
    assert run("approve --emit", [1], **terminal("y"))[0]["type"] == "approval_request"


@pytest.mark.parametrize("answer, expected", [('{"decision": "reject"}', {"decision": "reject"}), ("redraft", {"decision": "redraft"}),
                                              ('"approve"', {"decision": "approve"})])
def test_ask_on_a_terminal(answer: str, expected: Any) -> None:
    ctx = terminal(answer)
    assert run("ask --prompt 'Decide'", [1], **ctx) == [expected]
    assert ctx["prompt_out"].getvalue() == "Decide\n> "


def test_ask_on_a_terminal_with_a_bad_answer() -> None:
    with pytest.raises(CommandError, match="ask response failed schema validation at /: must be object"):
        run("ask", [], **terminal("maybe"))


class _Gateway(BaseHTTPRequestHandler):
    calls: ClassVar[list[dict[str, Any]]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        _Gateway.calls.append({"path": self.path, "auth": self.headers.get("authorization"), "body": body})
        reply: Any = {"ok": True, "result": [{"echo": body["args"]}]}
        if body["tool"] == "broken":
            reply = {"ok": False, "error": {"message": "no such tool"}}
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        return


@pytest.fixture
def gateway() -> Iterator[str]:
    server = HTTPServer(("127.0.0.1", 0), _Gateway)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    _Gateway.calls.clear()
    yield f"http://127.0.0.1:{server.server_port}/some/path"
    server.shutdown()


def test_openclaw_invoke_posts_to_tools_invoke(gateway: str) -> None:
    text = f"openclaw.invoke --url {gateway} --tool message --action send --args-json '{{\"to\":\"me\"}}' --each"
    out = run(text, [1, 2], env={"OPENCLAW_TOKEN": "secret"})
    assert out == [{"echo": {"to": "me", "item": 1}}, {"echo": {"to": "me", "item": 2}}]
    assert [c["path"] for c in _Gateway.calls] == ["/tools/invoke"] * 2
    assert _Gateway.calls[0]["auth"] == "Bearer secret"
    assert _Gateway.calls[0]["body"] == {"tool": "message", "action": "send", "args": {"to": "me", "item": 1}}


def test_openclaw_invoke_errors(gateway: str) -> None:
    with pytest.raises(CommandError, match=r"openclaw\.invoke tool error: no such tool"):
        run(f"openclaw.invoke --url {gateway} --tool broken --action x", [])
    with pytest.raises(CommandError, match="refuses to send OPENCLAW_TOKEN/CLAWD_TOKEN to non-local --url"):
        run("clawd.invoke --url https://example.com --tool t --action a", [], env={"CLAWD_TOKEN": "secret"})
    with pytest.raises(CommandError, match=r"openclaw\.invoke requires --url or OPENCLAW_URL"):
        run("openclaw.invoke --tool t --action a", [], env={})
    with pytest.raises(CommandError, match=r"openclaw\.invoke requires --tool and --action"):
        run(f"openclaw.invoke --url {gateway}", [])
    with pytest.raises(CommandError, match="--args-json must be valid JSON"):
        run(f"openclaw.invoke --url {gateway} --tool t --action a --args-json nope", [])
    with pytest.raises(CommandError, match="requires an http\\(s\\) --url"):
        run("openclaw.invoke --url ftp://x --tool t --action a", [])


def test_bare_pipeline_dispatch(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["nonsense"]) == 1
    assert capsys.readouterr().err == "Error: Unknown command: nonsense\n  in stage 1 (nonsense)\n"
    assert main(["exec", "echo", "a b"]) == 0
    assert json.loads(capsys.readouterr().out) == ["a b"]
    assert main(["--mode", "tool", "exec echo hi"]) == 0
    assert json.loads(capsys.readouterr().out)["output"] == ["hi"]
    assert main(["exec", "--help"]) == 0
    assert "lobster run" in capsys.readouterr().out


def test_doctor(capsys: pytest.CaptureFixture[str]) -> None:
    from lobsterlang import __version__

    assert main(["doctor", "note"]) == 0
    report = json.loads(capsys.readouterr().out)["output"]
    assert report == [{"toolMode": True, "protocolVersion": 1, "version": __version__, "notes": ["note"]}]
