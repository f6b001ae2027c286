"""Background work (compiling the workspace ahead of time) never delays what the editor waits for: any message
from it counts as activity, a big file waits for a quiet debounce period, and a small one may run while
diagnostics wait out their debounce, but not just before they are due."""

from __future__ import annotations

import asyncio
import time

from lobsterlang_lsp.server import QUIET_SECONDS, build
from lsprotocol import types


def test_any_message_from_the_editor_counts_as_activity() -> None:
    server = build()
    server.active_at = 0.0
    message = server.protocol.structure_message({"jsonrpc": "2.0", "method": types.SET_TRACE, "params": {"value": "off"}})
    server.protocol.handle_message(message)
    assert time.monotonic() - server.active_at < 5


def waited(small: bool, active_ago: float, due_in: float | None = None, debounce: float = 0.2) -> float:
    server = build()
    server.debounce = debounce
    server.active_at = time.monotonic() - active_ago
    if due_in is not None:
        server.due["file:///doc.lobster"] = time.monotonic() + due_in
    start = time.monotonic()
    asyncio.run(asyncio.wait_for(server.until_quiet(small), timeout=10))
    return time.monotonic() - start


def test_a_big_file_waits_for_a_quiet_debounce_period() -> None:
    assert waited(small=False, active_ago=0, debounce=0.1) >= 0.1  # lower bounds: sleeping never ends early


def test_a_small_file_waits_for_a_short_quiet() -> None:
    assert waited(small=True, active_ago=0) >= QUIET_SECONDS


def test_a_small_file_runs_while_diagnostics_are_far_from_due() -> None:
    assert waited(small=True, active_ago=1, due_in=5) < 5


def test_a_small_file_waits_until_diagnostics_due_soon_are_sent() -> None:
    assert waited(small=True, active_ago=1, due_in=QUIET_SECONDS / 2, debounce=0.1) >= QUIET_SECONDS / 2


def test_nothing_waits_when_the_editor_is_quiet() -> None:
    waited(small=False, active_ago=10)
    waited(small=True, active_ago=10)
