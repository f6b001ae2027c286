"""Where runs live: the interface the interpreter calls for journals, run listing and gate state.

Two implementations: `files` (the default: one state directory, nothing to install) and
`postgres` (the `dbos` extra: journals and gate state in one database shared by many machines).
Gate state (put / claim / put back / approval ids / signing key) is the `StateStore` interface;
a backend whose state lives elsewhere subclasses it (`BackendStore`) and carries its backend.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from lobsterlang.interpret import hostkey
from lobsterlang.interpret.errors import UsageError
from lobsterlang.interpret.state import StateStore

if TYPE_CHECKING:  # annotations only: a pipeline run needs the store, not the workflow engine the journal brings in
    from lobsterlang.interpret.workflow.journal import EventJournal, RunLog


class Backend(Protocol):
    """A run store: each run's event journal, the unfinished runs, and the gate state store."""

    @property
    def store(self) -> StateStore:
        """Gate state: resume states (put, claim, put back), approval ids and the signing key."""
        ...

    def journal(self, run_id: str) -> EventJournal:
        """The journal to append run `run_id`'s events to."""
        ...

    def hold(self, run_id: str) -> None:
        """Hold run `run_id` for this process (until it exits); `WorkflowUsageError` when another holds it."""
        ...

    def read_run(self, run_id: str) -> RunLog | None:
        """Run `run_id` replayed from its journal; None when it is finished or unknown."""
        ...

    def list_runs(self) -> list[RunLog]:
        """Every unfinished run, oldest first."""
        ...

    def holders(self, run_ids: list[str]) -> dict[str, Holder]:
        """The live process running each of `run_ids` now (runs no process holds are left out)."""
        ...


@dataclass(frozen=True)
class Holder:
    """A process running a run: its pid (0: not known yet) and, for a shared backend, its host."""

    pid: int
    host: str | None = None


class BackendStore(StateStore):
    """A state store that belongs to a backend other than the state directory."""

    on_disk = False

    @property
    def backend(self) -> Backend:
        raise NotImplementedError


def backend_of(store: StateStore) -> Backend:
    """The backend `store` belongs to: its own, or the state directory's files."""
    if isinstance(store, BackendStore):
        return store.backend
    from lobsterlang.interpret.backend.files import FileBackend

    return FileBackend(store)


BACKEND_ENV = "LOBSTER_BACKEND"
_POSTGRES = ("postgresql://", "postgres://")


def store_from_env(env: Mapping[str, str]) -> StateStore:
    """The store `LOBSTER_BACKEND` names (a `postgresql://` URL, or unset: the state directory), with the host's key."""
    store = _store_for(env)
    try:
        store.host_key = hostkey.for_env(env)
    except hostkey.HostKeyError as exc:
        store.host_key_problem = str(exc)
    return store


def _store_for(env: Mapping[str, str]) -> StateStore:
    url = env.get(BACKEND_ENV, "").strip()
    if not url:
        return StateStore.from_env(env)
    if url.startswith(_POSTGRES):
        from lobsterlang.interpret.backend.postgres import PgStore

        return PgStore(url)
    raise UsageError(f"{BACKEND_ENV}={url.split('://')[0]}://…: unknown backend (hint: use postgresql://USER@HOST/DB, "
                     "or leave it unset for the local state directory)")
