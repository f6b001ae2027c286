"""Queued runs on DBOS Transact: `lobster run --detach` enqueues, `lobster worker` executes, a dead worker's runs move on.

A detached run is journaled (its `start` event, with the IR) in the Postgres backend before it is
enqueued on the DBOS queue `lobster_runs`; the DBOS workflow `lobster_run` continues it from its
journal with one DBOS step, so a step whose result was recorded never runs again and a step that
started without recording its end is refused (the run waits for `resume --run ID --retry-step`
or `--skip-step`), exactly as with the file journal. Each worker is a DBOS executor with its own
id and a heartbeat row; a worker that sees another's heartbeat older than `LEASE_S` takes its
row (one taker) and puts that executor's pending workflows back on the queue.
"""

from __future__ import annotations

import os
import signal
import socket
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from lobsterlang import __version__
from lobsterlang.interpret.backend.postgres import STARTUP_LOCK, PgStore, connect, pg_text
from lobsterlang.interpret.backend.redact import redacted, scrubbed
from lobsterlang.interpret.backend.workerlog import WorkerLog
from lobsterlang.interpret.errors import UsageError
from lobsterlang.interpret.state import BACKEND_ENV

QUEUE = "lobster_runs"
WORKFLOW = "lobster_run"
APP = "lobster"
HEARTBEAT_S = 1.0
LEASE_S = 5.0
POLL_S = 0.2
CONCURRENCY = 1
"""Runs one worker executes at a time (start more workers for more)."""


def queue_target() -> dict[str, str]:
    """The DBOS queue, workflow, application and version a run is queued with (DBOS gives it to workers of this version)."""
    return {"queue_name": QUEUE, "workflow_name": WORKFLOW, "application_name": APP, "app_version": __version__}


def enqueue(url: str, run_id: str, cwd: str, workflow_id: str | None = None,
            lines: Sequence[str] = ()) -> None:
    """Append events (`lines`, as `journal.event_line` writes them) to run `run_id`'s journal and put the run on the
    queue, in one transaction.

    So a run is never shown `queued` without being on the queue (nor queued without its events).
    `workflow_id` names a continuation after a gate (default: the run id); DBOS queues one id once
    (only the resume that claimed the gate queues its continuation). A worker must have created
    DBOS's tables once.
    """
    import sqlalchemy as sa
    from dbos import DBOSClient

    engine = sa.create_engine("postgresql+psycopg://" + url.split("://", 1)[1], poolclass=sa.NullPool)
    try:
        client = DBOSClient(system_database_engine=engine)
        try:
            with engine.begin() as conn:
                if lines:
                    conn.exec_driver_sql("INSERT INTO lobster.events (run_id, event) VALUES (%s, %s)",
                                         [(run_id, pg_text(line)) for line in lines])
                client.enqueue_in_transaction(conn, {"queue_name": QUEUE, "workflow_name": WORKFLOW,
                                                     "workflow_id": workflow_id or run_id, "application_name": APP,
                                                     "app_version": __version__}, run_id, cwd)
        finally:
            client.destroy()
    except Exception as exc:
        reason = scrubbed(str(exc).splitlines()[0], url) if str(exc) else type(exc).__name__
        raise UsageError(f"Cannot queue the run on {redacted(url)}: {reason} "
                         "(hint: start a worker once first: lobster worker --backend URL)") from None
    finally:
        engine.dispose()


def dbos_ready(store: PgStore) -> bool:
    """Whether a worker ever ran on this database (DBOS creates its tables when the first one starts)."""
    return store.conn.execute("SELECT to_regclass('dbos.workflow_status') IS NOT NULL").fetchone()[0] is True


