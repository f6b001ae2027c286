"""`lobster worker`: execute runs queued with `lobster run --detach` (the Postgres backend, on DBOS)."""

from __future__ import annotations

import os

import click


@click.command("worker")
@click.option("--backend", "backend", metavar="URL", help="postgresql://… (default: $LOBSTER_BACKEND).")
@click.option("--grace", default=30, show_default=True, metavar="SECONDS",
              help="On SIGTERM, how long running runs may take to finish before the worker exits.")
@click.option("--quiet", "-q", is_flag=True, help="Print nothing while serving (errors still go to stderr).")
def worker_command(backend: str | None, grace: int, quiet: bool) -> None:
    """Execute queued workflow runs until SIGTERM or Ctrl-C.

    Start as many workers as you like, on any machines, against one database. A run whose
    worker dies moves to another worker within a few seconds; a step that was running when it
    died is not run again on its own (`lobster resume --run ID --retry-step` or `--skip-step`).

    On stderr, one line each: the database it connected to (password hidden), its queue and
    concurrency; each run it takes and how it ended; each schedule tick it fires (--quiet: none).
    """
    import sys

    from lobsterlang.interpret.backend.worker import backend_url, serve
    from lobsterlang.interpret.backend.workerlog import WorkerLog
    from lobsterlang.interpret.errors import LobsterRunError

    try:
        url = backend_url(backend, os.environ)
        os.environ["LOBSTER_BACKEND"] = url
        serve(url, grace_s=grace, log=WorkerLog(None if quiet else sys.stderr))
    except LobsterRunError as exc:
        raise click.UsageError(exc.message) from None
