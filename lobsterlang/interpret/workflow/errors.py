"""Errors of the workflow engine; `str()` is the message printed after `Error: ` or put in the envelope."""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lobsterlang import ir
    from lobsterlang.interpret.workflow.context import Frame

_UNKNOWN_STEP = re.compile(r"Unknown step reference: \$?([A-Za-z0-9_-]+)\.")


class WorkflowError(Exception):
    """A load-time or run-time failure of a workflow (a `runtime_error`, exit 1)."""


class WorkflowUsageError(WorkflowError):
    """Bad arguments, identity or response problems (a `parse_error`, exit 2). Human mode prints `Error: …`;
    `bare`: the reference's own line, printed as a recorded case pins it (without the prefix)."""

    def __init__(self, message: str, *, bare: bool = False) -> None:
        super().__init__(message)
        self.bare = bare


class Unrecoverable(WorkflowError):
    """A failure that `retry` and `on_error` never handle (a pipeline halting inside a step)."""


class InputRequested(Unrecoverable):
    """A command in step `step_id`'s pipeline (`ask`) requested input at stage `stage`: a top-level `pipeline:` step
    suspends the workflow there (`needs_input`); elsewhere (a loop, a parallel branch) the step fails with `str()`.
    `request` is what the caller is shown: `{type: input_request, prompt, responseSchema[, subject]}`."""

    def __init__(self, step_id: str, stage: int, stage_name: str, request: dict[str, Any]) -> None:
        super().__init__(f"Workflow step {step_id} halted before completion at pipeline stage {stage_name}")
        self.step_id = step_id
        self.stage = stage
        self.request = request


class StepTimeout(WorkflowError):
    """`Step '<id>' timed out after <n>ms`."""


class Dispatched(WorkflowError):
    """An attempt that failed after it dispatched a call (`openclaw.invoke`, `gog.gmail.send`…): the call may have
    taken effect, so `retry:` does not run the step again. `cause` is the failure, `calls` the commands that went out."""

    def __init__(self, cause: Exception, calls: tuple[str, ...]) -> None:
        super().__init__(cause.message if hasattr(cause, "message") else str(cause))
        self.cause = cause
        self.calls = calls


class NotRetried(WorkflowError):
    """A top-level step stopped the run after a dispatch, with retries left: the run is kept so that
    `lobster runs` lists it and `resume --run ID --retry-step` (or `--skip-step`) decides."""

    def __init__(self, message: str, step_id: str, calls: tuple[str, ...]) -> None:
        super().__init__(message)
        self.step_id = step_id
        self.calls = calls


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
