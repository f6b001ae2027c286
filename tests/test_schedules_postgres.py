"""Schedules in Postgres, fired by the workers' scheduler on a fake clock: each tick once across schedulers, catch-up
after downtime, overlap skip and queue, DST in a time zone, pause, run-now and what `schedule list` shows.

The schedulers run in this process (as each `lobster worker` runs one) with the clock of
tests/schedule_clock.py; no worker executes the runs, so a started run stays queued until the
test cancels it (`lobster cancel`), which ends it as a finished run would for its schedule.
tests/test_schedules_workers.py has the same with real worker processes and a kill -9.
"""

from __future__ import annotations

import json
import threading
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from pg_server import pg_root  # noqa: F401  (a fixture used by name)
from schedule_clock import FileClock

from lobsterlang.cli import main

pytestmark = pytest.mark.slow
UTC = timezone.utc
T0 = datetime(2030, 1, 7, 6, 0, tzinfo=UTC)  # a Monday
FLOW = "steps:\n  - id: work\n    run: echo work\n"


@pytest.fixture(scope="module")
def dbos_template(pg_root: str) -> str:  # noqa: F811
    """A database with DBOS's tables (what the first worker creates), copied for each test (faster than migrating)."""
    import psycopg
    from dbos import DBOS

    with psycopg.connect(pg_root, autocommit=True) as conn:
        conn.execute("DROP DATABASE IF EXISTS lobster_dbos_template")
        conn.execute("CREATE DATABASE lobster_dbos_template")
    DBOS.migrate(pg_root.replace("/postgres?", "/lobster_dbos_template?", 1))
    return "lobster_dbos_template"


@pytest.fixture
def dbos_url(pg_root: str, dbos_template: str) -> str:  # noqa: F811
    import secrets

    import psycopg

    name = "t_" + secrets.token_hex(6)
    with psycopg.connect(pg_root, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name} TEMPLATE {dbos_template}")
    return pg_root.replace("/postgres?", f"/{name}?", 1)


