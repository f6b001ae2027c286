"""`parallel`: branches run concurrently; `wait: all` merges every result, `wait: any` keeps the first.

Each branch is journaled on its own (started, then its record): a resumed step runs only the
branches the journal did not record (`wait: any`: a recorded branch is the winner, nothing runs).
"""

from __future__ import annotations

import queue
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING

from lobsterlang import ir
from lobsterlang.interpret.errors import LobsterRunError
from lobsterlang.interpret.values import stringify
from lobsterlang.interpret.workflow.attempt import AttemptCancellation, deadline
from lobsterlang.interpret.workflow.env import apply_env
from lobsterlang.interpret.workflow.errors import StepTimeout, WorkflowError
from lobsterlang.interpret.workflow.refs import Record, make_record
from lobsterlang.interpret.workflow.stdin import stdin_value

if TYPE_CHECKING:
    from lobsterlang.interpret.workflow.engine import Runner

SETTLE_S = 0.5
POLL_S = 0.05


@dataclass
class Settled:
    """One branch's end: its record, or the error it failed with."""

    index: int
    record: Record | None = None
    error: BaseException | None = None


def _message(exc: BaseException) -> str:
    return exc.message if isinstance(exc, LobsterRunError) else str(exc)


class _Branches:
    """Threads running the branches of one parallel step."""

    def __init__(self, runner: Runner, step: ir.Step, block: ir.Parallel, cwd: str, cancel: AttemptCancellation) -> None:
        self.runner, self.step, self.block = runner, step, block
        self.cwd = cwd
        self.cancels = [AttemptCancellation(cancel) for _ in block.branches]
        self.done: queue.Queue[Settled] = queue.Queue()
        self.threads: list[threading.Thread] = []

    def start(self, recorded: dict[int, Record]) -> None:
        """Start a thread for every branch that has no record in `recorded`."""
        self.threads = [
            threading.Thread(target=self._run, args=(index, branch), daemon=True)
            for index, branch in enumerate(self.block.branches) if index not in recorded
        ]
        for thread in self.threads:
            thread.start()

    def _run(self, index: int, branch: ir.Branch) -> None:
        try:
            scope = self.runner.scope()
            frame = self.runner.frame
            env = apply_env(frame.base_env, [frame.workflow.env, self.step.env, branch.env], scope)
            env = self.runner.keyed(env, self.step.id, branch.id)
            cwd = self.runner.step_cwd(branch.cwd, scope) if branch.cwd else self.cwd
            stdin = stdin_value(branch.stdin, scope)
            self.runner.branch_started(self.step, branch.id)
            record = self.runner.run_command(branch.id, branch.action, env, cwd, stdin, self.cancels[index])
            self.runner.branch_done(self.step, branch.id, record)
            self.done.put(Settled(index, record))
        except BaseException as exc:
            self.done.put(Settled(index, error=exc))

    def next(self, cancel: AttemptCancellation) -> Settled:
        while True:
            cancel.check()
            try:
                return self.done.get(timeout=POLL_S)
            except queue.Empty:
                continue

    def stop(self, keep: int | None = None) -> bool:
        """Kill every branch except `keep`; True when they all ended within the settle time."""
        for index, branch_cancel in enumerate(self.cancels):
            if index != keep:
                branch_cancel.cancel("parallel")
        started = [thread for thread in self.threads if thread.ident is not None]
        for thread in started:
            thread.join(SETTLE_S)
        return not any(thread.is_alive() for thread in started)


def run_parallel(
    runner: Runner, step: ir.Step, block: ir.Parallel, cwd: str, cancel: AttemptCancellation,
) -> tuple[Record, dict[str, Record]]:
    """Run the branches (each with the workflow, step and branch `env`); the step's record and the branch records."""
    block_cancel = AttemptCancellation(cancel)
    limit = block.timeout_ms if isinstance(block.timeout_ms, int) and not isinstance(block.timeout_ms, bool) else None
    branches = _Branches(runner, step, block, cwd, block_cancel)
    recorded = {i: r for i, b in enumerate(block.branches) if (r := runner.recorded_branch(step, b.id)) is not None}
    if block.wait == "any" and recorded:
        return _won(step, next(iter(recorded.values())))
    with deadline(block_cancel, limit):
        try:
            branches.start(recorded)
            if block.wait == "any":
                return _wait_any(step, branches, block_cancel)
            return _wait_all(step, block, branches, block_cancel, recorded)
        except BaseException:
            branches.stop()
            if block_cancel.timed_out and not cancel.cancelled:
                raise StepTimeout(f"Parallel step {step.id} timed out after {limit}ms") from None
            raise


def _wait_all(step: ir.Step, block: ir.Parallel, branches: _Branches, cancel: AttemptCancellation,
              recorded: dict[int, Record]) -> tuple[Record, dict[str, Record]]:
    records = dict(recorded)
    while len(records) < len(block.branches):
        settled = branches.next(cancel)
        if settled.error is not None:
            branches.stop()
            cancel.check()
            raise WorkflowError(f"Parallel branch failed: {_message(settled.error)}")
        assert settled.record is not None
        records[settled.index] = settled.record
    ordered = [records[i] for i in range(len(block.branches))]
    merged = {r["id"]: r["json"] for r in ordered if "json" in r}
    return make_record(step.id, stringify(merged), merged), {r["id"]: r for r in ordered}


def _wait_any(step: ir.Step, branches: _Branches, cancel: AttemptCancellation) -> tuple[Record, dict[str, Record]]:
    settled = branches.next(cancel)
    settled_all = branches.stop(keep=settled.index)
    if settled.error is not None:
        raise WorkflowError(_message(settled.error))
    if not settled_all:
        raise WorkflowError("Parallel branches did not settle after cancellation")
    assert settled.record is not None
    return _won(step, settled.record)


def _won(step: ir.Step, winner: Record) -> tuple[Record, dict[str, Record]]:
    """The records of a `wait: any` step that `winner` won."""
    merged = {winner["id"]: winner["json"]} if "json" in winner else {}
    return make_record(step.id, winner.get("stdout", ""), merged), {winner["id"]: winner}
