"""The dispatch link, the engine's end: one Unix socket per process, in a private temporary folder, and a thread that
answers the reports of the programs a step's shell runs (`dispatchlink` is the programs' end).

Started at the first step that needs it; each attempt registers under a token of its own for as long as it runs.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import re
import secrets
import socket
import tempfile
import threading
from collections.abc import Callable, Iterator

from lobsterlang.interpret.dispatchlink import ACK, ENV_NAME, TOKEN_NAME

MAX_LINE = 256
"""The longest report the engine reads: a token, a command name and a newline."""
COMMAND_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
SUPPORTED = hasattr(socket, "AF_UNIX")
"""Unix sockets exist here (not on Windows builds of Python): without them no step gets a link."""
SOCKET_PATH_MAX = 100
"""A Unix socket's path must stay below 108 bytes (104 on BSDs); a longer temporary folder falls back to /tmp."""


class DispatchListener:
    """The engine's end: a socket and a thread that answers reports. A report is answered `ok` once the `report`
    callback of its token's attempt returned; an unknown token, a bad name or a callback that raises (the journal
    cannot be written) leave it unanswered, so the call does not go out. `close` stops it for good."""

    def __init__(self) -> None:
        self.folder = _private_folder()
        self.path = os.path.join(self.folder, "dispatch")
        self.pid = os.getpid()
        self.lock = threading.Lock()
        """Held while a report is noted, and to change `handlers`: once `attempt` ended, nothing is answered for it."""
        self.handlers: dict[str, Callable[[str], None]] = {}
        self.closed = False
        self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self.server.bind(self.path)
            self.server.listen()
        except OSError:
            self.server.close()
            _remove(self.folder, self.path)
            raise
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    @contextlib.contextmanager
    def attempt(self, report: Callable[[str], None]) -> Iterator[dict[str, str]]:
        """`report` hears the dispatches of the processes started, within the block, with the environment it yields."""
        token = secrets.token_hex(16)
        with self.lock:
            self.handlers[token] = report
        try:
            yield {ENV_NAME: self.path, TOKEN_NAME: token}
        finally:
            with self.lock:
                del self.handlers[token]

    def _serve(self) -> None:
        while not self.closed:
            try:
                conn, _ = self.server.accept()
            except OSError:  # closed, or out of descriptors: stop, so that nobody waits for an answer in vain
                self._shut()
                return
            threading.Thread(target=self._answer, args=(conn,), daemon=True).start()

    def _answer(self, conn: socket.socket) -> None:
        with conn:
            line = _read_line(conn)
            token, _, name = (line or "").partition(" ")
            with self.lock:
                report = self.handlers.get(token)
                if report is None or self.closed or not COMMAND_NAME.fullmatch(name):
                    return
                try:
                    report(name)
                except Exception:  # not noted: unanswered, the call is not sent
                    return
                with contextlib.suppress(OSError):
                    conn.sendall(ACK)

    def _shut(self) -> None:
        with self.lock:
            self.closed = True
        self.server.close()
        _remove(self.folder, self.path)

    def close(self) -> None:
        """No report is answered after this returns; the socket and its folder are removed (by the process that made
        them: a forked child leaves its parent's alone)."""
        if self.pid != os.getpid():
            return
        with self.lock:
            self.closed = True
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as waker, contextlib.suppress(OSError):
            waker.connect(self.path)  # ends the blocked accept()
        self.thread.join()
        self._shut()


_listener: DispatchListener | None = None
_listener_lock = threading.Lock()


def process_listener() -> DispatchListener:
    """This process's listener, started at first use (again after a fork, or after it stopped); OSError when no
    socket can be made."""
    global _listener
    with _listener_lock:
        if _listener is None or _listener.closed or _listener.pid != os.getpid():
            _listener = DispatchListener()
            atexit.register(_listener.close)
        return _listener


def _private_folder() -> str:
    folder = tempfile.mkdtemp(prefix="lobster-dispatch-")  # mode 0700: only this user can reach the socket
    if len(folder) < SOCKET_PATH_MAX - len("/dispatch"):
        return folder
    os.rmdir(folder)
    return tempfile.mkdtemp(prefix="lobster-dispatch-", dir="/tmp")


def _remove(folder: str, path: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)
    with contextlib.suppress(OSError):
        os.rmdir(folder)


def _read_line(conn: socket.socket) -> str | None:
    data = b""
    while b"\n" not in data and len(data) < MAX_LINE:
        try:
            chunk = conn.recv(MAX_LINE - len(data))
        except OSError:
            return None
        if not chunk:
            return None
        data += chunk
    line, newline, _ = data.partition(b"\n")
    return line.decode("ascii", "replace") if newline else None