@pytest.fixture
def db(dbos_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """A database a worker has started on once (DBOS's tables), a fake clock at T0, and a workflow file."""
    from lobsterlang.interpret.schedule import postgres

    clock = FileClock(tmp_path / "clock")
    clock.set(T0)
    monkeypatch.setattr(postgres, "database_now", clock)
    monkeypatch.setenv("LOBSTER_BACKEND", dbos_url)
    monkeypatch.setenv("LOBSTER_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "flow.lobster").write_text(FLOW)
    return clock


def lobster(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    code = main(list(args))
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def add(capsys: pytest.CaptureFixture[str], name: str, cron: str, *options: str) -> None:
    lobster(capsys, "schedule", "add", name, "--cron", cron, "--timezone", "UTC", "flow.lobster", *options)


def scheduler(url: str) -> Any:
    from lobsterlang.interpret.backend.scheduler import Scheduler
    from lobsterlang.interpret.backend.worker import queue_target

    return Scheduler(url, queue_target(), None)


def fire(url: str, count: int = 1) -> None:
    """`count` schedulers (as many workers) poll at the same moment."""
    schedulers = [scheduler(url) for _ in range(count)]
    start = threading.Barrier(count)
    failures: list[BaseException] = []

    def poll(one: Any) -> None:
        start.wait()
        try:
            one.fire_due()
        except BaseException as exc:
            failures.append(exc)

    threads = [threading.Thread(target=poll, args=(s,)) for s in schedulers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for one in schedulers:
        one.close()
    assert not failures, failures


def ticks(url: str, name: str) -> list[tuple[str, str, str | None, str | None]]:
    """(scheduled time HH:MM, state, run id, detail) of every tick record of `name`, oldest first."""
    import psycopg

    with psycopg.connect(url) as conn:
        rows = conn.execute("SELECT scheduled_at, state, run_id, detail FROM lobster.ticks WHERE schedule = %s "
                            "ORDER BY scheduled_at, recorded_at", (name,)).fetchall()
    return [(r[0].astimezone(UTC).strftime("%H:%M"), r[1], r[2], r[3]) for r in rows]


def queued_runs(url: str) -> list[str]:
    import psycopg

    with psycopg.connect(url) as conn:
        rows = conn.execute("SELECT workflow_uuid FROM dbos.workflow_status WHERE status = 'ENQUEUED' "
                            "ORDER BY workflow_uuid").fetchall()
    return [str(r[0]) for r in rows]


def cancel(capsys: pytest.CaptureFixture[str], run_id: str | None) -> None:
    """The run ends (as when a worker finishes it): its schedule holds no active run."""
    assert run_id is not None
    assert json.loads(lobster(capsys, "cancel", run_id))["status"] == "cancelled"


def test_each_tick_starts_one_run_however_many_schedulers_poll(db: FileClock, dbos_url: str,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    names = ["a", "b", "c"]
    for name in names:
        add(capsys, name, "*/5 * * * *")
    for minute in (5, 10, 15):
        db.set(T0 + timedelta(minutes=minute, seconds=1))
        fire(dbos_url, count=2)
        for name in names:
            cancel(capsys, ticks(dbos_url, name)[-1][2])
    started = {name: ticks(dbos_url, name) for name in names}
    for name in names:
        assert [(t[0], t[1]) for t in started[name]] == [("06:05", "started"), ("06:10", "started"), ("06:15", "started")]
    run_ids = [str(t[2]) for rows in started.values() for t in rows]
    assert len(set(run_ids)) == 9 and sorted(queued_runs(dbos_url)) == sorted(run_ids)  # one queue entry per tick
    fire(dbos_url, count=2)  # nothing new is due
    assert len(queued_runs(dbos_url)) == 9


def test_catch_up_after_downtime(db: FileClock, dbos_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    for policy in ("none", "last", "all"):
        add(capsys, policy, "0 * * * *", "--catch-up", policy, "--overlap", "queue")
    db.set(T0 + timedelta(hours=3, minutes=30))  # no worker ran from 06:00 to 09:30: the 07:00, 08:00, 09:00 ticks
    fire(dbos_url)
    assert [t[:2] for t in ticks(dbos_url, "none")] == [("09:00", "missed")]
    assert "3 tick(s) since 2030-01-07 06:00 UTC missed while no worker ran; catch-up none" in str(ticks(dbos_url, "none")[0][3])
    assert [t[:2] for t in ticks(dbos_url, "last")] == [("08:00", "missed"), ("09:00", "started")]
    caught_up = ticks(dbos_url, "all")
    assert [t[:2] for t in caught_up] == [("07:00", "started"), ("08:00", "waiting"), ("09:00", "waiting")]
    for expected in ("08:00", "09:00"):  # each queued tick starts once the run before it ended
        cancel(capsys, [t for t in ticks(dbos_url, "all") if t[1] == "started"][-1][2])
        fire(dbos_url, count=2)
        assert [t[0] for t in ticks(dbos_url, "all") if t[1] == "started"][-1] == expected
    assert [t[1] for t in ticks(dbos_url, "all")] == ["started"] * 3


def test_overlap_skip_and_queue(db: FileClock, dbos_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    add(capsys, "skip", "*/5 * * * *")
    add(capsys, "queue", "*/5 * * * *", "--overlap", "queue")
    for minute in (5, 10, 15):
        db.set(T0 + timedelta(minutes=minute, seconds=1))
        fire(dbos_url)
    skip, queue = ticks(dbos_url, "skip"), ticks(dbos_url, "queue")
    assert [t[1] for t in skip] == ["started", "skipped", "skipped"]
    assert skip[1][3] == f"run {skip[0][2]} was still running"
    assert [t[1] for t in queue] == ["started", "waiting", "waiting"]
    views = {v["name"]: v for v in json.loads(lobster(capsys, "schedule", "list", "--json"))}
    assert views["skip"]["lastRun"]["status"] == f"skipped (run {skip[0][2]} was still running)"
    assert views["queue"]["lastRun"]["status"].startswith("waiting (behind run")
    cancel(capsys, queue[0][2])
    fire(dbos_url)
    assert [t[1] for t in ticks(dbos_url, "queue")] == ["started", "started", "waiting"]
    [row] = json.loads(lobster(capsys, "runs", "--json", "--schedule", "queue"))
    assert row["queued"] and row["id"] == ticks(dbos_url, "queue")[1][2] and row["schedule"] == "queue"


def test_dst_changes_in_a_time_zone(db: FileClock, dbos_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    db.set(datetime(2026, 3, 7, 12, tzinfo=UTC))
    lobster(capsys, "schedule", "add", "spring", "--cron", "30 2 * * *", "--timezone", "America/New_York", "flow.lobster")
    db.set(datetime(2026, 3, 8, 6, 59, 59, tzinfo=UTC))  # 01:59:59 EST: the clocks jump to 03:00 next second
    fire(dbos_url)
    assert ticks(dbos_url, "spring") == []
    db.set(datetime(2026, 3, 8, 7, 0, 5, tzinfo=UTC))
    fire(dbos_url)
    assert [t[:2] for t in ticks(dbos_url, "spring")] == [("07:00", "started")]  # 02:30 ran at 03:00 EDT
    db.set(datetime(2026, 10, 31, 12, tzinfo=UTC))
    lobster(capsys, "schedule", "add", "fall", "--cron", "30 1 * * *", "--timezone", "America/New_York", "flow.lobster")
    for moment in (datetime(2026, 11, 1, 5, 30, 5, tzinfo=UTC), datetime(2026, 11, 1, 6, 30, 5, tzinfo=UTC)):
        db.set(moment)  # 01:30 EDT, then 01:30 EST an hour later
        fire(dbos_url)
    assert [t[:2] for t in ticks(dbos_url, "fall")] == [("05:30", "started")]  # once, at the first 01:30


def test_pause_resume_run_now_and_list(db: FileClock, dbos_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    add(capsys, "brief", "30 7 * * 1-5")
    assert lobster(capsys, "schedule", "pause", "brief") == "schedule brief paused\n"
    db.set(T0 + timedelta(hours=2))  # 08:00: the 07:30 tick passed while paused
    fire(dbos_url)
    assert ticks(dbos_url, "brief") == []
    assert lobster(capsys, "schedule", "resume", "brief") == "schedule brief resumed: next tick Tue 2030-01-08 07:30 UTC\n"
    fire(dbos_url)
    assert ticks(dbos_url, "brief") == []  # a tick of the pause is not caught up
    run_id = lobster(capsys, "schedule", "run-now", "brief").strip()
    [(_, state, started, detail)] = ticks(dbos_url, "brief")
    assert (state, started, detail) == ("started", run_id, None)
    [view] = json.loads(lobster(capsys, "schedule", "list", "--json"))
    assert view["nextTick"] == "2030-01-08T07:30:00+00:00"  # run-now leaves the next tick where it was
    assert view["lastRun"] == {"at": "2030-01-07T08:00:00+00:00", "runId": run_id, "status": "queued"}
    table = lobster(capsys, "schedule", "list").splitlines()
    assert table[0].split() == ["NAME", "CRON", "TIME", "ZONE", "NEXT", "TICK", "LAST", "TICK", "RUN", "STATUS", "FILE"]
    assert f"Tue 2030-01-08 07:30 UTC  Mon 2030-01-07 08:00 UTC  {run_id}  queued" in table[1]
    cancel(capsys, run_id)
    [view] = json.loads(lobster(capsys, "schedule", "list", "--json"))
    assert view["lastRun"]["status"] == "finished"  # no worker ran it: DBOS has no result to tell how it ended
    lobster(capsys, "schedule", "remove", "brief")
    assert ticks(dbos_url, "brief") == [] and json.loads(lobster(capsys, "schedule", "list", "--json")) == []
