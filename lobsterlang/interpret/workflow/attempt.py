"""One attempt of a step: a timeout or the run's own cancellation stops its processes and pauses, and it notes
the calls it dispatched (a retry must not repeat what may have taken effect)."""

from __future__ import annotations

import subprocess
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager

from lobsterlang.interpret.process import Cancellation, kill_now

TIMEOUT_REASON = "timeout"


INSIDE = " > "
"""Joins the key of a branch inside another in a run's journal: `<sub-workflow step> > <its branch>`."""


class AttemptCancellation(Cancellation):
    """A child of the run's cancellation: spawns through the parent, and can be stopped on its own."""

    def __init__(self, parent: Cancellation, record: Callable[[str, str | None], None] | None = None,
                 branch: str | None = None, within: str | None = None) -> None:
        super().__init__()
        self.parent = parent
        self.procs: set[subprocess.Popen[bytes]] = set()
        self.children: list[AttemptCancellation] = []
        self.lock = threading.Lock()
        self.stopped = threading.Event()
        """Set when this attempt is cancelled: a pause waiting on it ends at once."""
        self.calls: list[str] = []
        """Commands this attempt dispatched (and may have had their effect): `openclaw.invoke`, `gog.gmail.send`…"""
        self.record = record
        """Records a dispatch durably before the call goes out (a top-level step's: its run journal, and the step whose
        shell started this run), with the branch that made it."""
        self.branch = branch
        """The branch this attempt runs (a parallel branch's id; a loop sets its current item's sub-step key): its
        dispatches are journaled with it, so a recorded branch's calls do not stop a retry after a crash."""
        self.within = within
        """The branch key of this attempt's step in the journal of the step that runs its workflow (a sub-workflow's
        step), which the keys of its own branches go inside; None at the top level."""
        if isinstance(parent, AttemptCancellation):
            parent.children.append(self)

    def check(self) -> None:
        self.parent.check()
        super().check()

    @property
    def timed_out(self) -> bool:
        return self.reason == TIMEOUT_REASON

    def dispatched(self, command: str, branch: str | None = None) -> None:
        """`command` is sending its call now, from `branch` (else this attempt's); the attempts this one runs in (a
        parallel step's, a calling step's) too. When `record` cannot record it, it raises and the call does not go out."""
        branch = branch if branch is not None else self.branch
        if self.within is not None:
            branch = self.within if branch is None else f"{self.within}{INSIDE}{branch}"
        with self.lock:
            self.calls.append(command)
        if isinstance(self.parent, AttemptCancellation):
            self.parent.dispatched(command, branch)
        if self.record is not None:
            self.record(command, branch)

    def settled(self, since: int) -> None:
        """The calls noted after the first `since` belong to work whose record is kept (a finished loop item, which
        no later attempt repeats): they no longer stop this attempt's step from being retried."""
        with self.lock:
            del self.calls[since:]

    def spawn(self, argv: Sequence[str], env: Mapping[str, str], cwd: str, *, stdin: bool) -> subprocess.Popen[bytes]:
        self.check()
        proc = self.parent.spawn(argv, env, cwd, stdin=stdin)
        with self.lock:
            self.procs.add(proc)
            stopped = self.reason is not None
        if stopped:  # cancelled while the process was starting
            kill_now(proc)
        return proc

    def forget(self, proc: subprocess.Popen[bytes]) -> None:
        self.procs.discard(proc)
        self.parent.forget(proc)

    def cancel(self, reason: str, exit_code: int = 130) -> None:
        """Stop this attempt: SIGKILL every process tree it started (and its children's), detached ones included."""
        with self.lock:
            if self.reason is None:
                self.reason, self.exit_code = reason, exit_code
            procs = list(self.procs)
        self.stopped.set()
        self.notify_watchers()
        for proc in procs:
            kill_now(proc)
        for child in list(self.children):
            child.cancel(reason, exit_code)

    @contextmanager
    def watch(self, stop: Callable[[], None]) -> Iterator[None]:
        """As `Cancellation.watch`, for this attempt and every cancellation above it (the run's, a signal's)."""
        with super().watch(stop), self.parent.watch(stop):
            yield


@contextmanager
def deadline(cancel: AttemptCancellation, timeout_ms: int | None) -> Iterator[None]:
    """Cancel the attempt with reason `timeout` after `timeout_ms` (no limit when None)."""
    if not timeout_ms:
        yield
        return
    timer = threading.Timer(timeout_ms / 1000, cancel.cancel, args=(TIMEOUT_REASON,))
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()


def pause(cancel: Cancellation, seconds: float) -> None:
    """Sleep `seconds`, cut short when the attempt is stopped (its timeout), then raise `Cancelled` if it was."""
    if isinstance(cancel, AttemptCancellation):
        cancel.stopped.wait(seconds)
    else:
        time.sleep(seconds)
    cancel.check()
