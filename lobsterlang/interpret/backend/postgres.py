"""The Postgres backend: run journals, gate state, approval ids and the signing key in one shared database.

Every machine that points at the same database (`--backend postgresql://…` or `LOBSTER_BACKEND`)
sees the same runs: a run halted on one machine resumes on another with the same signed token.
A claim moves the state row into `claims` in one `DELETE … RETURNING`, so of N concurrent resumes
of one gate exactly one gets it. Values are stored as the JSON text the file backend writes (never
re-ordered), so seals and signatures verify the same way. Needs the `dbos` extra (psycopg).
"""

from __future__ import annotations

import json
import os
import re
import socket
from typing import Any

from lobsterlang.digits import whole_number
from lobsterlang.interpret.backend.redact import password_problem, redacted, scrubbed
from lobsterlang.interpret.errors import ApprovalNotFound, StateNotFound, UsageError
from lobsterlang.interpret.state import Claim, _process_alive, approval_id_of, now_iso, random_hex
from lobsterlang.interpret.statefiles import CorruptState
from lobsterlang.interpret.workflow.errors import WorkflowUsageError
from lobsterlang.interpret.workflow.journal import EventJournal
from lobsterlang.interpret.workflow.runlog import RunLog, replay
from lobsterlang.interpret.workflow.stores import BackendStore, Holder

SCHEMA_LOCK = 0x10B5_7E12
"""Held (per transaction) while the schema is created: two processes on a fresh database never create a table twice."""
STARTUP_LOCK = 0x10B5_7E13
"""Held by a worker while it starts (DBOS creates its own tables then): workers started together start one by one."""
RUN_LOCK = 0x10B5
SCHEMA = """
CREATE SCHEMA IF NOT EXISTS lobster;
CREATE TABLE IF NOT EXISTS lobster.events (
    seq bigserial PRIMARY KEY, run_id text NOT NULL, event text NOT NULL);
CREATE INDEX IF NOT EXISTS events_by_run ON lobster.events (run_id, seq);
CREATE TABLE IF NOT EXISTS lobster.state (key text PRIMARY KEY, value text NOT NULL);
CREATE TABLE IF NOT EXISTS lobster.claims (
    id text PRIMARY KEY, key text NOT NULL, value text NOT NULL, owner text NOT NULL,
    claimed_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE IF NOT EXISTS lobster.approvals (
    id text PRIMARY KEY, state_key text NOT NULL, token text, created_at text NOT NULL);
CREATE TABLE IF NOT EXISTS lobster.signing_key (one int PRIMARY KEY CHECK (one = 1), key text NOT NULL);
CREATE TABLE IF NOT EXISTS lobster.workers (executor_id text PRIMARY KEY, seen_at timestamptz NOT NULL DEFAULT now());
"""


HOLDERS = """
SELECT r.run_id, a.application_name FROM unnest(%s::text[]) AS r(run_id)
JOIN pg_locks l ON l.locktype = 'advisory' AND l.granted AND l.objsubid = 2 AND l.classid = %s::bigint::oid
    AND l.objid = (hashtext(r.run_id)::bigint & 4294967295)::oid
JOIN pg_stat_activity a ON a.pid = l.pid
"""
"""The runs whose advisory lock (`pg_try_advisory_lock(RUN_LOCK, hashtext(run id))`) a live session holds."""


def connect(url: str) -> Any:
    """An autocommit connection with the schema in place (created once, under an advisory lock)."""
    try:
        import psycopg
    except ImportError:
        from lobsterlang.extras import install_line

        raise UsageError(f"The Postgres backend needs the dbos extra: {install_line('dbos')}") from None
    problem = password_problem(url)
    if problem is not None:
        raise UsageError(f"Cannot connect to the backend: {problem}")
    try:
        conn = psycopg.connect(url, autocommit=True, connect_timeout=10, application_name=f"lobster {_owner()}"[:63])
    except (psycopg.Error, ValueError) as exc:
        raise UsageError(f"Cannot connect to the backend {redacted(url)}: {scrubbed(str(exc).strip(), url)}") from None
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK,))
        conn.execute(SCHEMA)
    return conn


def _owner() -> str:
    """`host:pid` of this process: each connection's `application_name` says it, so `runs` shows who holds a run."""
    return f"{socket.gethostname()}:{os.getpid()}"


_SURROGATE = re.compile("[\ud800-\udfff]")


