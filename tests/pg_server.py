"""A real Postgres for tests: the `pgserver` wheel (no Docker, no network), one fresh database per test."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def pg_root(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The URL of a Postgres started for this session (skipped without the `dbos` extra and pgserver)."""
    pgserver = pytest.importorskip("pgserver")
    pytest.importorskip("psycopg")
    server = pgserver.get_server(Path(tmp_path_factory.mktemp("pg")), cleanup_mode="stop")
    try:
        yield str(server.get_uri())
    finally:
        server.cleanup()


@pytest.fixture
def pg_url(pg_root: str) -> str:
    """A fresh empty database on the session's server."""
    import psycopg

    name = "t_" + secrets.token_hex(6)
    with psycopg.connect(pg_root, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return pg_root.replace("/postgres?", f"/{name}?", 1)
