"""The run journal: one append-only JSON-lines file per run, synced to disk before every step starts.

Events: `start` (file, args, IR), `started` (a step's command is about to run), `done` (its
records), `halted` (waiting at a gate, with the resume state key), `not_retried` (the step failed
after dispatching a call, which may have taken effect, and its `retry:` did not run it again),
`dispatched` (a call of the step is about to go out: written before it does). A step's `done` is
written together with the next step's `started` (one sync to disk per step), and at a halt or a
cancellation, so a completed step is always on disk before the next one starts. A step
with `started` but no `done` is uncertain. Inside a `for_each` or `parallel` step, each branch (one
sub-step of one item, or one parallel branch) writes `branch_started` before its command and
`branch_done` (its record) after it, so a resumed step runs only the branches that were not
recorded; a `parallel` step's `done` names its branches' records (`fromBranches`) rather than repeating them, and
the `resumed` event after a gate inside a step names the records made inside it before the gate (`keptBranches`).
Each record is written once: a halt's resume state names the records by digest (`recorddigest`), so the journal
notes each record's digest as it serializes it (`EventJournal.shadow`). A `resumed` event after a gate inside a
`pipeline:` step carries the `answer` (an `ask`'s
response, or the items an approved `approve` stage passes on): the step continues after that stage,
after a crash too. `done`,
`branch_done` and `resumed` carry the run's LLM spend so far (`cost`), so a cost cap holds after
a resume. A finished, failed or cancelled run deletes its journal, so the journals on disk are
exactly the unfinished runs (a run stopped by a step's timeout, or by a failure after a dispatch,
counts as unfinished: that step is uncertain).
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import threading
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from lobsterlang import ir
from lobsterlang.interpret.errors import StateIntegrityError
from lobsterlang.interpret.state import StateStore, now_iso
from lobsterlang.interpret.statefiles import (
    CorruptState,
    open_regular,
    private_subdir,
)
from lobsterlang.interpret.values import to_json_data
from lobsterlang.interpret.workflow.engine import Hooks
from lobsterlang.interpret.workflow.recorddigest import digests_of, record_text, text_digest
from lobsterlang.interpret.workflow.refs import Record
from lobsterlang.interpret.workflow.runlog import RUNS_DIR, RunLog, apply_event, replay, runs_dir


def new_run_id() -> str:
    """A short random run id such as `r7f3a9c2e41b0`."""
    return "r" + secrets.token_hex(6)


class EventJournal(Hooks):
    """A run's events, queued and written by `flush` (the backend decides where); `finish` forgets the run."""

    def __init__(self, run_id: str) -> None:
        self.run_id = run_id
        self.pending: list[str] = []
        """Events queued, as the lines `flush` writes."""
        self.shadow: RunLog | None = None
        """The journal as a replay reads it, with each record's digest in its place (None: this journal was not
        followed from its start, nor from a replay of it): a halt refers to the records it holds identically."""
        self.written = False
        self.lock = threading.RLock()
        """Held while events are queued or written: parallel branches journal from their threads."""
        self.over = False
        """Set by `finish`: a late event (a branch thread that outlived its run) is dropped."""

    def append(self, event: dict[str, Any]) -> None:
        """Write one event (after the queued ones), durably."""
        with self.lock:
            if not self.over:
                self.queue(event)
                self.flush()

    def queue(self, event: dict[str, Any]) -> None:
        """Queue one event, written with the next `flush`; its records are serialized (and their digests noted) now."""
        with self.lock:
            view: dict[str, Any] = {}
            self.pending.append(event_line(event, view))
            if event.get("event") == "start":
                self.shadow = replay(self.run_id, [view])
            elif self.shadow is not None:
                apply_event(self.shadow, view)

    def follow(self, log: RunLog) -> None:
        """Continue the run `log` replays (read from this journal): its records' digests become the shadow's."""
        self.shadow = shadow_of(log)

    def written_results(self) -> dict[str, str] | None:
        """The digests of the run's records as the journal holds them, by step id (None: not known)."""
        return self.shadow.results if self.shadow is not None else None

    def written_branches(self) -> dict[str, str] | None:
        """The digests of the branch records the journal holds for the step that runs now, by branch key."""
        return self.shadow.branches if self.shadow is not None else None

    def flush(self) -> None:
        """Write the queued events durably (sets `written` once anything was written)."""
        raise NotImplementedError

    def close(self) -> None:
        """Write what is queued (an interrupted run keeps its completed steps) and let go of the run."""
        raise NotImplementedError

    def finish(self) -> None:
        """The run is over (done, failed or cancelled): forget its events."""
        raise NotImplementedError

    def start(self, path: str, args: dict[str, Any], workflow: ir.Workflow, digest: str | None, raw_args: bool,
              schedule: str | None = None) -> None:
        """The first event; `schedule`: the run is a tick of that schedule (`lobster runs --schedule NAME` lists it)."""
        event = start_event(self.run_id, path, args, workflow, digest, raw_args)
        if schedule is not None:
            event["schedule"] = schedule
        self.append(event)

    def step_started(self, index: int, step: ir.Step) -> None:
        event: dict[str, Any] = {"event": "started", "index": index, "step": step.id}
        if isinstance(step.action, (ir.ForEach, ir.Parallel, ir.WorkflowCall)):
            event["branches"] = True  # its branches are journaled one by one
        self.append(event)

    def step_done(self, index: int, step: ir.Step, results: dict[str, Record], last: str | None,
                  spend: Sequence[dict[str, Any]] = ()) -> None:
        """Queue the step's records; they are written with the next event, before anything else runs."""
        records = _records_of(step, results)
        with self.lock:
            event = {"event": "done", "index": index, "step": step.id, "records": records, "last": last, **_cost(spend)}
            if isinstance(step.action, ir.Parallel):  # its branches' records are written: the event names them
                event["records"], event["fromBranches"] = self._unwritten(records, self.written_branches())
            self.queue(event)

    def branch_started(self, index: int, step: ir.Step, key: str) -> None:
        self.append({"event": "branch_started", "index": index, "step": step.id, "branch": key})

    def branch_done(self, index: int, step: ir.Step, key: str, record: Record,
                    spend: Sequence[dict[str, Any]] = ()) -> None:
        self.append({"event": "branch_done", "index": index, "step": step.id, "branch": key, "record": record,
                     **_cost(spend)})

    def resumed(self, index: int, records: dict[str, Any], last: Any, spend: Sequence[dict[str, Any]],
                answer: dict[str, Any] | None = None, branches: dict[str, Record] | None = None,
                answers: dict[str, Any] | None = None) -> None:
        """Queue the answer to the gate at step `index` (its record), written with the next event; `answer`: the
        gate was inside that `pipeline:` step (`{step, stage, response}`, or `{step, stage, items}` after an
        `approve` stage), which continues after it; `branches`: the gate was inside that step (a sub-workflow, a loop,
        a branch): the records made inside it, the answer's too; `answers`: the answers to `ask` and `approve` stages
        inside it (`{branch key: {stage, response | items}}`)."""
        event = {"event": "resumed", "index": index, "records": records, "last": last, **_cost(spend)}
        if answer is not None:
            event["answer"] = answer
        if answers:
            event["answers"] = answers
        with self.lock:
            if branches is not None:  # those the journal holds as they are (the step's before its gate) are named
                event["branches"], event["keptBranches"] = self._unwritten(branches, self.written_branches())
            self.queue(event)

    @staticmethod
    def _unwritten(records: dict[str, Record], written: dict[str, str] | None) -> tuple[dict[str, Record], list[str]]:
        """`records` split into those the journal does not hold as they are, and the keys of those it does."""
        if not written:
            return records, []
        digests = digests_of({key: value for key, value in records.items() if key in written})
        same = [key for key, digest in digests.items() if written[key] == digest]
        return {key: value for key, value in records.items() if key not in same}, same

    def not_retried(self, index: int, step_id: str, calls: Sequence[str]) -> None:
        """The step that stopped the run failed after dispatching `calls`: `retry:` did not run it again."""
        self.append({"event": "not_retried", "index": index, "step": step_id, "calls": list(calls)})

    def dispatched(self, index: int, step: ir.Step, call: str, branch: str | None = None) -> None:
        """Written (fsynced) before the call goes out: a run killed after it does not run the step again on its own
        (`branch`: the branch that made it, whose record, once written, settles it)."""
        event = {"event": "dispatched", "index": index, "step": step.id, "call": call}
        if branch is not None:
            event["branch"] = branch
        self.append(event)

    def halted(self, index: int, gate: str, state_key: str, expires_at: str | None = None,
               gates: Sequence[dict[str, str]] = ()) -> None:
        """The run waits at `gate`: a step's id, or the path of a gate inside step `index` (`deploy > prod_gate`);
        `gates`: every gate it waits at when several are pending (`{step, stateKey}` each, `gate` the first)."""
        event: dict[str, Any] = {"event": "halted", "index": index, "step": gate, "stateKey": state_key,
                                 "expiresAt": expires_at}
        if len(gates) > 1:
            event["gates"] = [dict(g) for g in gates]
        self.append(event)


