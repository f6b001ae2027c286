"""The dispatch link: a program run by a workflow step's shell tells the engine that its call is going out.

While a `run:` step's shell runs, the engine listens on a Unix socket in a private temporary folder and names
it in LOBSTER_DISPATCH_SOCKET. `openclaw.invoke`, `clawd.invoke` (and `lobster '<pipeline>'`) started under that
variable send the command's name there just before the call goes out and wait for the engine's `ok`: the
engine has then noted the dispatch (and journaled it), so its `retry:` does not run the step again. When the
link is named but does not answer, the program refuses to send rather than send unrecorded.
"""

from __future__ import annotations

import contextlib
import os
import re
import socket
import tempfile
import threading
from collections.abc import Callable, Mapping

from lobsterlang.interpret.errors import CommandError

ENV_NAME = "LOBSTER_DISPATCH_SOCKET"
ACK = b"ok\n"
MAX_LINE = 256
"""The longest report the engine reads: a command name and a newline."""
COMMAND_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
SUPPORTED = hasattr(socket, "AF_UNIX")
"""Unix sockets exist here (not on Windows builds of Python): without them no step gets a link."""
SOCKET_PATH_MAX = 100
"""A Unix socket's path must stay below 108 bytes (104 on BSDs); a longer temporary folder falls back to /tmp."""


class DispatchListener:
    """The engine's end: `report(name)` is called for each valid report, and its return acknowledges it (an
    exception leaves the report unacknowledged, so the call does not go out). `close` stops it for good."""

    def __init__(self, report: Callable[[str], None]) -> None:
        self.report = report
        self.folder = _private_folder()
        self.path = os.path.join(self.folder, "dispatch")
        self.lock = threading.Lock()
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

    @property
    def env(self) -> dict[str, str]:
        """What names the link to the step's processes."""
        return {ENV_NAME: self.path}

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            if self.closed:
                conn.close()
                return
            threading.Thread(target=self._answer, args=(conn,), daemon=True).start()

    def _answer(self, conn: socket.socket) -> None:
        """Read one report; note it and acknowledge it, unless the listener closed meanwhile or it is not a name."""
        with conn:
            name = _read_line(conn)
            if name is None or not COMMAND_NAME.fullmatch(name):
                return
            with self.lock:
                if self.closed:
                    return
                try:
                    self.report(name)
                except Exception:  # not noted (its journal cannot be written): unanswered, the call is not sent
                    return
                with contextlib.suppress(OSError):
                    conn.sendall(ACK)

    def close(self) -> None:
        """No report is acknowledged after this returns; the socket and its folder are removed."""
        with self.lock:
            self.closed = True
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as waker, contextlib.suppress(OSError):
            waker.connect(self.path)  # ends the blocked accept()
        self.thread.join()
        self.server.close()
        _remove(self.folder, self.path)


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


def report_dispatch(command: str, path: str) -> None:
    """Tell the engine listening at `path` that `command`'s call goes out; `CommandError` (nothing is sent) when it
    does not acknowledge."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.connect(path)
            conn.sendall(command.encode("ascii") + b"\n")
            answer = _read_answer(conn)
    except OSError as exc:
        raise _unreported(command, exc.strerror or str(exc)) from None
    if answer != ACK:
        raise _unreported(command, "the engine did not acknowledge it")


def _read_answer(conn: socket.socket) -> bytes:
    answer = b""
    while len(answer) < len(ACK):
        chunk = conn.recv(len(ACK) - len(answer))
        if not chunk:
            break
        answer += chunk
    return answer


def _unreported(command: str, why: str) -> CommandError:
    return CommandError(f"{command} could not report its call to the workflow step that runs it ({ENV_NAME}: {why}); "
                        "nothing was sent, so that a retry cannot send it twice")


def dispatch_reporter(env: Mapping[str, str]) -> Callable[[str], None] | None:
    """For a pipeline run by a workflow step's shell (`env` names a link): report each dispatch there."""
    path = env.get(ENV_NAME)
    if not path:
        return None
    return lambda command: report_dispatch(command, path)
