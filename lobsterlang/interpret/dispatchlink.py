"""The dispatch link, the program's end: a program run by a workflow step's shell tells the step that its call
is going out, and sends it only once the step has noted it.

The engine's end (`workflow/dispatchlisten.py`) listens on a Unix socket in a private temporary folder; each
attempt of a `run:` step registers under a fresh token, and its shell gets the socket in LOBSTER_DISPATCH_SOCKET
and the token in LOBSTER_DISPATCH_TOKEN. `openclaw.invoke`, `clawd.invoke` (and `lobster '<pipeline>'`) started
under them send `<token> <command>` just before the call goes out and wait for `ok`: the attempt has then noted
the dispatch (and its run journaled it), so `retry:` does not run the step again. When the link is named but
does not answer, the program refuses to send rather than send unrecorded.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from lobsterlang.interpret.errors import CommandError

if TYPE_CHECKING:
    import socket

ENV_NAME = "LOBSTER_DISPATCH_SOCKET"
TOKEN_NAME = "LOBSTER_DISPATCH_TOKEN"
ACK = b"ok\n"


def report_dispatch(command: str, path: str, token: str) -> None:
    """Tell the engine listening at `path` that `command`'s call (of the attempt `token`) goes out; `CommandError`
    (nothing is sent) when it does not answer `ok`."""
    import socket  # here: the CLI's pipelines import this module, and most never report

    family = getattr(socket, "AF_UNIX", None)
    if family is None:
        raise _unreported(command, "this Python has no Unix sockets")
    try:
        with socket.socket(family, socket.SOCK_STREAM) as conn:
            conn.connect(path)
            conn.sendall(f"{token} {command}\n".encode("ascii", "replace"))
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
    token = env.get(TOKEN_NAME, "")
    return lambda command: report_dispatch(command, path, token)
