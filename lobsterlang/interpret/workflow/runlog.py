"""Run journals read back: each run's events replayed into where the run stands (`RunLog`); the unfinished runs."""

from __future__ import annotations

import contextlib
import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lobsterlang.interpret.state import StateStore
from lobsterlang.interpret.statefiles import MAX_STATE_BYTES, CorruptState, is_real_dir, read_regular
from lobsterlang.interpret.workflow.runlock import holder_pid

RUNS_DIR = "runs"
TORN_AFTER_S = 60
"""A journal with no complete first line after this long belongs to a run killed while starting."""


def runs_dir(store: StateStore) -> Path:
    return store.dir / RUNS_DIR


@dataclass
class RunLog:
    """A journal read back: where the run stands."""

    run_id: str
    start: dict[str, Any]
    results: dict[str, Any] = field(default_factory=dict)
    """The step records by step id (in a shadow, `EventJournal.shadow`, their digests)."""
    next_index: int = 0
    last: str | None = None
    uncertain: tuple[int, str] | None = None
    halted: dict[str, Any] | None = None
    last_done: str | None = None
    skipped: list[str] = field(default_factory=list)
    """`<file>:<line>: <why>` for each line that is not an event this version writes."""
    last_event: str = "start"
    """The kind of the last event: `start` or `resumed` means no step ran since."""
    attempts: int = 0
    """How many times the uncertain step was started (each retry and each resume is one more)."""
    branch_journaled: bool = False
    """The uncertain step journals its branches (`for_each`, `parallel`)."""
    branches: dict[str, Any] = field(default_factory=dict)
    """The recorded branches of the uncertain step, by branch key."""
    open_branches: list[str] = field(default_factory=list)
    """Branches of the uncertain step that started and did not record their end."""
    spend: list[dict[str, Any]] = field(default_factory=list)
    """The run's LLM spend as of the last event that carried it."""
    dispatched: list[str] = field(default_factory=list)
    """The calls the uncertain step's last attempt dispatched (which may have taken effect), but for those of branches
    recorded since (a retry does not repeat them)."""
    dispatched_by: list[str | None] = field(default_factory=list)
    """The branch that dispatched each of `dispatched` (None: the step itself, or not known)."""
    not_retried: list[str] | None = None
    """The calls the uncertain step had dispatched when it failed and was not retried (None: it was not)."""
    answer: dict[str, Any] | None = None
    """The answer given at the gate inside the `pipeline:` step the run resumed at (`{step, stage, response | items}`)."""
    carried: dict[str, Any] | None = None
    """The records inside the step the run resumed at after a gate inside it (the answer's too): kept when it starts."""
    carried_answers: dict[str, Any] = field(default_factory=dict)
    """The answers to `ask` and `approve` stages inside that step, by branch key (`{stage, response | items}`)."""

    @property
    def queued(self) -> bool:
        """A detached run waiting for a worker: queued, or answered at a gate and queued again."""
        return bool(self.start.get("detached")) and self.last_event in ("start", "resumed")


EVENT_FIELDS: dict[str, dict[str, type | tuple[type, ...]]] = {
    "start": {"runId": str, "ir": dict},
    "started": {"index": int, "step": str},
    "done": {"index": int, "step": str, "records": (dict, type(None))},
    "halted": {"index": int, "step": str, "stateKey": str},
    "resumed": {"index": int, "records": (dict, type(None))},
    "branch_started": {"index": int, "step": str, "branch": str},
    "branch_done": {"index": int, "step": str, "branch": str, "record": dict},
    "not_retried": {"index": int, "step": str, "calls": list},
    "dispatched": {"index": int, "step": str, "call": str},
}
"""The fields each event kind must carry, with their types; other fields are free."""


def read_journal(path: Path) -> RunLog | None:
    """Replay a journal file; None when there is none or its first line is not a start event.

    A torn line (a crash mid-write) or a foreign one (not an event of EVENT_FIELDS) is skipped
    and listed in `RunLog.skipped`, so one bad line never hides the run. A journal that is not
    a regular file, or is larger than MAX_STATE_BYTES, is `CorruptState`.
    """
    events: list[dict[str, Any]] = []
    skipped = []
    data = read_regular(str(path), MAX_STATE_BYTES)
    if data is None:
        return None
    lines = data.split(b"\n")  # only at a newline: U+2028 and the like are written unescaped inside strings
    if lines[-1] == b"":
        lines.pop()
    for number, raw in enumerate(lines, 1):
        event = _parse_event(_decoded(raw))
        if isinstance(event, dict):
            events.append(event)
        else:
            skipped.append(f"{path}:{number}: {event}; line skipped")
    return replay(path.stem, events, skipped)


def replay(run_id: str, events: list[Any], skipped: list[str] | None = None) -> RunLog | None:
    """Where a run stands after `events`; None when the first is not a `start` event."""
    if not events or not isinstance(events[0], dict) or events[0].get("event") != "start":
        return None
    log = RunLog(run_id, events[0], skipped=skipped or [])
    for event in events[1:]:
        apply_event(log, event)
    return log


def _decoded(raw: bytes) -> str:
    """A journal line as it was written (a lone surrogate, from output that was not UTF-8, is written as is)."""
    try:
        return raw.decode("utf-8", "surrogatepass")
    except UnicodeDecodeError:
        return raw.decode("utf-8", "replace")


