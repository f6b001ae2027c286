"""The one `Diagnostic` type shared by syntax, schema, lint and runtime problems."""

from __future__ import annotations

from enum import Enum

from lobsterlang.record import Record
from lobsterlang.span import Span


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


class Edit(Record):
    """Replace the text under `span` with `new_text`."""

    span: Span
    new_text: str


class Fix(Record):
    """A machine-applicable change that resolves a diagnostic.

    `applicability` is `safe` when the change keeps what runs the same, `unsafe` when it can
    change behaviour (applied only with `lobster lint --fix --unsafe-fixes`).
    """

    message: str
    edits: tuple[Edit, ...]
    applicability: str = "safe"

    @property
    def is_safe(self) -> bool:
        return self.applicability == "safe"


class Diagnostic(Record):
    """A problem found in a source, with the span it points at.

    `code` is stable (e.g. `S111`); `message` states what is wrong; `hint` says what to do.
    """

    code: str
    severity: Severity
    message: str
    span: Span
    fix: Fix | None = None
    hint: str | None = None

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR


class LobsterError(Exception):
    """Raised by strict compilation when the input has errors; carries every diagnostic."""

    def __init__(self, diagnostics: list[Diagnostic] | tuple[Diagnostic, ...]) -> None:
        self.diagnostics = tuple(diagnostics)
        first = next((d for d in self.diagnostics if d.is_error), None)
        summary = f"{first.code} {first.message}" if first else "no errors"
        super().__init__(f"{len(self.diagnostics)} problem(s); first: {summary}")


def has_errors(diagnostics: list[Diagnostic] | tuple[Diagnostic, ...]) -> bool:
    return any(d.is_error for d in diagnostics)
