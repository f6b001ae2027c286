"""Errors of the workflow engine; `str()` is the message printed after `Error: ` or put in the envelope."""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from lobsterlang import ir
    from lobsterlang.interpret.workflow.context import Frame

_UNKNOWN_STEP = re.compile(r"Unknown step reference: \$?([A-Za-z0-9_-]+)\.")


class WorkflowError(Exception):
    """A load-time or run-time failure of a workflow (a `runtime_error`, exit 1)."""


class WorkflowUsageError(WorkflowError):
    """Bad arguments, identity or response problems (a `parse_error`, exit 2)."""


class Unrecoverable(WorkflowError):
    """A failure that `retry` and `on_error` never handle (a pipeline halting inside a step)."""


class StepTimeout(WorkflowError):
    """`Step '<id>' timed out after <n>ms`."""


def locate(exc: Exception, step: ir.Step, frame: Frame) -> None:
    """Note on `exc` where it happened: `in step <id> (<file>:<line>:<col>)`, plus "did you mean" for an unknown
    step reference. The innermost step (a sub-workflow's) wins; human mode prints it under the error."""
    if getattr(exc, "location", None) is not None:
        return
    path = os.path.relpath(frame.path) if not os.path.relpath(frame.path).startswith("..") else frame.path
    note = f"in step {step.id} ({path}:{step.id_span.line}:{step.id_span.col})"
    unknown = _UNKNOWN_STEP.search(str(exc))
    if unknown is not None:
        import difflib

        ids = [s.id for s in frame.workflow.steps]
        close = difflib.get_close_matches(unknown.group(1), ids, n=1, cutoff=0.6)
        note += f"; did you mean `{close[0]}`?" if close else ""
    exc.location = note  # type: ignore[attr-defined]
