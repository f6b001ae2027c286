"""An LLM or gateway call stops waiting when its run is cancelled (a step's `timeout_ms`, a signal), closes its
connection, and reads a reply no further than LOBSTER_MAX_HTTP_RESPONSE_BYTES; the adapter holds its answer back
(tests/llm_fake.py), so nothing here depends on how fast the machine is."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any

import llm_fake
import pytest

from lobsterlang.cli import main
from lobsterlang.interpret.errors import Cancelled
from lobsterlang.interpret.pipeline.commands import http_post
from lobsterlang.interpret.pipeline.commands.http_post import ResponseCap, ResponseTooLarge, post
from lobsterlang.interpret.process import Cancellation
from lobsterlang.interpret.workflow.attempt import AttemptCancellation

WAIT_S = 30.0
"""A safety net for waits on the adapter's queues; they end as soon as the adapter reports."""


@pytest.fixture
def adapter() -> Iterator[ThreadingHTTPServer]:
    server = llm_fake.start()
    yield server
    server.shutdown()


def url(server: ThreadingHTTPServer, path: str = "/invoke") -> str:
    return f"http://127.0.0.1:{server.server_port}{path}"


@pytest.fixture
def connected(monkeypatch: pytest.MonkeyPatch) -> list[socket.socket]:
    """The sockets the calls connect (to check that each was closed)."""
    found: list[socket.socket] = []
    original = http_post._Sockets.connected

    def note(self: Any, sock: socket.socket) -> None:
        found.append(sock)
        original(self, sock)

    monkeypatch.setattr(http_post._Sockets, "connected", note)
    return found


def _post_in_thread(server: ThreadingHTTPServer, cancel: Cancellation, body: dict[str, Any]) -> tuple[threading.Thread, list[BaseException]]:
    errors: list[BaseException] = []

    def call() -> None:
        try:
            post(url(server), json.dumps(body).encode(), {"content-type": "application/json"},
                 timeout_s=300, cap=ResponseCap(1 << 20, True), cancel=cancel)
        except BaseException as exc:
            errors.append(exc)

    thread = threading.Thread(target=call)
    thread.start()
    return thread, errors


def test_a_cancelled_call_stops_waiting_and_closes_its_connection(adapter: ThreadingHTTPServer) -> None:
    cancel = Cancellation()
    thread, errors = _post_in_thread(adapter, cancel, {"prompt": "slow"})
    assert adapter.held.get(timeout=WAIT_S) == "slow"  # type: ignore[attr-defined]
    cancel.cancel("Received SIGINT")
    thread.join(WAIT_S)
    assert not thread.is_alive()
    assert [type(e) for e in errors] == [Cancelled] and errors[0].args == ("Received SIGINT",)
    assert adapter.gone.get(timeout=WAIT_S) == "slow"  # type: ignore[attr-defined]


def test_cancelling_the_run_reaches_a_call_inside_an_attempt(adapter: ThreadingHTTPServer) -> None:
    run = Cancellation()
    thread, errors = _post_in_thread(adapter, AttemptCancellation(AttemptCancellation(run)), {"prompt": "slow"})
    assert adapter.held.get(timeout=WAIT_S) == "slow"  # type: ignore[attr-defined]
    run.cancel("Received SIGTERM", 143)
    thread.join(WAIT_S)
    assert not thread.is_alive() and [type(e) for e in errors] == [Cancelled]
    assert adapter.gone.get(timeout=WAIT_S) == "slow"  # type: ignore[attr-defined]


def test_a_call_made_after_the_cancellation_is_not_sent(adapter: ThreadingHTTPServer) -> None:
    cancel = Cancellation()
    cancel.cancel("timeout")
    with pytest.raises(Cancelled):
        post(url(adapter), b'{"prompt": "hi"}', {}, timeout_s=300, cap=ResponseCap(1 << 20, True), cancel=cancel)


def _workflow(tmp_path: Path, pipeline: str, timeout_ms: int = 300) -> Path:
    path = tmp_path / "wf.lobster"
    path.write_text(f"steps:\n  - id: ask\n    timeout_ms: {timeout_ms}\n    pipeline: {pipeline}\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("pipeline, env", [
    ("llm.invoke --prompt slow --disable-cache", "LOBSTER_LLM_ADAPTER_URL"),
    ("llm_task.invoke --prompt slow --disable-cache", "OPENCLAW_URL"),
    ("openclaw.invoke --tool t --action a --args-json '{\"prompt\":\"slow\"}'", "OPENCLAW_URL"),
])
def test_a_step_timeout_ends_the_wait_for_the_adapter(pipeline: str, env: str, adapter: ThreadingHTTPServer, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                                      connected: list[socket.socket]) -> None:
    """The step fails at its timeout while the adapter still holds the answer back (before: when it answered),
    and the connection is closed, not left to the garbage collector."""
    monkeypatch.setenv("LOBSTER_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv(env, url(adapter, ""))
    monkeypatch.delenv("OPENCLAW_TOKEN", raising=False)
    assert main(["run", "--mode", "tool", "--file", str(_workflow(tmp_path, pipeline))]) == 1
    assert json.loads(capsys.readouterr().out)["error"]["message"] == "Step 'ask' timed out after 300ms"
    assert adapter.gone.get(timeout=WAIT_S) == "slow"  # type: ignore[attr-defined]
    assert adapter.held.qsize() == 1  # type: ignore[attr-defined]  # asked once
    assert len(connected) == 1 and connected[0].fileno() == -1


def test_the_reply_is_capped_while_it_arrives(adapter: ThreadingHTTPServer) -> None:
    """The adapter sends 8 KiB and then nothing: a reader that waited for the whole reply would hang."""
    with pytest.raises(ResponseTooLarge, match=r"^HTTP response body exceeded 1024 bytes$"):
        post(url(adapter), b'{"prompt": "stream"}', {}, timeout_s=300, cap=ResponseCap(1024, True), cancel=Cancellation())
    assert adapter.gone.get(timeout=WAIT_S) == "stream"  # type: ignore[attr-defined]


def test_the_default_reply_cap_names_the_setting(adapter: ThreadingHTTPServer) -> None:
    with pytest.raises(ResponseTooLarge) as caught:
        post(url(adapter), b'{"prompt": "big"}', {}, timeout_s=300, cap=ResponseCap(1024, False), cancel=Cancellation())
    assert str(caught.value) == (
        "HTTP response body exceeded 1024 bytes (the default; set LOBSTER_MAX_HTTP_RESPONSE_BYTES to accept more)"
    )
