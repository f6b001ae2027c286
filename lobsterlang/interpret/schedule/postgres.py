"""Schedules in the Postgres backend, fired by the workers: `lobster.schedules` and `lobster.ticks`.

A schedule row carries what a tick needs to start a run on any worker without the file: the
workflow's IR and digest as checked by `schedule add`, its args and working directory. Its
`cursor_at` is the newest tick already handled and `next_at` the next one, so a worker finds due
schedules with one indexed query. A tick row (key: schedule, scheduled time, manual) records what
the tick did: `started` (with its run id), `skipped`, `waiting` (queued behind a running run) or
`missed`. Times come from the database's clock, so workers with skewed clocks agree.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from lobsterlang.interpret.backend.postgres import SCHEMA_LOCK, connect
from lobsterlang.interpret.errors import UsageError
from lobsterlang.interpret.schedule.files import unknown_schedule
from lobsterlang.interpret.schedule.model import LastRun, Schedule, ScheduleView
from lobsterlang.interpret.schedule.timing import next_tick

TABLES = """
CREATE TABLE IF NOT EXISTS lobster.schedules (
    name text PRIMARY KEY, cron text NOT NULL, timezone text NOT NULL, file_path text NOT NULL, args text NOT NULL,
    overlap text NOT NULL, catch_up text NOT NULL, cwd text NOT NULL, ir text NOT NULL, file_sha256 text,
    paused boolean NOT NULL DEFAULT false, cursor_at timestamptz NOT NULL, next_at timestamptz,
    created_at timestamptz NOT NULL DEFAULT now());
CREATE INDEX IF NOT EXISTS schedules_due ON lobster.schedules (next_at) WHERE NOT paused;
CREATE TABLE IF NOT EXISTS lobster.ticks (
    schedule text NOT NULL REFERENCES lobster.schedules (name) ON DELETE CASCADE,
    scheduled_at timestamptz NOT NULL, manual boolean NOT NULL DEFAULT false, state text NOT NULL,
    run_id text, detail text, recorded_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (schedule, scheduled_at, manual));
CREATE INDEX IF NOT EXISTS ticks_waiting ON lobster.ticks (schedule, scheduled_at) WHERE state = 'waiting';
"""
COLUMNS = "name, cron, timezone, file_path, args, overlap, catch_up, cwd, paused"
KEEP_TICKS = 200
"""Tick rows kept per schedule (the newest); older ones are deleted when the schedule next fires."""


def ensure_tables(conn: Any) -> None:
    """Create the schedule tables once (idempotent; under the schema lock, so starting workers never race)."""
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK,))
        conn.execute(TABLES)


def database_now(conn: Any) -> datetime:
    """The database's clock: every worker and every `schedule` command read the same time."""
    return conn.execute("SELECT clock_timestamp()").fetchone()[0]  # type: ignore[no-any-return]


def editor_rows(url: str, timeout_s: float) -> list[tuple[Any, ...]]:
    """(name, cron, time zone, file, paused, next tick) of every schedule, for an editor: read only (no table is
    created), and given up after `timeout_s` (connecting, then the query)."""
    import psycopg

    with psycopg.connect(url, connect_timeout=max(1, round(timeout_s)), application_name="lobster lsp",
                         options=f"-c statement_timeout={int(timeout_s * 1000)}") as conn:
        try:
            rows = conn.execute("SELECT name, cron, timezone, file_path, paused, next_at FROM lobster.schedules "
                                "ORDER BY name").fetchall()
        except psycopg.errors.UndefinedTable:
            return []
    return [tuple(row) for row in rows]


def schedule_of(row: Any) -> Schedule:
    name, cron, zone, path, args, overlap, catch_up, cwd, paused = row
    return Schedule(name, cron, zone, path, json.loads(args), overlap, catch_up, cwd, bool(paused))


