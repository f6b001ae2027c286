"""Errors of the workflow engine; `str()` is the message printed after `Error: ` or put in the envelope."""

from __future__ import annotations


class WorkflowError(Exception):
    """A load-time or run-time failure of a workflow (a `runtime_error`, exit 1)."""


class WorkflowUsageError(WorkflowError):
    """Bad arguments, identity or response problems (a `parse_error`, exit 2)."""


class Unrecoverable(WorkflowError):
    """A failure that `retry` and `on_error` never handle (a pipeline halting inside a step)."""


class StepTimeout(WorkflowError):
    """`Step '<id>' timed out after <n>ms`."""
