"""Typed errors of the interpreter; each knows its envelope type (`parse_error` or `runtime_error`)."""

from __future__ import annotations


class LobsterRunError(Exception):
    """A problem reported to the user as an envelope error (exit 1 for runtime, 2 for parse). `stage_note` says
    where in a pipeline it happened (`in stage 3 (pikc)`); human mode prints it under the message."""

    error_type = "runtime_error"
    stage_note: str | None = None

    @property
    def message(self) -> str:
        return str(self.args[0]) if self.args else ""

    @property
    def exit_code(self) -> int:
        return 2 if self.error_type == "parse_error" else 1


class UsageError(LobsterRunError):
    """Bad arguments or a pipeline that does not parse (`parse_error`, exit 2)."""

    error_type = "parse_error"


class CommandError(LobsterRunError):
    """A command failed while running (`runtime_error`, exit 1)."""


class Cancelled(LobsterRunError):
    """The run was stopped by a signal or the caller (`Received SIGINT`, exit 130/143)."""

    def __init__(self, message: str, exit_code: int = 130) -> None:
        super().__init__(message)
        self.signal_exit_code = exit_code

    @property
    def exit_code(self) -> int:
        return self.signal_exit_code


class InvalidToken(UsageError):
    """An altered or undecodable resume token (`Invalid token`, `Unsupported … version`)."""


class ApprovalNotFound(UsageError):
    """`--id` names no live approval (`Approval ID "<id>" not found or expired`)."""

    def __init__(self, approval_id: str) -> None:
        super().__init__(f'Approval ID "{approval_id}" not found or expired')


class StateNotFound(LobsterRunError):
    """The token points at state that is gone: already used, cancelled or never written (runtime_error)."""

    def __init__(self, message: str = "Pipeline resume state not found") -> None:
        super().__init__(message)


class StateKeyError(CommandError):
    """A state key that normalizes to nothing (`state key is empty/invalid`)."""


class StateIntegrityError(LobsterRunError):
    """Stored resume state that this state directory's key did not sign, or that does not match its token.

    Nothing runs and nothing is deleted: the state stays in place for inspection.
    """

    error_type = "state_integrity"


class GateExpired(LobsterRunError):
    """The gate's approval window has passed; it can only be cancelled (`resume --cancel`)."""
