"""A halt stores each step record once: the run's journal holds it, the sealed resume state names it by digest.

Every record carries a marker, made by its command (so the IR does not hold it), counted in the bytes of the state
directory. The state refers to the journal's
copy only when the journal holds every record as it is now; a journal that is gone or was altered stops the resume
(`state_integrity`, nothing runs, the state is kept), while cancelling needs no journal. State written with its
records inline (by an earlier lobsterlang, or where the journal's copy differs) still resumes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from test_gate_security import approve, cli, halt, resume_state, snapshot, work

from lobsterlang.interpret.gatestate import SECTION
from lobsterlang.interpret.signing import MAC_KEY, Signer
from lobsterlang.interpret.state import StateStore
from lobsterlang.interpret.workflow import recorddigest
from lobsterlang.interpret.workflow.journal import EventJournal, event_line
from lobsterlang.interpret.workflow.runlog import read_journal

Capture = pytest.CaptureFixture[str]
__all__ = ["work"]  # a fixture, used by name

MARK = "MARK-7f3a"
TOP = f"""\
steps:
  - id: gen
    run: |
      printf '{{"note": "%s-gen"}}' {MARK}
  - id: gate
    approval: Ship it?
  - id: after
    stdin: $gen.json
    run: cat > shipped
"""
BRANCHES = f"""\
steps:
  - id: fan
    parallel:
      wait: all
      branches:
        - id: a
          run: |
            printf '"%s-a"' {MARK}
        - id: b
          run: |
            printf '"%s-b"' {MARK}
        - id: gate
          approval: Ship it?
  - id: second
    approval: And again?
  - id: after
    stdin: $fan.json
    run: cat > shipped
"""


def journal_path(work: Path) -> Path:
    (path,) = (work / "state" / "runs").glob("*.jsonl")
    return path


def marks(work: Path, suffix: str) -> int:
    """How many times `MARK-<suffix>` is stored in the state directory (journal and resume state)."""
    needle = f"{MARK}-{suffix}".encode()
    return sum(p.read_bytes().count(needle) for p in (work / "state").rglob("*") if p.is_file())


def test_a_halt_stores_each_record_once(work: Path, capsys: Capture) -> None:
    request = halt(work, capsys, TOP)
    state = json.loads(resume_state(work).read_text())
    assert "steps" not in state and recorddigest.is_reference(state[SECTION]["records"])
    assert marks(work, "gen") == 2  # the record's stdout and its json, in the journal only
    code, envelope = approve(request["resumeToken"], capsys)
    assert (code, envelope["status"]) == (0, "ok"), envelope
    assert json.loads((work / "shipped").read_text()) == {"note": f"{MARK}-gen"}


def test_branch_records_are_stored_once_at_a_gate_inside_a_step_and_after_it(work: Path, capsys: Capture) -> None:
    """The state of a gate inside a `parallel` step names the branches the journal holds; the answer's `resumed` event
    and the step's `done` name them too, and so does the state of the next gate (written by the resumed process)."""
    request = halt(work, capsys, BRANCHES)
    nested = json.loads(resume_state(work).read_text())[SECTION]["nested"]
    assert recorddigest.is_reference(nested["kept"]) and sorted(nested["kept"]["keys"]) == ["a", "b"]
    assert (marks(work, "a"), marks(work, "b")) == (2, 2)  # each branch's record once (stdout and json)

    code, envelope = approve(request["resumeToken"], capsys)
    assert (code, envelope["status"]) == (0, "needs_approval"), envelope  # at `second`
    events = [json.loads(line) for line in journal_path(work).read_text().splitlines()]
    resumed = next(e for e in events if e["event"] == "resumed")
    assert sorted(resumed["keptBranches"]) == ["a", "b"] and list(resumed["branches"]) == ["gate"]
    done = next(e for e in events if e["event"] == "done" and e["step"] == "fan")
    assert sorted(done["fromBranches"]) == ["a", "b", "gate"] and list(done["records"]) == ["fan"]
    state = json.loads(resume_state(work).read_text())
    assert "steps" not in state and set(state[SECTION]["records"]["keys"]) >= {"fan", "a", "b", "gate"}
    assert marks(work, "a") == 4  # the branch's record, and the step's record (which holds its output)

    code, envelope = approve(envelope["requiresApproval"]["resumeToken"], capsys)
    assert (code, envelope["status"]) == (0, "ok"), envelope
    assert json.loads((work / "shipped").read_text())["a"] == f"{MARK}-a"


def test_an_altered_journal_stops_the_resume_and_keeps_the_state(work: Path, capsys: Capture) -> None:
    request = halt(work, capsys, BRANCHES)
    journal = journal_path(work)
    journal.write_text(journal.read_text().replace(f"{MARK}-a", f"{MARK}-x"))
    before = snapshot(work)
    code, envelope = approve(request["resumeToken"], capsys)
    assert (code, envelope["error"]["type"]) == (1, "state_integrity"), envelope
    assert "journal" in envelope["error"]["message"] and snapshot(work) == before


def test_a_missing_journal_stops_the_resume_and_a_cancel_needs_none(work: Path, capsys: Capture) -> None:
    request = halt(work, capsys, TOP)
    journal_path(work).unlink()
    before = snapshot(work)
    code, envelope = approve(request["resumeToken"], capsys)
    assert (code, envelope["error"]["type"]) == (1, "state_integrity"), envelope
    assert envelope["error"]["message"].endswith("which is gone or was modified; nothing ran")
    assert snapshot(work) == before and not (work / "shipped").exists()
    code, envelope = cli(["resume", "--token", request["resumeToken"], "--cancel"], capsys)
    assert (code, envelope["status"]) == (0, "cancelled")
    assert not list((work / "state").glob("workflow_resume_*.json"))


