"""Which run store a command gets: the state directory, or a Postgres database whose runs can continue on workers."""

from __future__ import annotations

from collections.abc import Mapping

from lobsterlang.interpret import hostkey
from lobsterlang.interpret.errors import UsageError
from lobsterlang.interpret.state import BACKEND_ENV, StateStore

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
        from lobsterlang.interpret.backend.handoff import WORKER_HANDOFF
        from lobsterlang.interpret.backend.postgres import PgStore

        store = PgStore(url)
        store.handoff = WORKER_HANDOFF
        return store
    raise UsageError(f"{BACKEND_ENV}={url.split('://')[0]}://…: unknown backend (hint: use postgresql://USER@HOST/DB, "
                     "or leave it unset for the local state directory)")