class PgSchedules:
    """The schedules of one database (`LOBSTER_BACKEND`)."""

    where = "the database"
    workers = True
    """Whether workers fire these schedules (yes: every `lobster worker` of the database)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.conn = connect(url)
        ensure_tables(self.conn)

    def close(self) -> None:
        self.conn.close()

    def now(self) -> datetime:
        return database_now(self.conn)

    def add(self, schedule: Schedule, replace: bool, workflow: Any = None, digest: str | None = None) -> None:
        """Store `schedule` with its IR; from now on (a replaced one too) its ticks fire, none from before."""
        from lobsterlang.ir_codec import to_json

        now = self.now()
        upsert = ("ON CONFLICT (name) DO UPDATE SET cron = EXCLUDED.cron, timezone = EXCLUDED.timezone, "
                  "file_path = EXCLUDED.file_path, args = EXCLUDED.args, overlap = EXCLUDED.overlap, "
                  "catch_up = EXCLUDED.catch_up, cwd = EXCLUDED.cwd, ir = EXCLUDED.ir, file_sha256 = EXCLUDED.file_sha256, "
                  "cursor_at = EXCLUDED.cursor_at, next_at = CASE WHEN lobster.schedules.paused THEN NULL ELSE EXCLUDED.next_at END"
                  if replace else "ON CONFLICT (name) DO NOTHING")
        inserted = self.conn.execute(
            f"INSERT INTO lobster.schedules ({COLUMNS}, ir, file_sha256, cursor_at, next_at) "
            f"VALUES (%s, %s, %s, %s, %s, %s, %s, %s, false, %s, %s, %s, %s) {upsert}",
            (schedule.name, schedule.cron, schedule.timezone, schedule.file, json.dumps(schedule.args), schedule.overlap,
             schedule.catch_up, schedule.cwd, json.dumps(to_json(workflow)), digest, now,
             next_tick(schedule.parsed, schedule.zone, now))).rowcount
        if not inserted:
            raise UsageError(f"schedule {schedule.name} exists (hint: --replace to change it, or pick another name)")

    def get(self, name: str) -> Schedule | None:
        row = self.conn.execute(f"SELECT {COLUMNS} FROM lobster.schedules WHERE name = %s", (name,)).fetchone()
        return None if row is None else schedule_of(row)

    def require(self, name: str) -> Schedule:
        schedule = self.get(name)
        if schedule is None:
            raise unknown_schedule(name, [s.name for s in self.all()], self.where)
        return schedule

    def all(self) -> list[Schedule]:
        rows = self.conn.execute(f"SELECT {COLUMNS} FROM lobster.schedules ORDER BY name").fetchall()
        return [schedule_of(row) for row in rows]

    def remove(self, name: str) -> Schedule:
        """Delete the schedule and its tick records (queued ticks too); runs it started keep running."""
        schedule = self.require(name)
        self.conn.execute("DELETE FROM lobster.schedules WHERE name = %s", (name,))
        return schedule

    def set_paused(self, name: str, paused: bool) -> Schedule:
        """Pause (no tick fires, queued ones wait) or resume (from now: ticks of the pause do not catch up)."""
        schedule = self.require(name)
        if paused:
            self.conn.execute("UPDATE lobster.schedules SET paused = true, next_at = NULL WHERE name = %s", (name,))
        else:
            now = self.now()
            self.conn.execute("UPDATE lobster.schedules SET paused = false, cursor_at = %s, next_at = %s WHERE name = %s",
                              (now, next_tick(schedule.parsed, schedule.zone, now), name))
        return schedule.paused_as(paused)

    def views(self, now: datetime | None = None) -> list[ScheduleView]:
        """Every schedule with its next tick and what its last tick did."""
        rows = self.conn.execute(f"SELECT {COLUMNS}, next_at FROM lobster.schedules ORDER BY name").fetchall()
        last = _last_ticks(self.conn)
        statuses = run_statuses(self.conn, self.url, [t[2] for t in last.values() if t[2]])
        views = []
        for row in rows:
            schedule = schedule_of(row[:-1])
            tick = last.get(schedule.name)
            views.append(ScheduleView(schedule, row[-1], None if tick is None else _last_run(tick, statuses)))
        return views


def _last_ticks(conn: Any) -> dict[str, tuple[datetime, str, str | None, str | None]]:
    """Each schedule's newest tick record: (scheduled time, state, run id, detail)."""
    rows = conn.execute("SELECT DISTINCT ON (schedule) schedule, scheduled_at, state, run_id, detail FROM lobster.ticks "
                        "ORDER BY schedule, recorded_at DESC").fetchall()
    return {str(r[0]): (r[1], str(r[2]), r[3], r[4]) for r in rows}


def _last_run(tick: tuple[datetime, str, str | None, str | None], statuses: dict[str, str]) -> LastRun:
    at, state, run_id, detail = tick
    if state == "started" and run_id:
        return LastRun(at, run_id, statuses.get(run_id, "finished"))
    return LastRun(at, run_id, f"{state} ({detail})" if detail else state)


def run_statuses(conn: Any, url: str, run_ids: list[str]) -> dict[str, str]:
    """What each run is doing or how it ended: from its journal while unfinished, else from its last worker execution."""
    from lobsterlang.interpret.backend.postgres import PgStore

    store = PgStore(url)
    try:
        backend = store.backend
        holders = backend.holders(run_ids)
        statuses = {}
        for run_id in run_ids:
            log = backend.read_run(run_id)
            if log is not None:
                statuses[run_id] = _unfinished_status(log, run_id in holders)
    finally:
        store.close()
    ended = [r for r in run_ids if r not in statuses]
    statuses.update(_ended(conn, url, ended))
    return statuses


def _unfinished_status(log: Any, held: bool) -> str:
    gate = (log.halted or {}).get("step")
    if gate:
        return f"waiting at {gate}"
    if held:
        return "running"
    if log.queued:
        return "queued"
    if log.uncertain:
        return f"interrupted in {log.uncertain[1]}"
    return "interrupted"


def _ended(conn: Any, url: str, run_ids: list[str]) -> dict[str, str]:
    """How finished runs ended, from the output of each run's newest finished DBOS execution."""
    if not run_ids or conn.execute("SELECT to_regclass('dbos.workflow_status') IS NULL").fetchone()[0]:
        return {}
    from dbos import DBOSClient

    client = DBOSClient(system_database_url=url)
    try:
        done = client.list_workflows(workflow_id_prefix=run_ids, status="SUCCESS", sort_desc=True)
    finally:
        client.destroy()
    ended: dict[str, str] = {}
    for workflow in done:  # newest first: the first seen of each run is its last execution
        run_id = workflow.workflow_id.split(":", 1)[0]
        if run_id not in ended:
            ended[run_id] = _outcome(workflow.output)
    return ended


def _outcome(envelope: Any) -> str:
    if not isinstance(envelope, dict):
        return "finished"
    if not envelope.get("ok"):
        error = envelope.get("error")
        message = error.get("message") if isinstance(error, dict) else None
        return f"failed: {message}" if message else "failed"
    status = envelope.get("status")
    return "ok" if status == "ok" else ("cancelled" if status in ("needs_approval", "needs_input", "cancelled") else str(status))
