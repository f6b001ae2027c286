"""The HTTP POST of the LLM adapters and `openclaw.invoke`: the reply read under LOBSTER_MAX_HTTP_RESPONSE_BYTES while
it arrives, and the wait ended by a cancellation (a step's `timeout_ms`, a signal) by shutting the socket."""

from __future__ import annotations

import contextlib
import http.client
import socket
import threading
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from lobsterlang.interpret.bytesetting import byte_setting
from lobsterlang.interpret.process import Cancellation

RESPONSE_CAP_VAR = "LOBSTER_MAX_HTTP_RESPONSE_BYTES"
DEFAULT_RESPONSE_CAP = 64 << 20
"""64 MiB: a model's answer or a tool's result is rarely more than a few MB, and a reply this size already takes
several hundred MB once parsed; an endpoint that sends without end is stopped there."""
CHUNK = 65536


class HttpFailure(Exception):
    """The call failed before a complete reply arrived (connection, size cap); the message says how."""


class ResponseTooLarge(HttpFailure):
    """The reply's body passed the cap (`HTTP response body exceeded N bytes`)."""


@dataclass(frozen=True)
class HttpReply:
    """A complete reply: its status, reason phrase and body text."""

    status: int
    reason: str
    text: str

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300


@dataclass(frozen=True)
class ResponseCap:
    """The most bytes a reply body may have, and whether LOBSTER_MAX_HTTP_RESPONSE_BYTES set it."""

    limit: int
    configured: bool

    def exceeded(self) -> ResponseTooLarge:
        message = f"HTTP response body exceeded {self.limit} bytes"
        if not self.configured:
            message += f" (the default; set {RESPONSE_CAP_VAR} to accept more)"
        return ResponseTooLarge(message)


def response_cap(env: Mapping[str, str]) -> ResponseCap:
    """LOBSTER_MAX_HTTP_RESPONSE_BYTES, or DEFAULT_RESPONSE_CAP; `CommandError` when it is not a positive integer."""
    limit = byte_setting(env, RESPONSE_CAP_VAR)
    return ResponseCap(DEFAULT_RESPONSE_CAP, False) if limit is None else ResponseCap(limit, True)


def post(url: str, body: bytes, headers: dict[str, str], *, timeout_s: float, cap: ResponseCap, cancel: Cancellation) -> HttpReply:
    """POST `body` and read the reply; a cancellation while waiting raises `Cancelled` at once."""
    sockets = _Sockets()
    opener = urllib.request.build_opener(_TrackedHTTP(sockets), _TrackedHTTPS(sockets))
    request = urllib.request.Request(url, data=body, headers=headers, method="POST")
    with cancel.watch(sockets.shut):
        try:
            reply = _exchange(opener, request, timeout_s, cap)
        except HttpFailure:
            cancel.check()
            raise
        except (OSError, http.client.HTTPException, ValueError) as exc:
            cancel.check()  # the wait was ended by the run's cancellation: that is the error, not the broken socket
            raise HttpFailure(_reason(exc)) from None
        finally:
            sockets.shut()
    cancel.check()  # a reply cut short by the cancellation is not a reply
    return reply


def _reason(exc: Exception) -> str:
    """Why the exchange failed, in words (`Connection refused`, `Name or service not known`), without an errno."""
    reason = exc.reason if isinstance(exc, urllib.error.URLError) else exc
    return reason.strerror if isinstance(reason, OSError) and reason.strerror else str(reason)


def _exchange(opener: urllib.request.OpenerDirector, request: urllib.request.Request, timeout_s: float, cap: ResponseCap) -> HttpReply:
    try:
        with opener.open(request, timeout=timeout_s) as response:
            return HttpReply(response.status, response.reason, read_capped(response, cap))
    except urllib.error.HTTPError as exc:  # a reply with an error status: its body is read under the same cap
        with exc:
            return HttpReply(exc.code, str(exc.reason), read_capped(exc, cap))


def read_capped(response: Any, cap: ResponseCap) -> str:
    """The body as text; `HttpFailure` as soon as the declared length or the bytes read pass the cap."""
    declared = (response.headers.get("content-length") or "").strip()
    if declared.isascii() and declared.isdigit() and int(declared) > cap.limit:
        raise cap.exceeded()
    chunks: list[bytes] = []
    total = 0
    while chunk := response.read1(CHUNK) if hasattr(response, "read1") else response.read(CHUNK):
        total += len(chunk)
        if total > cap.limit:
            raise cap.exceeded()
        chunks.append(chunk)
    return b"".join(chunks).decode("utf-8", "replace")


class _Sockets:
    """The sockets one call connected (a redirect connects again); `shut` ends any wait on them, now and later."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.sockets: list[socket.socket] = []
        self.closed = False

    def connected(self, sock: socket.socket) -> None:
        with self.lock:
            self.sockets.append(sock)
            closed = self.closed
        if closed:  # cancelled while connecting
            _shut(sock)

    def shut(self) -> None:
        with self.lock:
            self.closed = True
            found = list(self.sockets)
        for sock in found:
            _shut(sock)


def _shut(sock: socket.socket) -> None:
    """Shut the connection down under TLS too (the plain socket's method), so a blocked read returns at once."""
    with contextlib.suppress(OSError):
        socket.socket.shutdown(sock, socket.SHUT_RDWR)


class _HTTPConnection(http.client.HTTPConnection):
    def __init__(self, host: str, sockets: _Sockets, **kw: Any) -> None:
        super().__init__(host, **kw)
        self.sockets = sockets

    def connect(self) -> None:
        super().connect()
        self.sockets.connected(self.sock)


class _HTTPSConnection(http.client.HTTPSConnection):
    def __init__(self, host: str, sockets: _Sockets, **kw: Any) -> None:
        super().__init__(host, **kw)
        self.sockets = sockets

    def connect(self) -> None:
        super().connect()
        self.sockets.connected(self.sock)


class _TrackedHTTP(urllib.request.HTTPHandler):
    def __init__(self, sockets: _Sockets) -> None:
        super().__init__()
        self.sockets = sockets

    def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(lambda host, **kw: _HTTPConnection(host, self.sockets, **kw), req)


class _TrackedHTTPS(urllib.request.HTTPSHandler):
    def __init__(self, sockets: _Sockets) -> None:
        super().__init__()
        self.sockets = sockets

    def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(lambda host, **kw: _HTTPSConnection(host, self.sockets, **kw), req)
