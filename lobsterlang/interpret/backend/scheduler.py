"""The workers fire the schedules stored in Postgres: each tick starts one run, however many workers there are.

Every worker polls once a second for schedules whose next tick is due (or that have a tick queued
behind a running run) by the database's clock. A due schedule is claimed in one transaction:
its row is locked (`FOR UPDATE SKIP LOCKED`: another worker passes it over), its due ticks are
worked out from its cursor (the catch-up policy), each tick is recorded in `lobster.ticks` (key:
schedule, scheduled time) and a tick that starts a run writes the run's `start` event and its
DBOS queue entry, then the cursor moves on; all of it commits together or not at all. So a
worker killed in the middle of a claim leaves nothing behind (Postgres rolls the transaction
back when its connection ends) and the next worker claims the same ticks; a tick is never
recorded twice (the key), nor started twice (the cursor). The run itself is then an ordinary
detached run: DBOS gives it to a worker, and moves it to another if that worker dies.

Why not DBOS's own scheduler (`@DBOS.scheduled`, `DBOS.create_schedule`): it fires on each
worker's own clock in a thread per schedule, with no overlap policy and no choice between
catching up the last missed tick and none, and it cannot be tested with a fake clock; the tick
table keeps the claim, the run's journal and its queue entry in the same transaction, as
`lobster run --detach` does.
"""

from __future__ import annotations

import json
import os
import socket
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from lobsterlang.interpret.backend.workerlog import WorkerLog
from lobsterlang.interpret.schedule import postgres as tables
from lobsterlang.interpret.schedule.model import Schedule
from lobsterlang.interpret.schedule.timing import Due, due_ticks, newest_tick, next_tick

POLL_S = 1.0
ACTIVE = ["ENQUEUED", "PENDING"]
"""DBOS states of a run that holds its schedule's overlap policy: on the queue, or on a worker."""
CLAIM = ("SELECT name, cron, timezone, file_path, args, overlap, catch_up, cwd, paused, ir, file_sha256, cursor_at, next_at "
         "FROM lobster.schedules WHERE name = %s FOR UPDATE SKIP LOCKED")
DUE = ("SELECT name FROM lobster.schedules WHERE NOT paused AND next_at <= %s "
       "UNION SELECT DISTINCT t.schedule FROM lobster.ticks t JOIN lobster.schedules s ON s.name = t.schedule "
       "WHERE t.state = 'waiting' AND NOT s.paused")


@dataclass
class Claimed:
    """A schedule row locked for this transaction, and what the claim did (lines for the worker's log)."""

    schedule: Schedule
    ir: str
    digest: str | None
    cursor: datetime
    next_at: datetime | None
    active: list[str]
    lines: list[str] = field(default_factory=list)


