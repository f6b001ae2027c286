"""Background work (compiling the workspace ahead of time) waits while the editor is busy: any message from it,
a completion or hover as much as a change, holds it back for a debounce period."""

from __future__ import annotations

import asyncio
import time

from lsprotocol import types

from lsp.server import build


def test_any_message_from_the_editor_counts_as_activity() -> None:
    server = build()
    server.active_at = 0.0
    message = server.protocol.structure_message({"jsonrpc": "2.0", "method": types.SET_TRACE, "params": {"value": "off"}})
    server.protocol.handle_message(message)
    assert time.monotonic() - server.active_at < 5


def test_background_work_waits_for_a_quiet_editor() -> None:
    server = build()
    server.debounce = 0.05
    server.active_at = time.monotonic()
    start = time.monotonic()
    asyncio.run(server.while_typing())
    assert time.monotonic() - start >= 0.05  # a lower bound: sleeping never ends early


def test_background_work_starts_at_once_when_the_editor_is_quiet() -> None:
    server = build()
    server.active_at = time.monotonic() - 10
    asyncio.run(asyncio.wait_for(server.while_typing(), timeout=5))
