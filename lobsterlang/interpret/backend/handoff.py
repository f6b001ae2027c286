"""An answered gate of a detached run continues on a worker: the decision is journaled first, then the run is queued."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from lobsterlang.interpret.backend.postgres import PgStore
from lobsterlang.interpret.envelope import PROTOCOL_VERSION, Envelope, error_envelope
from lobsterlang.interpret.errors import UsageError
from lobsterlang.interpret.state import StateStore
from lobsterlang.interpret.workflow.journal import EventJournal

RESUME_DETACH_ENV = "LOBSTER_RESUME_DETACH"
"""Set to 1 by `lobster resume --detach`: continue on a worker even when the run was not started detached."""


class WorkerHandoff:
    """The `Handoff` (workflow/stores.py) the engine gets with a Postgres store, from `interpret.wiring`."""

    def wants_worker(self, store: StateStore, run_id: str, env: Mapping[str, str]) -> bool:
        """Whether the gate's continuation goes to the workers: `resume --detach`, or a run started with `run --detach`."""
        if not isinstance(store, PgStore):
            return False
        if env.get(RESUME_DETACH_ENV) == "1":
            return True
        log = store.backend.read_run(run_id)
        return log is not None and bool(log.start.get("detached"))

    def hand_off(self, store: StateStore, journal: EventJournal, state_key: str, cwd: str, forget: Callable[[], None],
                 put_back: Callable[[], None]) -> Envelope:
        """Record the decision (the journal's `resumed` event) and queue the run in one transaction, then spend the token.

        From the recorded decision on, the run continues from its journal: a worker that takes it (or
        `resume --run ID`) never asks for the decision again and never re-runs a recorded step. When
        it cannot be queued nothing is recorded: the gate is put back and its token stays valid.
        """
        from lobsterlang.interpret.backend.worker import enqueue

        assert isinstance(store, PgStore)  # wants_worker said so
        run_id = journal.run_id
        with journal.lock:
            lines, journal.pending = journal.pending, []
        store.close()  # releases the run's advisory lock, so the worker that dequeues it can hold it
        try:
            enqueue(store.url, run_id, cwd, workflow_id=f"{run_id}:{state_key}", lines=lines)
        except UsageError as exc:
            put_back()
            store.close()
            return error_envelope("runtime_error", f"{exc.message}; nothing was recorded: the gate still waits for its answer")
        forget()
        store.close()
        return queued_envelope(run_id)

    def finished(self, store: StateStore, run_id: str) -> Envelope | None:
        """The final envelope of a detached run that a worker finished (None: none did)."""
        from lobsterlang.interpret.backend.worker import final_envelope

        return final_envelope(store, run_id) if isinstance(store, PgStore) and run_id else None


WORKER_HANDOFF = WorkerHandoff()


def queued_envelope(run_id: str) -> Envelope:
    """`{"ok": true, "status": "queued", "runId": …}`: the run continues on a worker."""
    return {"protocolVersion": PROTOCOL_VERSION, "ok": True, "status": "queued", "runId": run_id}