def pg_text(json_text: str) -> str:
    """JSON text Postgres can store (UTF-8 only): a lone surrogate, as a step's JSON output may hold, is escaped
    (`\\udcff`), which reads back as the same string."""
    if json_text.isascii() or not _SURROGATE.search(json_text):
        return json_text
    return _SURROGATE.sub(lambda match: f"\\u{ord(match.group()):04x}", json_text)


def _loads(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError as exc:
        raise CorruptState(f"stored value is not JSON: {exc}") from None


class PgClaim(Claim):
    """A state row moved to `lobster.claims`: release deletes it, put_back returns it (never over a newer one)."""

    def __init__(self, store: PgStore, claim_id: str, key: str, value: Any, problem: str | None) -> None:
        super().__init__(claim_id, value, key, problem)
        self.store = store

    def release(self) -> None:
        self.store.conn.execute("DELETE FROM lobster.claims WHERE id = %s", (self.path,))

    def put_back(self) -> None:
        with self.store.conn.transaction():
            row = self.store.conn.execute("DELETE FROM lobster.claims WHERE id = %s RETURNING key, value",
                                          (self.path,)).fetchone()
            if row is not None:
                self.store.conn.execute("INSERT INTO lobster.state (key, value) VALUES (%s, %s) ON CONFLICT DO NOTHING",
                                        row)


class PgStore(BackendStore):
    """Gate state in Postgres; `root` names the database (password hidden) in messages."""

    def __init__(self, url: str) -> None:
        super().__init__(redacted(url))
        self.url = url
        self._conn: Any = None

    @property
    def conn(self) -> Any:
        """The connection, opened on first use (a command that never touches state never connects)."""
        if self._conn is None:
            self._conn = connect(self.url)
        return self._conn

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    @property
    def backend(self) -> PgBackend:
        return PgBackend(self)

    def read(self, key: str, default: Any = None) -> Any:
        row = self.conn.execute("SELECT value FROM lobster.state WHERE key = %s", (key,)).fetchone()
        return default if row is None else _loads(row[0])

    def write(self, key: str, value: Any) -> None:
        text = pg_text(json.dumps(value, indent=2, ensure_ascii=False) + "\n")
        self.conn.execute("INSERT INTO lobster.state (key, value) VALUES (%s, %s) "
                          "ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value", (key, text))

    def delete(self, key: str) -> bool:
        return bool(self.conn.execute("DELETE FROM lobster.state WHERE key = %s", (key,)).rowcount)

    def ensure_dir(self) -> None:
        """Nothing to create: the schema exists once connected."""

    def claim(self, key: str, missing_message: str = "Pipeline resume state not found") -> Claim:
        claim_id = f"{key}.claimed-{random_hex(8)}"
        with self.conn.transaction():
            row = self.conn.execute("DELETE FROM lobster.state WHERE key = %s RETURNING value", (key,)).fetchone()
            if row is None:
                raise StateNotFound(missing_message)
            self.conn.execute("INSERT INTO lobster.claims (id, key, value, owner) VALUES (%s, %s, %s, %s)",
                              (claim_id, key, row[0], _owner()))
        try:
            return PgClaim(self, claim_id, key, _loads(row[0]), None)
        except CorruptState as exc:
            return PgClaim(self, claim_id, key, None, str(exc))

    def recover_abandoned_claim(self, key: str) -> bool:
        """Put back a claim of `key` whose owner on this host has died (another host's claims are left alone)."""
        host = socket.gethostname()
        rows = self.conn.execute("SELECT id, owner FROM lobster.claims WHERE key = %s", (key,)).fetchall()
        for claim_id, owner in rows:
            name, _, pid = str(owner).rpartition(":")
            number = whole_number(pid)
            if name == host and number is not None and not _process_alive(number):
                PgClaim(self, claim_id, key, None, None).put_back()
                return self.read(key) is not None
        return False

    def secret_key(self) -> bytes:
        """The database's signing key, created once (every machine of this database shares it)."""
        self.conn.execute("INSERT INTO lobster.signing_key (one, key) VALUES (1, %s) ON CONFLICT DO NOTHING",
                          (random_hex(32),))
        row = self.conn.execute("SELECT key FROM lobster.signing_key WHERE one = 1").fetchone()
        try:
            key = bytes.fromhex(str(row[0]))
        except (TypeError, ValueError):
            key = b""
        if len(key) != 32:
            raise CorruptState("lobster.signing_key is not 64 hex characters")
        return key

    def publish_approval_id(self, approval_id: str, state_key: str, token: str) -> bool:
        return bool(self.conn.execute(
            "INSERT INTO lobster.approvals (id, state_key, token, created_at) VALUES (%s, %s, %s, %s) "
            "ON CONFLICT DO NOTHING", (approval_id, state_key, token, now_iso())).rowcount)

    def approval_index(self, approval_id: str) -> tuple[str, str | None]:
        clean = approval_id_of(approval_id)
        row = self.conn.execute("SELECT state_key, token FROM lobster.approvals WHERE id = %s", (clean,)).fetchone()
        if row is None:
            raise ApprovalNotFound(approval_id)
        return str(row[0]), row[1]

    def delete_approval_ids(self, state_key: str) -> None:
        self.conn.execute("DELETE FROM lobster.approvals WHERE state_key = %s", (state_key,))


class PgJournal(EventJournal):
    """Appends a run's events to `lobster.events`, each batch in one committed transaction."""

    def __init__(self, store: PgStore, run_id: str) -> None:
        super().__init__(run_id)
        self.store = store
        self.held = False

    def flush(self) -> None:
        with self.lock:
            if not self.pending:
                return
            if not self.held:
                self.store.backend.hold(self.run_id)
                self.held = True
            rows = [(self.run_id, pg_text(line)) for line in self.pending]
            self.pending = []
            with self.store.conn.cursor() as cur, self.store.conn.transaction():
                cur.executemany("INSERT INTO lobster.events (run_id, event) VALUES (%s, %s)", rows)
            self.written = True

    def close(self) -> None:
        """Write what is queued, when the run has a journal (an interrupted run keeps its completed steps)."""
        if self.written or self.store.backend.has_run(self.run_id):
            self.flush()

    def finish(self) -> None:
        self.over = True
        self.pending = []
        self.store.conn.execute("DELETE FROM lobster.events WHERE run_id = %s", (self.run_id,))


class PgBackend:
    """Runs and gate state in one Postgres database."""

    def __init__(self, store: PgStore) -> None:
        self._store = store

    @property
    def store(self) -> PgStore:
        return self._store

    def journal(self, run_id: str) -> PgJournal:
        return PgJournal(self._store, run_id)

    def has_run(self, run_id: str) -> bool:
        return self._store.conn.execute("SELECT 1 FROM lobster.events WHERE run_id = %s LIMIT 1",
                                        (run_id,)).fetchone() is not None

    def hold(self, run_id: str) -> None:
        """A session advisory lock on the run: released when this connection closes (or its process dies)."""
        row = self._store.conn.execute("SELECT pg_try_advisory_lock(%s, hashtext(%s))", (RUN_LOCK, run_id)).fetchone()
        if not row[0]:
            raise WorkflowUsageError(f"Run {run_id} is being run by another process (a worker or a resume); try again later")

    def read_run(self, run_id: str) -> RunLog | None:
        rows = self._store.conn.execute("SELECT event FROM lobster.events WHERE run_id = %s ORDER BY seq",
                                        (run_id,)).fetchall()
        return replay(run_id, [_loads(r[0]) for r in rows])

    def holders(self, run_ids: list[str]) -> dict[str, Holder]:
        """The sessions holding the runs' advisory locks, named by their `application_name` (host:pid).

        A lock ends with its session, so a killed process stops showing at once on this database's
        host (a machine cut off from the network: when Postgres notices the connection is gone).
        """
        rows = self._store.conn.execute(HOLDERS, (run_ids, RUN_LOCK)).fetchall() if run_ids else []
        return {str(run_id): _holder(str(name or "")) for run_id, name in rows}

    def list_runs(self) -> list[RunLog]:
        rows = self._store.conn.execute("SELECT run_id, event FROM lobster.events ORDER BY seq").fetchall()
        events: dict[str, list[Any]] = {}
        for run_id, text in rows:
            events.setdefault(run_id, []).append(_loads(text))
        logs = [log for run_id, evs in events.items() if (log := replay(run_id, evs)) is not None]
        return sorted(logs, key=lambda log: str(log.start.get("startedAt")))


def _holder(application: str) -> Holder:
    """`lobster host:pid` read back (another client's session: pid 0, host unknown)."""
    host, _, pid = application.removeprefix("lobster ").rpartition(":")
    number = whole_number(pid)
    return Holder(number, host) if application.startswith("lobster ") and number is not None else Holder(0)