def final_envelope(store: PgStore, run_id: str) -> dict[str, Any] | None:
    """The envelope the last worker execution of run `run_id` ended with (None: no finished execution)."""
    if not dbos_ready(store):
        return None  # no worker ever ran here, so none finished the run
    from dbos import DBOSClient

    client = DBOSClient(system_database_url=store.url)
    try:  # the continuations after gates (`<run id>:<state key>`) are newer than the first execution (`<run id>`)
        done = (client.list_workflows(workflow_id_prefix=f"{run_id}:", name=WORKFLOW, status="SUCCESS", sort_desc=True, limit=1)
                or client.list_workflows(workflow_ids=[run_id], name=WORKFLOW, status="SUCCESS"))
    finally:
        client.destroy()
    output = done[0].output if done else None
    return dict(output) if isinstance(output, dict) else None


RESULT_PREFIX = "worker_result_"
"""The key (with the DBOS workflow id) under which a worker keeps the envelope an execution of a run ended with."""


def continue_run(url: str, run_id: str, cwd: str, execution: str, stop: threading.Event | None = None) -> dict[str, Any]:
    """Continue run `run_id` from its journal in this process; the envelope as plain data.

    `execution` is the DBOS workflow id this continues. A worker whose heartbeat stopped while it lived (stopped, or
    starved on a busy machine) loses its lease, and another takes the execution over while the first still holds the
    run; the one taking over waits for the holder to let go and ends with the envelope the holder kept under the
    execution's key (the holder's own result can no longer be recorded by DBOS: the execution moved), so the run's
    result is what really happened, not a refusal.
    """
    from lobsterlang.interpret.pipeline.frontend import make_context
    from lobsterlang.interpret.workflow.recover import resume_run

    env = {**os.environ, BACKEND_ENV: url}
    ctx = make_context("tool", env, cwd if os.path.isdir(cwd) else os.getcwd())
    store = ctx.store
    assert isinstance(store, PgStore)  # BACKEND_ENV names the database
    try:
        if _waited_for_holder(store, run_id, stop):
            kept = store.read(RESULT_PREFIX + execution)
            if isinstance(kept, dict):
                return kept
        envelope = dict(resume_run(run_id, None, False, False, ctx))
        store.write(RESULT_PREFIX + execution, envelope)
    finally:
        store.close()
    return envelope


def _waited_for_holder(store: PgStore, run_id: str, stop: threading.Event | None) -> bool:
    """Wait while another process holds run `run_id`; whether one did."""
    waited, pause = False, stop or threading.Event()
    while store.backend.holders([run_id]):
        waited = True
        if pause.wait(POLL_S):
            break
    return waited


def logged_run(log: WorkerLog, run_id: str, cwd: str, run: Callable[[str, str], dict[str, Any]]) -> dict[str, Any]:
    """`run(run_id, cwd)`, with a line in the worker's log when it is taken and when it ends (or fails)."""
    log.took(run_id, cwd)
    try:
        envelope = run(run_id, cwd)
    except Exception as exc:
        log.say(f"run {run_id}: failed: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}")
        raise
    log.finished(run_id, envelope)
    return envelope


def _register(url: str, log: WorkerLog, stop: threading.Event) -> None:
    from dbos import DBOS

    @DBOS.step(name="lobster_continue", retries_allowed=False)
    def lobster_continue(run_id: str, cwd: str) -> dict[str, Any]:
        execution = str(DBOS.workflow_id)
        return logged_run(log, run_id, cwd, lambda r, c: continue_run(url, r, c, execution, stop))

    @DBOS.workflow(name=WORKFLOW)
    def lobster_run(run_id: str, cwd: str) -> dict[str, Any]:
        return lobster_continue(run_id, cwd)