class Scheduler:
    """Fires the due ticks of one database's schedules, by the database's clock; says what it did on `log`."""

    def __init__(self, url: str, queue: Mapping[str, str], log: WorkerLog | None) -> None:
        import sqlalchemy as sa
        from dbos import DBOSClient

        self.url = url
        self.queue = queue
        self.log = log
        self.engine = sa.create_engine("postgresql+psycopg://" + url.split("://", 1)[1], pool_size=1,
                                       connect_args={"application_name": f"lobster {socket.gethostname()}:{os.getpid()}"[:63]})
        self.client = DBOSClient(system_database_engine=self.engine)

    def close(self) -> None:
        self.client.destroy()
        self.engine.dispose()

    def serve(self, stop: threading.Event) -> None:
        """Fire due ticks every POLL_S until `stop`; a failed poll is logged and the next one tries again."""
        while not stop.wait(POLL_S):
            try:
                self.fire_due()
            except Exception as exc:  # the database went away for a moment: the worker keeps serving runs
                self.say(f"schedules: poll failed, retrying: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}")

    def fire_due(self) -> None:
        """Claim every schedule that has a tick due (or queued) now."""
        with self.engine.connect() as conn:
            now = tables.database_now(_Driver(conn))
            names = [str(r[0]) for r in conn.exec_driver_sql(DUE, (now,)).fetchall()]
        for name in names:
            self.claim(name, now)

    def claim(self, name: str, now: datetime) -> None:
        """Handle schedule `name`'s queued and due ticks in one transaction (nothing when another worker holds it)."""
        with self.engine.begin() as conn:
            claimed = self.lock(conn, name)
            if claimed is None or claimed.schedule.paused:
                return
            self._start_waiting(conn, claimed)
            if claimed.next_at is not None and claimed.next_at <= now:
                self._fire(conn, claimed, now)
            _prune(conn, name)
        for line in claimed.lines:  # said once committed: a claim rolled back said nothing
            self.say(f"schedule {name}: {line}")

    def lock(self, conn: Any, name: str, wait: bool = False) -> Claimed | None:
        """Lock schedule `name`'s row for this transaction (None: no such schedule, or another worker holds it and
        not `wait`)."""
        row = conn.exec_driver_sql(CLAIM if not wait else CLAIM.replace(" SKIP LOCKED", ""), (name,)).fetchone()
        if row is None:
            return None
        schedule = tables.schedule_of(row[:9])
        return Claimed(schedule, str(row[9]), row[10], row[11], row[12], self._active(conn, name))

    def _active(self, conn: Any, name: str) -> list[str]:
        """The schedule's runs on the queue or on a worker now (a run waiting at a gate or interrupted holds no worker)."""
        rows = conn.exec_driver_sql(
            "SELECT t.run_id FROM lobster.ticks t WHERE t.schedule = %s AND t.state = 'started' AND t.run_id IS NOT NULL "
            "AND EXISTS (SELECT 1 FROM lobster.events e WHERE e.run_id = t.run_id)", (name,)).fetchall()
        unfinished = [str(r[0]) for r in rows]
        if not unfinished:
            return []
        busy = self.client.list_workflows(workflow_id_prefix=unfinished, status=ACTIVE, load_input=False, load_output=False)
        return sorted({w.workflow_id.split(":", 1)[0] for w in busy})

    def _start_waiting(self, conn: Any, claimed: Claimed) -> None:
        """Start the oldest tick queued behind a run (overlap `queue`) once no run of the schedule is active."""
        if claimed.active:
            return
        row = conn.exec_driver_sql("SELECT scheduled_at, manual FROM lobster.ticks WHERE schedule = %s AND state = 'waiting' "
                                   "ORDER BY scheduled_at LIMIT 1", (claimed.schedule.name,)).fetchone()
        if row is None:
            return
        run_id = self.start_run(conn, claimed, row[0])
        conn.exec_driver_sql("UPDATE lobster.ticks SET state = 'started', run_id = %s, detail = NULL, recorded_at = clock_timestamp() "
                             "WHERE schedule = %s AND scheduled_at = %s AND manual = %s", (run_id, claimed.schedule.name, *row))
        claimed.lines.append(f"tick {_shown(row[0], claimed.schedule)} (queued) started run {run_id}")

    def _fire(self, conn: Any, claimed: Claimed, now: datetime) -> None:
        schedule = claimed.schedule
        due = due_ticks(schedule.parsed, schedule.zone, claimed.cursor, now, schedule.catch_up)
        if due is not None:
            if due.missed:
                self._missed(conn, claimed, due)
            for tick in due.start:
                self.tick(conn, claimed, tick)
        cursor = due.cursor if due is not None else claimed.cursor
        conn.exec_driver_sql("UPDATE lobster.schedules SET cursor_at = %s, next_at = %s WHERE name = %s",
                             (cursor, next_tick(schedule.parsed, schedule.zone, max(cursor, now)), schedule.name))

    def tick(self, conn: Any, claimed: Claimed, tick: datetime, manual: bool = False) -> str | None:
        """One tick: started (its run id), or (a run of the schedule still active) skipped or queued behind it (None)."""
        name, shown = claimed.schedule.name, _shown(tick, claimed.schedule) + (" (run-now)" if manual else "")
        if not claimed.active:
            run_id = self.start_run(conn, claimed, tick)
            _record(conn, name, tick, "started", run_id, manual=manual)
            claimed.active.append(run_id)
            claimed.lines.append(f"tick {shown} started run {run_id}")
            return run_id
        if claimed.schedule.overlap == "queue":
            _record(conn, name, tick, "waiting", None, f"behind run {claimed.active[0]}", manual)
            claimed.lines.append(f"tick {shown} queued behind run {claimed.active[0]} (overlap queue)")
        else:
            _record(conn, name, tick, "skipped", None, f"run {claimed.active[0]} was still running", manual)
            claimed.lines.append(f"tick {shown} skipped: run {claimed.active[0]} is still running (overlap skip)")
        return None

    def _missed(self, conn: Any, claimed: Claimed, due: Due) -> None:
        schedule = claimed.schedule
        before = due.start[0] - timedelta(microseconds=1) if due.start else due.cursor
        newest = newest_tick(schedule.parsed, schedule.zone, before) or due.cursor
        note = f"{due.missed_text} tick(s) since {_shown(claimed.cursor, schedule)} missed while no worker ran"
        _record(conn, schedule.name, newest, "missed", None, f"{note}; catch-up {schedule.catch_up}")
        claimed.lines.append(f"{note} (catch-up {schedule.catch_up})")

    def start_run(self, conn: Any, claimed: Claimed, tick: datetime) -> str:
        """Journal a run of the schedule (its `start` event, tagged with the schedule) and queue it, in `conn`'s transaction."""
        return start_scheduled_run(conn, self.client, self.queue, claimed.schedule, claimed.ir, claimed.digest, tick)

    def say(self, text: str) -> None:
        if self.log is not None:
            self.log.say(text)


