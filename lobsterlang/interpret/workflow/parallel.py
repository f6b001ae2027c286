"""`parallel`: branches run concurrently; `wait: all` merges every result, `wait: any` keeps the first.

Each branch is journaled on its own (started, then its record): a resumed step runs only the
branches the journal did not record (`wait: any`: a recorded branch is the winner, nothing runs).
"""

from __future__ import annotations

import queue
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lobsterlang import ir
from lobsterlang.interpret.errors import LobsterRunError
from lobsterlang.interpret.values import stringify
from lobsterlang.interpret.workflow import gates
from lobsterlang.interpret.workflow.attempt import AttemptCancellation, deadline
from lobsterlang.interpret.workflow.env import apply_env
from lobsterlang.interpret.workflow.errors import NestedGate, NestedGates, PipelineHalted, StepTimeout, WorkflowError
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
        self.cancels = [AttemptCancellation(cancel, branch=branch.id) for branch in block.branches]
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
            gate = BranchGate(self.runner, self.step, branch, env)
            record = gate.ask_input(stdin) if branch.input is not None else gate.run(cwd, stdin, self.cancels[index])
            if branch.approval is not None:
                gate.ask_approval(record)
            self.runner.branch_done(self.step, branch.id, record)
            self.runner.keep_branch(self.step, branch.id, record)
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
                return _wait_any(step, block, branches, block_cancel)
            return _wait_all(step, block, branches, block_cancel, recorded)
        except BaseException:
            branches.stop()
            if block_cancel.timed_out and not cancel.cancelled:
                raise StepTimeout(f"Parallel step {step.id} timed out after {limit}ms") from None
            raise


def _wait_all(step: ir.Step, block: ir.Parallel, branches: _Branches, cancel: AttemptCancellation,
              recorded: dict[int, Record]) -> tuple[Record, dict[str, Record]]:
    records = dict(recorded)
    gates: dict[int, NestedGate] = {}
    while len(records) + len(gates) < len(block.branches):
        settled = branches.next(cancel)
        if isinstance(settled.error, NestedGate):
            gates[settled.index] = settled.error  # the others go on, to their end or their own gate
            continue
        if settled.error is not None:
            branches.stop()
            cancel.check()
            raise WorkflowError(f"Parallel branch failed: {_message(settled.error)}")
        assert settled.record is not None
        records[settled.index] = settled.record
    if gates:
        raise NestedGates(tuple(gates[i] for i in sorted(gates)))
    ordered = [records[i] for i in range(len(block.branches))]
    merged = {r["id"]: _value(r) for r in ordered if "json" in r or "response" in r}
    return make_record(step.id, stringify(merged), merged), {r["id"]: r for r in ordered}


def _wait_any(step: ir.Step, block: ir.Parallel, branches: _Branches, cancel: AttemptCancellation,
              ) -> tuple[Record, dict[str, Record]]:
    """The first branch to finish wins; a branch waiting at its gate has not finished (when every branch waits at
    one, the run halts at them all, and the first answered in branch order wins on resume)."""
    gates: dict[int, NestedGate] = {}
    settled = branches.next(cancel)
    while isinstance(settled.error, NestedGate):
        gates[settled.index] = settled.error
        if len(gates) == len(branches.threads):
            raise NestedGates(tuple(gates[i] for i in sorted(gates)))
        settled = branches.next(cancel)
    settled_all = branches.stop(keep=settled.index)
    if settled.error is not None:
        raise WorkflowError(_message(settled.error))
    if not settled_all:
        raise WorkflowError("Parallel branches did not settle after cancellation")
    assert settled.record is not None
    return _won(step, settled.record)


class BranchGate:
    """A branch that is a gate: its `input:` asks (instead of a command), its `approval:` asks after its command; on a
    terminal it asks there, otherwise the branch stops at it (`NestedGate`, path `<step> > <branch>`)."""

    def __init__(self, runner: Runner, step: ir.Step, branch: ir.Branch, env: dict[str, str]) -> None:
        self.runner, self.step, self.branch, self.env = runner, step, branch, env

    def as_step(self) -> ir.Step:
        """The branch as the gate step the resume state and the prompts name."""
        b = self.branch
        return ir.Step(b.id, b.action, b.approval, b.input, b.stdin, None, None, b.env, b.cwd, None, None, None, (),
                       b.span, b.id_span)

    def halt(self, kind: str, request: dict[str, Any], identity: dict[str, Any], record: Record | None,
             stage: int | None = None) -> NestedGate:
        return NestedGate((self.step.id, self.branch.id), self.branch.id, kind, request, identity, record, self.as_step(),
                          stage)

    def run(self, cwd: str, stdin: Any, cancel: AttemptCancellation) -> Record:
        """The branch's command; an `ask` or `approve` in its pipeline halts the run there (on resume it continues after it)."""
        answer = self.runner.recorded_answer(self.step, self.branch.id)
        try:
            return self.runner.run_command(self.branch.id, self.branch.action, self.env, cwd, stdin, cancel, answer=answer)
        except PipelineHalted as asked:
            if self.runner.opts.interactive:
                raise
            raise self.halt(asked.kind, asked.request, asked.identity, None, asked.stage) from None

    def ask_approval(self, record: Record) -> None:
        step = self.as_step()
        request, identity = gates.approval_request(step, record, self.env)
        if identity.get("initiatedBy"):
            record["initiatedBy"] = identity["initiatedBy"]
        if not self.runner.opts.interactive:
            raise self.halt("approval", request, identity, record)
        with _PROMPT:
            from lobsterlang.interpret.workflow.prompts import ask_approval

            ask_approval(step, request, identity, record, self.runner.frame.base_env, self.runner.opts)

    def ask_input(self, stdin: Any) -> Record:
        step = self.as_step()
        subject = gates.input_subject(step, stdin, None)
        if not self.runner.opts.interactive:
            raise self.halt("input", gates.input_request(step, subject), {}, None)
        with _PROMPT:
            from lobsterlang.interpret.workflow.prompts import ask_input

            return {"id": step.id, "subject": subject, "response": ask_input(step, self.runner.opts)}


_PROMPT = threading.Lock()
"""Branches run in threads: one asks on the terminal at a time."""


def _value(record: Record) -> Any:
    """What a branch adds to the step's json: its json, or (an input branch) the response."""
    return record["json"] if "json" in record else record["response"]


def _won(step: ir.Step, winner: Record) -> tuple[Record, dict[str, Record]]:
    """The records of a `wait: any` step that `winner` won."""
    merged = {winner["id"]: _value(winner)} if "json" in winner or "response" in winner else {}
    return make_record(step.id, winner.get("stdout", ""), merged), {winner["id"]: winner}