def serve(url: str, stop: threading.Event | None = None, grace_s: int = 30, log: WorkerLog | None = None) -> None:
    """Execute queued runs until SIGTERM/SIGINT (or `stop`); in-flight runs get `grace_s` to finish. `log` says
    what the worker does (default: on stderr)."""
    from dbos import DBOS

    log = log or WorkerLog(sys.stderr)

    conn = connect(url)  # a bad URL is a usage error before DBOS starts; the schema (workers table too) is in place
    stop = stop or _stop_on_signals()
    executor_id = f"{socket.gethostname()}-{os.getpid()}"
    if not _startup_turn(conn, stop):
        conn.close()
        return  # stopped while another worker was starting
    try:  # DBOS creates its tables on a fresh database: one worker at a time
        _register(url, log, stop)
        DBOS(config={"name": APP, "system_database_url": url, "executor_id": executor_id,
                     "application_version": __version__, "log_level": os.environ.get("LOBSTER_WORKER_LOG", "WARNING")})
        DBOS.launch()
        DBOS.register_queue(QUEUE, worker_concurrency=CONCURRENCY, polling_interval_sec=POLL_S)
        from lobsterlang.interpret.backend.scheduler import start_scheduler

        scheduler = start_scheduler(url, queue_target(), stop, log)  # fires the schedules (docs/schedules.md)
        log.started(redacted(url), QUEUE, CONCURRENCY, executor_id)
    finally:
        conn.execute("SELECT pg_advisory_unlock(%s)", (STARTUP_LOCK,))
    try:
        while not stop.wait(HEARTBEAT_S):
            conn.execute("INSERT INTO lobster.workers (executor_id) VALUES (%s) "
                         "ON CONFLICT (executor_id) DO UPDATE SET seen_at = now()", (executor_id,))
            for dead in _take_dead_workers(conn, executor_id):
                _requeue_runs_of(dead)
    finally:
        log.say(f"stopping: running runs have {grace_s} s to finish")
        conn.execute("DELETE FROM lobster.workers WHERE executor_id = %s", (executor_id,))
        conn.close()
        scheduler.join()
        DBOS.destroy(workflow_completion_timeout_sec=grace_s)


def _startup_turn(conn: Any, stop: threading.Event) -> bool:
    """Take the database's start-up lock (a session lock: released if this process dies); False when stopped first.

    Polled, never waited for in one statement: DBOS builds indexes `CONCURRENTLY` while it starts,
    which waits for every open statement, so a worker blocked inside `pg_advisory_lock` would
    deadlock with the one starting.
    """
    while not conn.execute("SELECT pg_try_advisory_lock(%s)", (STARTUP_LOCK,)).fetchone()[0]:
        if stop.wait(POLL_S):
            return False
    return True


def _take_dead_workers(conn: Any, me: str) -> list[str]:
    """Workers whose heartbeat stopped, each taken (deleted) by exactly one live worker."""
    rows = conn.execute("DELETE FROM lobster.workers WHERE executor_id <> %s AND seen_at < now() - %s * interval '1 second' "
                        "RETURNING executor_id", (me, LEASE_S)).fetchall()
    return [str(r[0]) for r in rows]


def _requeue_runs_of(executor_id: str) -> None:
    """Put a dead worker's unfinished runs back on the queue, for any live worker to take.

    Public DBOS calls only: list the executor's PENDING `lobster_run` workflows of this version,
    then `resume_workflows` onto the queue (a workflow that finished meanwhile is left alone).
    Only the one worker that took the dead one's heartbeat row calls this for it.
    """
    from dbos import DBOS

    pending = DBOS.list_workflows(status="PENDING", executor_id=executor_id, name=WORKFLOW, app_version=__version__,
                                  load_input=False, load_output=False)
    if pending:
        DBOS.resume_workflows([w.workflow_id for w in pending], queue_name=QUEUE)


def _stop_on_signals() -> threading.Event:
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    return stop


def backend_url(given: str | None, env: Mapping[str, str]) -> str:
    """The Postgres URL from `--backend` or `LOBSTER_BACKEND`; a usage error otherwise."""
    url = (given or env.get(BACKEND_ENV, "")).strip()
    if not url.startswith(("postgresql://", "postgres://")):
        raise UsageError("This needs a Postgres backend: --backend postgresql://USER@HOST/DB or LOBSTER_BACKEND")
    return url
