"""`lobster cancel RUN_ID`: abandon an unfinished run (queued, interrupted or waiting at a gate) without running a step."""

from __future__ import annotations

import sys

import click


@click.command("cancel")
@click.argument("run_id")
@click.option("--backend", metavar="URL", help="The database the run lives in (postgresql://…; default $LOBSTER_BACKEND).")
def cancel_command(run_id: str, backend: str | None) -> int:
    """Cancel run RUN_ID (see `lobster runs`); prints one envelope.

    A run being executed right now (by a worker or another resume) is refused: try again when
    its step ends. The same as `lobster resume --run RUN_ID --cancel`.
    """
    from lobsterlang.cli.resume_cmd import ResumeArgs, resume_run_envelope
    from lobsterlang.interpret.pipeline.frontend import print_envelope

    parsed = ResumeArgs(cancel=True)
    parsed.run, parsed.backend = run_id, backend
    return print_envelope(sys.stdout, resume_run_envelope(parsed))