def test_state_with_its_records_inline_still_resumes(work: Path, capsys: Capture) -> None:
    """State as lobsterlang wrote it before (records in `steps`), sealed with the directory's key."""
    request = halt(work, capsys, TOP)
    path = resume_state(work)
    state = json.loads(path.read_text())
    log = read_journal(journal_path(work))
    assert log is not None
    del state[SECTION]["records"], state[MAC_KEY]
    state["steps"] = log.results
    path.write_text(json.dumps(Signer(StateStore(str(work / "state")).secret_key()).seal(state), indent=2))
    journal_path(work).unlink()  # the records are in the state: the journal is not needed
    code, envelope = approve(request["resumeToken"], capsys)
    assert (code, envelope["status"]) == (0, "ok"), envelope
    assert json.loads((work / "shipped").read_text()) == {"note": f"{MARK}-gen"}


class Queued(EventJournal):
    """A journal that only queues (nothing is written)."""

    def flush(self) -> None:
        """Nothing to write."""


def test_a_record_changed_after_it_was_journaled_is_stored_inline() -> None:
    journal = Queued("r1")
    journal.queue({"event": "start", "runId": "r1", "ir": {}})
    record: dict[str, Any] = {"id": "gen", "stdout": "x", "json": {"n": 1}}
    journal.queue({"event": "done", "index": 0, "step": "gen", "records": {"gen": record}, "last": "gen"})
    assert recorddigest.reference({"gen": record}, journal.written_results()) is not None
    record["json"]["n"] = 2
    assert recorddigest.reference({"gen": record}, journal.written_results()) is None
    assert recorddigest.reference({"gen": record, "new": {}}, journal.written_results()) is None
    assert recorddigest.reference({"gen": record}, Queued("r2").written_results()) is None  # no start: not followed


AWKWARD: dict[str, Any] = {"id": "gen", "stdout": "a\u2028b", "json": {"sep": "a\u2028b\u2029c\x85d", "lone": "x\udcffy"}}


def test_the_journal_reads_back_what_it_wrote(tmp_path: Path) -> None:
    """U+2028 is written unescaped inside a string and a lone surrogate (from a `\\udcff` escape in a step's JSON)
    as is: a replay splits lines only at newlines and gives both back, so the record's digest is the same."""
    path = tmp_path / "r1.jsonl"
    events: list[dict[str, Any]] = [{"event": "start", "runId": "r1", "ir": {}},
              {"event": "done", "index": 0, "step": "gen", "records": {"gen": AWKWARD}, "last": "gen"}]
    path.write_bytes("".join(event_line(e) for e in events).encode("utf-8", "surrogatepass"))
    log = read_journal(path)
    assert log is not None and log.skipped == [] and log.results == {"gen": AWKWARD}
    assert recorddigest.record_digest(log.results["gen"]) == recorddigest.record_digest(AWKWARD)


def test_awkward_text_in_a_record_resumes_by_reference(work: Path, capsys: Capture) -> None:
    text = TOP.replace(f"%s-gen\"}}' {MARK}", "%s\"}' 'a\\u2028b \\udcff'")
    assert text != TOP
    request = halt(work, capsys, text)
    assert recorddigest.is_reference(json.loads(resume_state(work).read_text())[SECTION]["records"])
    code, envelope = approve(request["resumeToken"], capsys)
    assert (code, envelope["status"]) == (0, "ok"), envelope


def test_a_lone_surrogate_in_resume_state_is_stored_and_read_back(work: Path, capsys: Capture) -> None:
    """Pipeline state holds the items inline: a lone surrogate among them was a traceback and a stray temporary file."""
    pipeline = "exec --json --shell \"printf '[\\\"x\\\\\\\\udcffy\\\"]'\" | approve --prompt ok | exec --stdin json --shell 'cat > got'"
    code, envelope = cli(["run", "--mode", "tool", pipeline], capsys)
    assert (code, envelope["status"]) == (0, "needs_approval"), envelope
    assert envelope["requiresApproval"]["items"] == ["x\udcffy"]
    assert not list((work / "state").glob(".*.tmp"))
    code, envelope = approve(envelope["requiresApproval"]["resumeToken"], capsys)
    assert (code, envelope["status"]) == (0, "ok"), envelope
    assert (work / "got").read_text() == '["x\\udcffy"]'


def test_every_gate_of_a_group_names_the_same_records(work: Path, capsys: Capture) -> None:
    """Two gates pending at once (two gated branches): each state names the journal's records (digested once)."""
    text = BRANCHES.replace("        - id: gate\n          approval: Ship it?\n",
                            "        - id: gate\n          approval: Ship it?\n        - id: gate2\n          approval: Sure?\n")
    assert text != BRANCHES
    (work / "flow.lobster").write_text(text)
    code, envelope = cli(["run", "--mode", "tool", "flow.lobster"], capsys)
    assert (code, envelope["status"]) == (0, "needs_approval"), envelope
    states = [json.loads(p.read_text()) for p in (work / "state").glob("workflow_resume_*.json")]
    assert len(states) == 2 and all(s["steps"] == {} for s in states)  # no step finished: nothing to name
    assert states[0][SECTION]["nested"]["kept"] == states[1][SECTION]["nested"]["kept"]
    assert sorted(states[0][SECTION]["nested"]["kept"]["keys"]) == ["a", "b"] and marks(work, "a") == 2
    for pending in envelope["pendingGates"]:
        code, answered = approve(pending["resumeToken"], capsys)
        assert code == 0, answered
    assert answered["status"] == "needs_approval"  # at `second`, after both were answered