def _parse_event(line: str) -> dict[str, Any] | str:
    """The event on `line`, or why it is not one."""
    try:
        event = json.loads(line)
    except ValueError:
        return "not JSON (a torn or foreign line)"
    kind = event.get("event") if isinstance(event, dict) else None
    fields = EVENT_FIELDS.get(kind) if isinstance(kind, str) else None
    if fields is None:
        return "not a journal event"
    for name, kinds in fields.items():
        value = event.get(name)
        if not isinstance(value, kinds) or isinstance(value, bool):
            return f"{kind} event without a valid {name!r}"
    return event  # type: ignore[no-any-return]


def apply_event(log: RunLog, event: dict[str, Any]) -> None:
    """Where the run stands after `event` (the journal's writer applies its own events to its shadow the same way)."""
    kind = event["event"]
    log.last_event = kind
    if isinstance(event.get("cost"), list):
        log.spend = event["cost"]
    if kind == "started":
        if log.uncertain != (event["index"], event["step"]):  # a new step (a resumed one keeps its branches)
            log.branches, log.open_branches, log.attempts = {}, [], 0
            if log.carried is not None and event["index"] == log.next_index:
                log.branches = dict(log.carried)
        log.uncertain = (event["index"], event["step"])
        log.attempts += 1
        log.branch_journaled = bool(event.get("branches"))
        log.not_retried, log.dispatched, log.dispatched_by = None, [], []
    elif kind == "dispatched":
        if log.uncertain == (event["index"], event["step"]):
            branch = event.get("branch")
            log.dispatched.append(event["call"])
            log.dispatched_by.append(branch if isinstance(branch, str) else None)
    elif kind in ("branch_started", "branch_done"):
        _apply_branch(log, event)
    elif kind == "done":
        log.results.update(_named(log.branches, event.get("fromBranches")))
        log.results.update(event.get("records") or {})
        log.next_index, log.last, log.last_done = event["index"] + 1, event.get("last"), event["step"]
        log.uncertain, log.halted, log.answer, log.carried, log.carried_answers = None, None, None, None, {}
        log.branches, log.open_branches = {}, []
    elif kind == "not_retried":
        if log.uncertain == (event["index"], event["step"]):
            log.not_retried = [str(call) for call in event["calls"]]
    elif kind == "halted":
        log.halted = event
    elif kind == "resumed":
        log.halted, log.uncertain = None, None  # a step halted inside its pipeline starts again from its answer
        log.results.update(event.get("records") or {})
        log.next_index, log.last = event["index"], event.get("last")
        answer, carried, answers = event.get("answer"), event.get("branches"), event.get("answers")
        log.answer = answer if isinstance(answer, dict) else None
        kept = _named(log.branches, event.get("keptBranches"))
        log.carried = {**kept, **carried} if isinstance(carried, dict) else (kept or None)
        log.carried_answers = answers if isinstance(answers, dict) else {}


def _named(branches: dict[str, Any], keys: Any) -> dict[str, Any]:
    """The branch records an event names by key (`fromBranches`, `keptBranches`): those the journal wrote before it."""
    if not isinstance(keys, list):
        return {}
    return {key: branches[key] for key in keys if isinstance(key, str) and key in branches}


def _apply_branch(log: RunLog, event: dict[str, Any]) -> None:
    if log.uncertain != (event["index"], event["step"]):
        return  # a branch that ended after its step (a `wait: any` loser): the step's record says it all
    key = event["branch"]
    if key in log.open_branches:
        log.open_branches.remove(key)
    if event["event"] == "branch_started":
        log.open_branches.append(key)
    else:
        log.branches[key] = event["record"]
        _settle(log, key)


def _settle(log: RunLog, key: str) -> None:
    """Branch `key` was recorded: the calls it dispatched no longer stop a retry (it never runs again)."""
    if key in log.dispatched_by:
        kept = [(call, by) for call, by in zip(log.dispatched, log.dispatched_by, strict=True) if by != key]
        log.dispatched, log.dispatched_by = [call for call, _ in kept], [by for _, by in kept]


def list_runs(store: StateStore, problems: list[str] | None = None) -> list[RunLog]:
    """Every unfinished run, oldest first (a journal killed before its first line is removed).

    Lines that were skipped, and journals without a start event, are added to `problems`.
    """
    directory = runs_dir(store)
    try:
        if not is_real_dir(str(directory)):
            return []
    except CorruptState as exc:
        sys.stderr.write(f"warning: {directory}: {exc}; no journal is read\n")
        return []
    logs = []
    found = problems if problems is not None else []
    for path in sorted(directory.glob("*.jsonl")):
        try:
            log = read_journal(path)
        except CorruptState as exc:
            found.append(f"{path}: {exc}; file skipped")
            sys.stderr.write(f"warning: {path}: {exc}; file skipped\n")
            continue
        if log is not None:
            logs.append(log)
            found.extend(log.skipped)
            continue
        if holder_pid(store, path.stem) is not None:
            continue  # a run writing its first line right now
        problem = f"{path}:1: no start event (a run killed as it started, or not a journal); {_drop_torn(path)}"
        found.append(problem)
        if problems is None:  # no caller collects them: say it here, as for a file that cannot be read
            sys.stderr.write(f"warning: {problem}\n")
    return sorted(logs, key=lambda log: str(log.start.get("startedAt")))


def _drop_torn(path: Path) -> str:
    """Remove a journal without a start event once it is older than TORN_AFTER_S; what was done with it."""
    with contextlib.suppress(OSError):
        if time.time() - path.stat().st_mtime > TORN_AFTER_S:
            path.unlink()
            return "file removed"
    return "file skipped"
