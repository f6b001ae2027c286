"""The run-store and hand-off interfaces the workflow engine calls; the Postgres store and its workers implement them above the engine.

A run store keeps each run's event journal, the unfinished runs and the gate state. The engine's
own implementation is the state directory (`filebackend`); a store that lives elsewhere subclasses
`BackendStore`, carries its backend, and may carry a `Handoff`: the way an answered gate's run
continues on a worker instead of in this process.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from lobsterlang.interpret.state import StateStore

if TYPE_CHECKING:  # annotations only: a pipeline run needs the store, not the journal's module
    from lobsterlang.interpret.workflow.journal import EventJournal
    from lobsterlang.interpret.workflow.runlog import RunLog


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

    def has_run(self, run_id: str) -> bool:
        """Whether run `run_id` has a journal (without reading it: a large run's is read once, while it is held)."""
        ...

    def list_runs(self) -> list[RunLog]:
        """Every unfinished run, oldest first."""
        ...

    def holders(self, run_ids: list[str]) -> dict[str, Holder]:
        """The live process running each of `run_ids` now (runs no process holds are left out)."""
        ...


class Handoff(Protocol):
    """How a store's runs continue on a worker: given to the engine with the store, never imported by it.

    It holds no store (each call names it): a store that referred to its hand-off and back would
    outlive its last use, and with it its connection and the run locks that connection holds.
    """

    def wants_worker(self, store: StateStore, run_id: str, env: Mapping[str, str]) -> bool:
        """Whether the continuation of run `run_id` after its answered gate goes to the workers."""
        ...

    def hand_off(self, store: StateStore, journal: EventJournal, state_key: str, cwd: str, forget: Callable[[], None],
                 put_back: Callable[[], None]) -> dict[str, Any]:
        """Record the decision and queue the run; the envelope says where it went (`forget`: spend the token)."""
        ...

    def finished(self, store: StateStore, run_id: str) -> dict[str, Any] | None:
        """The envelope a worker finished run `run_id` with (None: no worker finished it)."""
        ...


@dataclass(frozen=True)
class Holder:
    """A process running a run: its pid (0: not known yet) and, for a shared backend, its host."""

    pid: int
    host: str | None = None


class BackendStore(StateStore):
    """A state store that belongs to a backend other than the state directory."""

    on_disk = False
    handoff: Handoff | None = None
    """Set by whoever opens the store when its runs can continue on workers (`interpret.wiring`)."""

    @property
    def backend(self) -> Backend:
        raise NotImplementedError


def backend_of(store: StateStore) -> Backend:
    """The backend `store` belongs to: its own, or the state directory's files."""
    if isinstance(store, BackendStore):
        return store.backend
    from lobsterlang.interpret.workflow.filebackend import FileBackend

    return FileBackend(store)


def handoff_of(store: StateStore) -> Handoff | None:
    """The store's way to continue runs on workers (None: runs continue in this process)."""
    return store.handoff if isinstance(store, BackendStore) else None
