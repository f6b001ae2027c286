"""One process at a time runs a workflow run: `lobster run` and `resume --run` hold an exclusive claim.

Real processes race for one interrupted run; a ledger file counts every step's side effect.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from lobsterlang.cli import main
from lobsterlang.interpret.state import StateStore
from lobsterlang.interpret.workflow.runlock import RunBusy, hold_run, holder_pid, lock_path
from lobsterlang.interpret.workflow.runlog import list_runs

RACERS = 5
WAIT_FOR_GO = 'i=0; while [ ! -e "$GO" ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done; '
STEPS = {
    "s1": 'echo s1 >> "$LEDGER"',
    "s2": 'echo s2 >> "$LEDGER"',
    "s3": 'echo s3 >> "$LEDGER"',
    "s4": 'echo s4 >> "$LEDGER"; [ -n "$CRASH" ] && kill -9 $PPID; sleep 1',
    "s5": WAIT_FOR_GO + 'echo s5 >> "$LEDGER"',
    "s6": 'echo s6 >> "$LEDGER"',
}
WORKFLOW = "steps:\n" + "".join(f"  - id: {k}\n    run: {json.dumps(v)}\n" for k, v in STEPS.items())


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "six.lobster").write_text(WORKFLOW, encoding="utf-8")
    return {**os.environ, "LOBSTER_STATE_DIR": str(tmp_path / "state"), "LEDGER": str(tmp_path / "ledger"),
            "GO": str(tmp_path / "go")}


def _lobster(env: dict[str, str], *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "lobsterlang", *args], env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _ledger(env: dict[str, str]) -> Counter[str]:
    return Counter(Path(env["LEDGER"]).read_text().split())


def _runs(env: dict[str, str]) -> list[dict[str, Any]]:
    out = subprocess.run([sys.executable, "-m", "lobsterlang", "runs", "--json"], env=env, text=True,
                         capture_output=True, timeout=60, check=True).stdout
    return json.loads(out)  # type: ignore[no-any-return]


def _crashed_run(env: dict[str, str], tmp_path: Path) -> str:
    """Run the workflow until s4 kills lobster: s4 is uncertain, s5 and s6 have not run."""
    proc = _lobster({**env, "CRASH": "1"}, "run", "--mode", "tool", str(tmp_path / "six.lobster"))
    proc.communicate(timeout=60)
    assert proc.returncode == -9
    (row,) = _runs(env)
    assert row["uncertainStep"] == "s4" and not row["running"], row
    return str(row["id"])


def _wait_until(predicate: Any, what: str) -> None:
    deadline = time.monotonic() + 60
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def test_concurrent_resumes_of_one_run_let_exactly_one_proceed(env: dict[str, str], tmp_path: Path) -> None:
    run_id = _crashed_run(env, tmp_path)
    racers = [_lobster(env, "resume", "--run", run_id, "--skip-step") for _ in range(RACERS)]
    # The winner waits in s5 until `go` exists, so every other racer meets a held run.
    _wait_until(lambda: sum(p.poll() is not None for p in racers) == RACERS - 1, "the refused racers")
    (winner,) = [p for p in racers if p.poll() is None]
    (row,) = _runs(env)
    assert row["running"] and row["pid"] == winner.pid, row
    for loser in (p for p in racers if p is not winner):
        envelope = json.loads(loser.communicate()[0])
        assert loser.returncode == 1 and not envelope["ok"], envelope
        assert envelope["error"]["message"] == (
            f"Run {run_id} is in progress (process {winner.pid} holds it); wait for it to finish or halt, "
            "or stop that process, then resume again")
    Path(env["GO"]).touch()
    envelope = json.loads(winner.communicate(timeout=60)[0])
    assert envelope["ok"] and envelope["status"] == "ok", envelope
    assert _ledger(env) == Counter({s: 1 for s in STEPS})
    assert _runs(env) == []
    assert not lock_path(StateStore(env["LOBSTER_STATE_DIR"]), run_id).exists()


def test_a_live_run_is_listed_as_running_and_cannot_be_resumed(env: dict[str, str], tmp_path: Path) -> None:
    runner = _lobster(env, "run", "--mode", "tool", str(tmp_path / "six.lobster"))
    _wait_until(lambda: Path(env["LEDGER"]).exists() and "s4" in _ledger(env), "the run to reach s5")
    (row,) = _runs(env)
    assert row["running"] and row["pid"] == runner.pid, row
    listing = subprocess.run([sys.executable, "-m", "lobsterlang", "runs"], env=env, text=True,
                             capture_output=True, timeout=60, check=True).stdout
    assert f"running (pid {runner.pid})" in listing
    for flag in ("--skip-step", "--retry-step"):
        refused = subprocess.run([sys.executable, "-m", "lobsterlang", "resume", "--run", row["id"], flag],
                                 env=env, text=True, capture_output=True, timeout=60)
        assert refused.returncode == 1 and f"(process {runner.pid} holds it)" in refused.stdout, refused.stdout
    Path(env["GO"]).touch()
    envelope = json.loads(runner.communicate(timeout=60)[0])
    assert envelope["ok"], envelope
    assert _ledger(env) == Counter({s: 1 for s in STEPS})


def test_a_dead_holder_releases_the_run(tmp_path: Path) -> None:
    store = StateStore(tmp_path)
    holder = subprocess.Popen([sys.executable, "-c", (
        "import sys, time\n"
        "from lobsterlang.interpret.state import StateStore\n"
        "from lobsterlang.interpret.workflow.runlock import hold_run\n"
        f"with hold_run(StateStore({str(tmp_path)!r}), 'r1'):\n"
        "    print('held', flush=True); time.sleep(60)\n")], stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdout.readline() == "held\n"
    assert holder_pid(store, "r1") == holder.pid
    with pytest.raises(RunBusy, match=f"process {holder.pid} holds it"), hold_run(store, "r1"):
        pass
    holder.kill()
    holder.wait()
    assert holder_pid(store, "r1") is None
    with hold_run(store, "r1"), hold_run(store, "r1"):  # the claim nests within one process
        assert holder_pid(store, "r1") == os.getpid()
    assert holder_pid(store, "r1") is None and not lock_path(store, "r1").exists()


def test_runs_skips_a_bad_journal_line_and_says_where(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         capsys: Any) -> None:
    monkeypatch.setenv("LOBSTER_STATE_DIR", str(tmp_path / "state"))
    flow = tmp_path / "gate.lobster"
    flow.write_text("steps:\n  - id: a\n    run: echo a\n  - id: g\n    approval: ok?\n  - id: g2\n    approval: sure?\n")
    for _ in range(2):
        main(["run", "--mode", "tool", str(flow)])
    capsys.readouterr()
    first, second = sorted(log.run_id for log in list_runs(StateStore(tmp_path / "state")))
    journal = tmp_path / "state" / "runs" / f"{first}.jsonl"
    lines = len(journal.read_text().splitlines())
    with journal.open("a") as out:
        out.write('[1]\n{"event":"started"}\n{"event":"done","index":"x","step":"a"}\n{"ev')
    main(["runs", "--json"])
    captured = capsys.readouterr()
    assert sorted(row["id"] for row in json.loads(captured.out)) == [first, second]
    assert [row["waitingGate"] for row in json.loads(captured.out)] == ["g", "g"]
    assert captured.err.splitlines() == [
        f"warning: {journal}:{lines + 1}: not a journal event; line skipped",
        f"warning: {journal}:{lines + 2}: started event without a valid 'index'; line skipped",
        f"warning: {journal}:{lines + 3}: done event without a valid 'index'; line skipped",
        f"warning: {journal}:{lines + 4}: not JSON (a torn or foreign line); line skipped",
    ]
    main(["resume", "--run", first, "--approve", "yes"])  # the torn line does not swallow the next events
    assert json.loads(capsys.readouterr().out)["status"] == "needs_approval"
    logs = list_runs(StateStore(tmp_path / "state"))
    assert sorted((log.run_id, (log.halted or {}).get("step")) for log in logs) == [(first, "g2"), (second, "g")]


def test_another_thread_of_the_same_process_is_refused(tmp_path: Path) -> None:
    """A long-lived process (the MCP server) may resume runs on several threads at once."""
    store = StateStore(tmp_path)
    outcome: list[str] = []

    def other_thread() -> None:
        try:
            with hold_run(store, "r1"):
                outcome.append("held")
        except RunBusy as exc:
            outcome.append(str(exc))

    with hold_run(store, "r1"):
        thread = threading.Thread(target=other_thread)
        thread.start()
        thread.join()
    assert outcome == [f"Run r1 is in progress (process {os.getpid()} holds it); wait for it to finish or halt, "
                       "or stop that process, then resume again"]


def test_a_database_store_takes_no_lock_file_in_the_working_directory(tmp_path: Path, monkeypatch: Any) -> None:
    # A Postgres store's `dir` is its (redacted) URL: a run lock there made a `postgresql:/…` folder in the cwd.
    from lobsterlang.interpret.workflow.stores import BackendStore

    monkeypatch.chdir(tmp_path)
    store = BackendStore("postgresql://user:***@db/x")
    with hold_run(store, "r0123456789ab"):
        assert holder_pid(store, "r0123456789ab") is None
    assert list(tmp_path.iterdir()) == []
