"""The server's stdio loop: messages framed and parsed defensively, every request answered, bad input never fatal.

pygls's own loop ends on a `Content-Length` too large to read and answers nothing to a request whose params do
not parse (a negative position, a missing `character`) or to a body that is not JSON. Here a header line and a
message body are bounded, an oversized body is read and dropped in pieces, and every request that cannot be
handled gets a JSON-RPC error: Parse error (-32700) and Invalid Request (-32600) with `id: null` when its id
cannot be known, Invalid params (-32602) with its id. Notifications that do not parse are logged and dropped,
as the protocol asks.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
import threading
from typing import Any, BinaryIO

import cattrs
from pygls.io_ import StdoutWriter
from pygls.protocol import JsonRPCProtocol
from pygls.server import JsonRPCServer

from lobsterlang.syntax.source import max_input_bytes

logger = logging.getLogger(__name__)

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
HEADER_LINE_BYTES = 8192
"""A header line longer than this is not a header: it is dropped in pieces."""
_DRAIN_CHUNK = 1 << 20


def max_message_bytes() -> int:
    """The largest body read: a document at the input limit, every character escaped (`\\u00e9` is six bytes)."""
    return 6 * max_input_bytes() + (1 << 20)


class Framing:
    """Reads `Content-Length`-framed messages from a binary stream, bounded; each read runs in a worker thread."""

    def __init__(self, stream: BinaryIO) -> None:
        self.stream = stream

    async def _call(self, read: Any, *args: int) -> bytes:
        data: bytes = await asyncio.get_running_loop().run_in_executor(None, read, *args)
        return data

    async def headers(self) -> int | None:
        """The length the next message's headers declare (-1 when none did), or None at the end of the stream.
        Blank lines before any header are passed over."""
        length, seen = -1, False
        while True:
            line = await self._call(self.stream.readline, HEADER_LINE_BYTES)
            if not line:
                return None
            if line in (b"\r\n", b"\n"):
                if seen:
                    return length
                continue
            seen = True
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                text = value.strip()
                length = int(text) if text.isdigit() else -1

    async def body(self, length: int) -> bytes:
        return await self._call(self.stream.read, length)

    async def drain(self, length: int) -> bool:
        """Read and drop `length` bytes; False when the stream ended first."""
        while length > 0:
            chunk = await self._call(self.stream.read, min(length, _DRAIN_CHUNK))
            if not chunk:
                return False
            length -= len(chunk)
        return True


async def serve(stop: threading.Event, framing: Framing, protocol: JsonRPCProtocol) -> None:
    """Handle messages until the stream ends or the server stops."""
    limit = max_message_bytes()
    while not stop.is_set():
        length = await framing.headers()
        if length is None:
            return
        if length < 0:
            reply_error(protocol, None, INVALID_REQUEST, "Invalid Request: a message without a valid Content-Length header")
            continue
        if length > limit:
            reply_error(protocol, None, INVALID_REQUEST, f"Invalid Request: a message of {length:,} bytes; the limit is {limit:,}")
            if not await framing.drain(length):
                return
            continue
        body = await framing.body(length)
        if len(body) < length:
            return
        dispatch(protocol, body)


def dispatch(protocol: JsonRPCProtocol, body: bytes) -> None:
    """Parse one message and hand it to pygls; answer a request that cannot be handled with an error."""
    try:
        raw = json.loads(body)
    except (ValueError, RecursionError):
        reply_error(protocol, None, PARSE_ERROR, "Parse error: the message is not JSON")
        return
    if not isinstance(raw, dict) or raw.get("jsonrpc") != JsonRPCProtocol.VERSION:
        reply_error(protocol, request_id(raw), INVALID_REQUEST, "Invalid Request: not a JSON-RPC 2.0 message")
        return
    is_request = "method" in raw and "id" in raw
    try:
        message = protocol.structure_message(raw)
    except Exception as exc:
        logger.warning("dropped a message that does not parse: %s", _detail(exc))
        if is_request:
            reply_error(protocol, request_id(raw), INVALID_PARAMS, f"Invalid params for {raw['method']}: {_detail(exc)}")
        return
    try:
        protocol.handle_message(message)
    except Exception as exc:
        logger.exception("could not handle a message")
        if is_request:
            reply_error(protocol, request_id(raw), INTERNAL_ERROR, f"Internal error: {type(exc).__name__}")


def request_id(raw: Any) -> int | str | None:
    """The message's id when it is one JSON-RPC allows (an integer or a string), else None."""
    found = raw.get("id") if isinstance(raw, dict) else None
    return found if isinstance(found, (int, str)) and not isinstance(found, bool) else None


def _detail(exc: Exception) -> str:
    """Where the params are wrong (`required field missing @ $.params.position.character`), as cattrs says it."""
    cause = exc.__cause__
    if isinstance(cause, (cattrs.ClassValidationError, cattrs.IterableValidationError)):
        return "; ".join(cattrs.transform_error(cause))
    return str(cause or exc) or type(exc).__name__


def reply_error(protocol: JsonRPCProtocol, message_id: int | str | None, code: int, message: str) -> None:
    """Send a JSON-RPC error response (`id: null` when the request's id cannot be known)."""
    protocol._send_data({"jsonrpc": JsonRPCProtocol.VERSION, "id": message_id, "error": {"code": code, "message": message}})


def serve_stdio(server: JsonRPCServer, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
    """Run `server` (a pygls server) on stdio with this loop, as pygls's `start_io` does with its own."""
    stop = server._stop_event = threading.Event()  # what pygls's shutdown() sets
    server.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
    try:
        asyncio.run(serve(stop, Framing(stdin or sys.stdin.buffer), server.protocol))
    except BrokenPipeError:
        logger.error("the connection to the client is lost: shutting down")
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        server.shutdown()  # type: ignore[no-untyped-call]
