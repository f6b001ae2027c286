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


class PipelineHalted(Unrecoverable):
    """A stage of step `step_id`'s pipeline halted at stage `stage` (`ask` or `approve`): a top-level `pipeline:` step
    suspends the workflow there; a loop's sub-step, a parallel branch or a sub-workflow's step turns it into
    `NestedGate`. `request` is what the caller is shown; `identity` the approval policy (approvals only)."""

    kind = ""

    def __init__(self, step_id: str, stage: int, message: str, request: dict[str, Any],
                 identity: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.step_id = step_id
        self.stage = stage
        self.request = request
        self.identity = identity or {}


class InputRequested(PipelineHalted):
    """An `ask` stage requested input (`needs_input`): `request` is `{type: input_request, prompt, responseSchema[,
    subject]}`; the answer is the one item the pipeline continues with."""

    kind = "input"

    def __init__(self, step_id: str, stage: int, stage_name: str, request: dict[str, Any]) -> None:
        super().__init__(step_id, stage, f"Workflow step {step_id} halted before completion at pipeline stage {stage_name}",
                         request)


class ApprovalRequested(PipelineHalted):
    """An `approve` stage requested approval (`needs_approval`): `request` is `{type: approval_request, prompt, items}`;
    once approved the pipeline continues with those items."""

    kind = "approval"

    def __init__(self, step_id: str, stage: int, stage_name: str, request: dict[str, Any], identity: dict[str, Any]) -> None:
        super().__init__(step_id, stage, f"Workflow step {step_id} halted for approval at pipeline stage {stage_name}",
                         request, identity)


class NestedGate(Unrecoverable):
    """A gate inside a step (a sub-workflow's step at any depth, a `for_each` sub-step, a parallel branch) was reached:
    the top-level run halts there. `path`: where, from the step that holds it (`deploy`, `prod_gate`; `loop[3]`,
    `confirm`); `key`: the branch key its answer is kept under inside that step; `kind`: `approval` or `input`;
    `record`: the gate step's record so far (an approval step's command output); `step`: the gate's own step;
    `stage`: the stage of the gate step's pipeline that halted (`ask`, `approve`): the step continues after it on resume."""

    def __init__(self, path: tuple[str, ...], key: str, kind: str, request: dict[str, Any], identity: dict[str, Any],
                 record: dict[str, Any] | None, step: ir.Step, stage: int | None = None) -> None:
        super().__init__(f"Workflow step {' > '.join(path)} halted for {kind}")
        self.path = path
        self.key = key
        self.kind = kind
        self.request = request
        self.identity = identity
        self.record = record
        self.step = step
        self.stage = stage

    def inside(self, segment: str, key_prefix: str) -> NestedGate:
        """The same gate seen from the step that holds `segment` (a `workflow:` step's id)."""
        return NestedGate((segment, *self.path), f"{key_prefix}{self.key}", self.kind, self.request, self.identity,
                          self.record, self.step, self.stage)


class NestedGates(Unrecoverable):
    """Several gates inside one step were reached (parallel branches): the run halts at all of them at once."""

    def __init__(self, gates: tuple[NestedGate, ...]) -> None:
        super().__init__("; ".join(str(gate) for gate in gates))
        self.gates = gates

    def inside(self, segment: str, key_prefix: str) -> NestedGates:
        return NestedGates(tuple(gate.inside(segment, key_prefix) for gate in self.gates))


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
