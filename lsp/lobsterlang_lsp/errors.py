"""Refusals the user caused (a rename to a taken name, a pull overtaken by an edit): answered as errors, never logged
as the server's own failures."""

from __future__ import annotations

import logging

from lsprotocol import types
from pygls.exceptions import JsonRpcContentModified, JsonRpcException


class RequestFailed(JsonRpcException):
    """The request was valid but cannot be done (LSP's `RequestFailed`); the message says why, for the user."""

    CODE = types.LSPErrorCodes.RequestFailed.value


class _AnsweredNotLogged(logging.Filter):
    """pygls logs a traceback for every error a handler raises, which editors show as an ERROR in their logs. The
    client already shows the answer's message: drop the record for these."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        return not isinstance(error, (RequestFailed, JsonRpcContentModified))


def quiet_refusals() -> None:
    """Keep refusals out of the server's log (installed once per process)."""
    rpc = logging.getLogger("pygls.protocol.json_rpc")
    if not any(isinstance(f, _AnsweredNotLogged) for f in rpc.filters):
        rpc.addFilter(_AnsweredNotLogged())
