"""Two real `lobster worker` processes fire a schedule on a fake clock: each tick runs once, a run that halts at its
approval is in `lobster runs` with its gate, and a worker killed -9 in the middle of claiming a tick loses nothing
and runs nothing twice (its transaction goes; the other worker claims the tick)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from pg_server import pg_root, pg_url  # noqa: F401  (fixtures used by name)
from schedule_clock import FileClock

from lobsterlang.cli import main

pytestmark = pytest.mark.slow
HELPER = str(Path(__file__).parent / "schedule_clock.py")
T0 = datetime(2030, 1, 7, 6, 0, tzinfo=timezone.utc)
FLOW = """steps:
  - id: draft
    run: echo ran >> "$LEDGER"
  - id: approve
    approval: Send the briefing?
  - id: send
    run: echo sent >> "$LEDGER"
    when: $approve.approved
"""


def wait_for(predicate: Callable[[], bool], what: str, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


def ledger(path: Path) -> Counter[str]:
    return Counter(path.read_text().splitlines()) if path.exists() else Counter()


def query(url: str, sql: str, params: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    import psycopg

    with psycopg.connect(url) as conn:
        try:
            return conn.execute(sql, params).fetchall()
        except psycopg.errors.UndefinedTable:
            return []


def started_ticks(url: str) -> list[tuple[object, ...]]:
    return query(url, "SELECT to_char(scheduled_at AT TIME ZONE 'UTC', 'HH24:MI'), run_id FROM lobster.ticks "
                      "WHERE state = 'started' ORDER BY scheduled_at")


def start_worker(env: dict[str, str], clock: Path, log: Path) -> subprocess.Popen[bytes]:
    with log.open("ab") as out:
        return subprocess.Popen([sys.executable, HELPER, str(clock), "worker"], env=env, stdout=out, stderr=out)


def blocked_worker(url: str, workers: list[subprocess.Popen[bytes]]) -> subprocess.Popen[bytes] | None:
    """The worker whose claim waits for the table lock the test holds (its connection is `lobster HOST:PID`)."""
    names = {f"lobster {socket.gethostname()}:{w.pid}": w for w in workers}
    rows = query(url, "SELECT application_name FROM pg_stat_activity WHERE wait_event_type = 'Lock'")
    return next((names[str(r[0])] for r in rows if str(r[0]) in names), None)


def test_two_workers_fire_each_tick_once_and_a_kill_mid_claim_loses_nothing(
        pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: F811
    from lobsterlang.interpret.schedule import postgres

    clock = FileClock(tmp_path / "clock")
    clock.set(T0)
    monkeypatch.setattr(postgres, "database_now", clock)
    env = {**os.environ, "LOBSTER_BACKEND": pg_url, "LOBSTER_STATE_DIR": str(tmp_path / "state"), "LEDGER": str(tmp_path / "ledger")}
    for key in ("LOBSTER_BACKEND", "LOBSTER_STATE_DIR", "LEDGER"):
        monkeypatch.setenv(key, env[key])
    monkeypatch.chdir(tmp_path)
    (tmp_path / "flow.lobster").write_text(FLOW)
    assert main(["schedule", "add", "every", "--cron", "*/5 * * * *", "--timezone", "UTC", "flow.lobster"]) == 0
    capsys.readouterr()
    workers = [start_worker(env, tmp_path / "clock", tmp_path / f"w{i}.log") for i in (1, 2)]
    try:
        wait_for(lambda: query(pg_url, "SELECT count(*) FROM lobster.workers") == [(2,)], "two workers")
        for count, minute in enumerate((5, 10, 15), start=1):
            clock.set(T0 + timedelta(minutes=minute, seconds=1))
            wait_for(lambda n=count: ledger(tmp_path / "ledger")["ran"] == n, f"tick {count}")  # type: ignore[misc]
        _waiting_runs_are_listed(capsys, started_ticks(pg_url))
        victim = _kill_a_worker_in_its_claim(pg_url, clock, workers)
        survivor = next(w for w in workers if w is not victim)
        wait_for(lambda: ledger(tmp_path / "ledger")["ran"] == 4, "the survivor to claim the tick")
        _answer_a_gate(capsys, env, tmp_path)
    finally:
        for worker in workers:
            if worker.poll() is None:
                worker.send_signal(signal.SIGTERM)
                worker.wait(timeout=60)
    logs = [(tmp_path / f"w{i}.log").read_text() for i in (1, 2)]
    assert survivor.returncode == 0, logs
    ticks = started_ticks(pg_url)
    assert [t[0] for t in ticks] == ["06:05", "06:10", "06:15", "06:20"] and len({t[1] for t in ticks}) == 4
    said = [line for log in logs for line in log.splitlines() if "schedule every: tick" in line]
    assert sorted(line.split("tick ")[1].split(" UTC")[0] for line in said) == [
        "2030-01-07 06:05", "2030-01-07 06:10", "2030-01-07 06:15", "2030-01-07 06:20"], logs  # one line per tick
    assert "06:20" not in logs[workers.index(victim)]
    assert query(pg_url, "SELECT count(*) FROM dbos.workflow_status WHERE strpos(workflow_uuid, ':') = 0") == [(4,)]


def _waiting_runs_are_listed(capsys: pytest.CaptureFixture[str], ticks: list[tuple[object, ...]]) -> None:
    """Each tick's run halted at its approval: `runs --schedule` lists them with their gate, `schedule list` the last."""
    wait_for(lambda: len(_runs(capsys)) == 3 and all(r["waitingGate"] for r in _runs(capsys)), "three runs at their gate")
    runs = _runs(capsys)
    assert sorted(str(r["id"]) for r in runs) == sorted(str(t[1]) for t in ticks)
    assert {(r["waitingGate"], r["schedule"]) for r in runs} == {("approve", "every")}
    main(["schedule", "list", "--json"])
    [view] = json.loads(capsys.readouterr().out)
    assert view["lastRun"] == {"at": "2030-01-07T06:15:00+00:00", "runId": ticks[-1][1], "status": "waiting at approve"}
    assert view["nextTick"] == "2030-01-07T06:20:00+00:00"


def _runs(capsys: pytest.CaptureFixture[str]) -> list[dict[str, object]]:
    main(["runs", "--json", "--schedule", "every"])
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def _kill_a_worker_in_its_claim(url: str, clock: FileClock, workers: list[subprocess.Popen[bytes]]) -> subprocess.Popen[bytes]:
    """Hold `lobster.ticks` so the claim of the 06:20 tick stops after writing the run's journal and queue entry, kill -9
    the worker making it, then let go: its transaction must vanish with it."""
    import psycopg

    with psycopg.connect(url) as lock:
        lock.execute("LOCK TABLE lobster.ticks IN SHARE MODE")
        clock.set(T0 + timedelta(minutes=20, seconds=1))
        wait_for(lambda: blocked_worker(url, workers) is not None, "a worker blocked in its claim")
        victim = blocked_worker(url, workers)
        assert victim is not None
        victim.kill()
        victim.wait()
        lock.rollback()
    return victim


def _answer_a_gate(capsys: pytest.CaptureFixture[str], env: dict[str, str], tmp_path: Path) -> None:
    """An approval from this process: the rest of the run goes on a worker (the survivor)."""
    run_id = str(started_ticks(env["LOBSTER_BACKEND"])[0][1])
    main(["resume", "--run", run_id, "--approve", "yes"])
    assert json.loads(capsys.readouterr().out)["status"] == "queued"
    wait_for(lambda: ledger(tmp_path / "ledger")["sent"] == 1, "a worker to send")
