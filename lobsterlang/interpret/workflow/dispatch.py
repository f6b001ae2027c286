"""No automatic retry after a dispatch: a step whose attempt sent a call out (`openclaw.invoke`, `clawd.invoke`,
`openclaw.agent`, `gog.gmail.send`) and then failed may have had its effect, so `retry:` leaves it alone.

The attempt's failure becomes `Dispatched`; the step's error then says it was not retried and why, and a run it
stops is kept for `lobster runs` and `lobster resume --run ID --retry-step|--skip-step` (the explicit way).
"""

from __future__ import annotations

from collections.abc import Callable

from lobsterlang import ir
from lobsterlang.interpret.dispatchlink import dispatch_reporter
from lobsterlang.interpret.errors import Cancelled, LobsterRunError
from lobsterlang.interpret.workflow.attempt import AttemptCancellation
from lobsterlang.interpret.workflow.context import Frame
from lobsterlang.interpret.workflow.errors import Dispatched, NotRetried, Unrecoverable, WorkflowError


def noting(journal: Callable[[int, ir.Step, str, str | None], None], index: int, step: ir.Step,
           frame: Frame) -> Callable[[str, str | None], None]:
    """What a step's attempt does with each call it dispatches (from a branch, or None), before the call goes out: a
    run started by a workflow step's shell (its environment names a dispatch link) tells that step first, then its
    journal."""
    outer = dispatch_reporter(frame.base_env) if not frame.key_path else None

    def note(call: str, branch: str | None) -> None:
        if outer is not None:
            outer(call)
        journal(index, step, call, branch)

    return note


def after_dispatch(exc: Exception, cancel: AttemptCancellation) -> Exception:
    """`exc` as `Dispatched` when the attempt it ended had sent a call out; as it is otherwise."""
    if not cancel.calls or isinstance(exc, (Cancelled, Unrecoverable, Dispatched)):
        return exc
    if not isinstance(exc, (WorkflowError, LobsterRunError)):
        return exc
    return Dispatched(exc, tuple(dict.fromkeys(cancel.calls)))


def calls_text(calls: tuple[str, ...]) -> str:
    return ", ".join(calls)


def not_retried(step_id: str, failure: Dispatched, *, stops_run: bool, run_id: str) -> WorkflowError:
    """The failure of a step that `retry:` would have run again: its message says why it was not.

    A failure that stops a top-level run (`stops_run`) is `NotRetried`, so the run is kept and the message
    says how to run the step again explicitly.
    """
    message = str(failure)
    note = (f"step {step_id} was not retried: it had called {calls_text(failure.calls)}, "
            "which may have taken effect")
    if not stops_run:
        return WorkflowError(f"{message.rstrip()} ({note})")
    hint = f"; `lobster resume --run {run_id} --retry-step` runs it again" if run_id else ""
    return NotRetried(f"{message.rstrip()} ({note}{hint})", step_id, failure.calls)
