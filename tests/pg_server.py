"""A real Postgres for tests: the `pgserver` wheel (no Docker, no network), one fresh database per test."""

from __future__ import annotations

import secrets
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

_SERVER: dict[str, str] = {}
"""The session's server URL, once started: every test module that imports these fixtures shares one server."""


@pytest.fixture(scope="session")
def pg_root() -> Iterator[str]:
    """The URL of a Postgres started for this session (skipped without the `dbos` extra and pgserver).

    Its data directory is directly under the temp dir: run as root, pgserver starts Postgres as
    its own user, which must reach the directory (pytest's 0700 temp dirs would block it). Each
    module importing this fixture gets its own session-scoped copy of it; the first starts the
    server, the last to finish (at the end of the session) stops it.
    """
    pgserver = pytest.importorskip("pgserver")
    pytest.importorskip("psycopg")
    if "url" in _SERVER:
        yield _SERVER["url"]
        return
    data = Path(tempfile.mkdtemp(prefix="lobster-pg-"))
    server = pgserver.get_server(data, cleanup_mode="stop")
    _SERVER["url"] = str(server.get_uri())
    try:
        yield _SERVER["url"]
    finally:
        _SERVER.clear()
        server.cleanup()
        shutil.rmtree(data, ignore_errors=True)


@pytest.fixture
def pg_url(pg_root: str) -> str:
    """A fresh empty database on the session's server."""
    import psycopg

    name = "t_" + secrets.token_hex(6)
    with psycopg.connect(pg_root, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return pg_root.replace("/postgres?", f"/{name}?", 1)