def start_event(run_id: str, path: str, args: dict[str, Any], workflow: ir.Workflow, digest: str | None,
                raw_args: bool, *, detached: bool = False) -> dict[str, Any]:
    """A run's first event; `detached`: the run was queued for workers (`run --detach`), and so are its continuations."""
    from lobsterlang.ir_codec import to_json

    event = {"event": "start", "runId": run_id, "filePath": path, "startedAt": now_iso(), "args": args,
             "fileSha256": digest, "rawArgs": raw_args, "ir": to_json(workflow)}
    if detached:
        event["detached"] = True
    return event


def _cost(spend: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The `cost` field of an event: the run's spend so far (absent while nothing was spent)."""
    return {"cost": [dict(entry) for entry in spend]} if spend else {}


RECORD_FIELDS = ("records", "branches", "record")
"""The fields of an event that carry step records: a mapping of them by key, or (`record`) one."""


def event_line(event: dict[str, Any], view: dict[str, Any] | None = None) -> str:
    """One event as a compact JSON line; `view` receives the event with each record's digest in its place."""
    plain = {name: value for name, value in event.items() if not _carries_records(name, value)}
    parts = [_dumps(plain)[:-1]]
    if view is not None:
        view.update(plain)
    for name in RECORD_FIELDS:
        if _carries_records(name, event.get(name)):
            text, digests = _records_text(event[name], single=name == "record")
            parts.append(f',"{name}":{text}')
            if view is not None:
                view[name] = digests
    return "".join(parts) + "}\n"


def _carries_records(name: str, value: Any) -> bool:
    return name in RECORD_FIELDS and isinstance(value, dict)


def _dumps(value: Any) -> str:
    return json.dumps(to_json_data(value), ensure_ascii=False, separators=(",", ":"))


def _records_text(records: dict[str, Any], *, single: bool) -> tuple[str, Any]:
    """The JSON text of a record (`single`) or of records by key, and the digest (or digests by key) of each."""
    if single:
        text = record_text(records)
        return text, text_digest(text)
    texts = {str(key): record_text(value) for key, value in records.items()}
    body = ",".join(f"{json.dumps(key, ensure_ascii=False)}:{text}" for key, text in texts.items())
    return "{" + body + "}", {key: text_digest(text) for key, text in texts.items()}


def shadow_of(log: RunLog) -> RunLog:
    """`log` with each record's digest in its place."""
    carried = digests_of(log.carried, read_back=True) if log.carried is not None else None
    return replace(log, results=digests_of(log.results, read_back=True), branches=digests_of(log.branches, read_back=True),
                   carried=carried)


class Journal(EventJournal):
    """Appends a run's events to `<state dir>/runs/<run id>.jsonl`, each write synced to disk (`sync_data`)."""

    def __init__(self, store: StateStore, run_id: str) -> None:
        super().__init__(run_id)
        self.store = store
        self.path = runs_dir(store) / f"{run_id}.jsonl"
        self._fd: int | None = None

    def open(self) -> None:
        if self._fd is None:
            self._fd = open_journal(self.store, self.path)
            if _ends_torn(self._fd):  # a crash cut the last line: end it, so ours start on their own
                os.write(self._fd, b"\n")

    def flush(self) -> None:
        """Write the queued events and sync them to disk."""
        with self.lock:
            if not self.pending:
                return
            self.open()
            assert self._fd is not None
            text = "".join(self.pending)
            self.pending = []
            os.write(self._fd, text.encode("utf-8", "surrogatepass"))
            sync_data(self._fd)
            self.written = True

    def close(self) -> None:
        """Write what is queued and close the file."""
        if self.path.exists():
            self.flush()
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def finish(self) -> None:
        """Remove the run's journal."""
        self.over = True
        self.pending = []
        self.close()
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()


def sync_data(fd: int) -> None:
    """Put what was written to `fd` on disk, with the size that reads it back (`fdatasync`: about a third cheaper
    than `fsync` on ext4, which also writes the times; `fsync` where there is no `fdatasync`, as on macOS)."""
    getattr(os, "fdatasync", os.fsync)(fd)


def open_journal(store: StateStore, path: Path) -> int:
    """The journal file opened for appending (created 0600 in the 0700 `runs` folder); `state_integrity` when unusable."""
    try:
        ensure_private_dir(store.root)
        private_subdir(store.root, RUNS_DIR)
        fd = open_regular(str(path), os.O_RDWR | os.O_CREAT | os.O_APPEND)
    except CorruptState as exc:
        raise StateIntegrityError(f"The journal of run {path.stem} cannot be written: {exc}") from None
    assert fd is not None
    return fd


def ensure_private_dir(root: str) -> None:
    """The state directory, created with mode 0700."""
    os.makedirs(root, mode=0o700, exist_ok=True)
    with contextlib.suppress(OSError):
        os.chmod(root, 0o700)


def _ends_torn(fd: int) -> bool:
    size = os.fstat(fd).st_size
    return size > 0 and os.pread(fd, 1, size - 1) != b"\n"


def _records_of(step: ir.Step, results: dict[str, Record]) -> dict[str, Record]:
    """The records a step's `done` carries: its own, and its branches' (in the order they were recorded). Only a
    `parallel` step looks through the run's results: doing it for every step made a run quadratic in its steps."""
    if isinstance(step.action, ir.Parallel):
        return {k: v for k, v in results.items() if k == step.id or _is_branch(step, k)}
    return {step.id: results[step.id]} if step.id in results else {}


def _is_branch(step: ir.Step, key: str) -> bool:
    return isinstance(step.action, ir.Parallel) and any(b.id == key for b in step.action.branches)