def start_scheduled_run(conn: Any, client: Any, queue: Mapping[str, str], schedule: Schedule, ir_text: str,
                        digest: str | None, tick: datetime) -> str:
    """Write a new run's `start` event (the stored IR, the schedule's args) and its queue entry in `conn`'s transaction."""
    from lobsterlang.interpret.workflow.context import resolve_args
    from lobsterlang.interpret.workflow.journal import event_line, new_run_id, start_event
    from lobsterlang.ir_codec import from_json

    run_id = new_run_id()
    workflow = from_json(json.loads(ir_text))
    event = start_event(run_id, schedule.file, resolve_args(workflow, schedule.args), workflow, digest, False, detached=True)
    event.update(schedule=schedule.name, scheduledAt=tick.isoformat())
    conn.exec_driver_sql("INSERT INTO lobster.events (run_id, event) VALUES (%s, %s)", (run_id, event_line(event)))
    client.enqueue_in_transaction(conn, {**queue, "workflow_id": run_id}, run_id, schedule.cwd)
    return run_id


def _record(conn: Any, name: str, tick: datetime, state: str, run_id: str | None, detail: str | None = None,
            manual: bool = False) -> None:
    conn.exec_driver_sql("INSERT INTO lobster.ticks (schedule, scheduled_at, manual, state, run_id, detail) "
                         "VALUES (%s, %s, %s, %s, %s, %s)", (name, tick, manual, state, run_id, detail))


def _prune(conn: Any, name: str) -> None:
    """Keep the newest KEEP_TICKS tick records of the schedule (and every queued one)."""
    conn.exec_driver_sql(
        "DELETE FROM lobster.ticks WHERE schedule = %s AND state <> 'waiting' AND scheduled_at < ("
        "SELECT scheduled_at FROM lobster.ticks WHERE schedule = %s ORDER BY scheduled_at DESC OFFSET %s LIMIT 1)",
        (name, name, tables.KEEP_TICKS))


def _shown(moment: datetime, schedule: Schedule) -> str:
    return moment.astimezone(schedule.zone).strftime("%Y-%m-%d %H:%M %Z")


class _Driver:
    """A SQLAlchemy connection seen as the psycopg connection `now(conn)` expects (`execute(sql).fetchone()`)."""

    def __init__(self, conn: Any) -> None:
        self._conn = conn

    def execute(self, sql: str, params: tuple[Any, ...] = ()) -> Any:
        return self._conn.exec_driver_sql(sql, params)


def start_scheduler(url: str, queue: Mapping[str, str], stop: threading.Event, log: WorkerLog | None) -> threading.Thread:
    """A thread that fires this database's schedules until `stop` (the schedule tables are created first); `queue`
    names the DBOS queue, workflow, application and version a run is queued with (the worker's)."""
    from lobsterlang.interpret.backend.postgres import connect

    conn = connect(url)
    try:
        tables.ensure_tables(conn)
    finally:
        conn.close()
    scheduler = Scheduler(url, queue, log)

    def serve() -> None:
        try:
            scheduler.serve(stop)
        finally:
            scheduler.close()

    thread = threading.Thread(target=serve, name="lobster-scheduler", daemon=True)
    thread.start()
    return thread


def run_now(url: str, queue: Mapping[str, str], name: str) -> tuple[str, str | None]:
    """Fire one tick of schedule `name` now, paused or not, by its overlap policy; what it did, and the run id it started.

    The tick is recorded as manual: the schedule's next tick stays where it was.
    """
    scheduler = Scheduler(url, queue, None)
    try:
        with scheduler.engine.begin() as conn:
            claimed = scheduler.lock(conn, name, wait=True)
            if claimed is None:
                raise LookupError(name)
            run_id = scheduler.tick(conn, claimed, tables.database_now(_Driver(conn)), manual=True)
    finally:
        scheduler.close()
    return claimed.lines[-1], run_id
