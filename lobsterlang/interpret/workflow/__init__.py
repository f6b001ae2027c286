"""The workflow-file engine: run `.lobster` files, halt at approval and input gates, resume, journal runs.

Entry points used by the CLI:

    run_file(path, args_json, mode, dry_run, raw_args, schedule=None) -> int
        `lobster run FILE`: prints the result (human text or the tool envelope), returns the exit code.
    resume(state_key, decision, ctx, token) -> Envelope
        `lobster resume` for `workflow-file` tokens; `decision` is a pipeline-session `Decision`
        (approve / response / cancel), `ctx` a pipeline `RunContext` (env, cwd, store, cancel),
        `token` the verified `TokenPayload` the state must match.
    resume_run(run_id, decision, retry_step, skip_step, ctx) -> Envelope
        `lobster resume --run ID`: continue an interrupted run from its journal.
"""

from __future__ import annotations

from typing import Any


def run_file(path: str, args_json: str | None, mode: str, dry_run: bool, raw_args: bool, schedule: str | None = None) -> int:
    """Run (or, with `dry_run`, plan) the workflow file at `path`; prints its output, returns the exit code. `schedule`:
    the run is a tick of that schedule (`lobster run --schedule NAME`)."""
    from lobsterlang.interpret.workflow.frontend import run_file as run

    return run(path, args_json, mode, dry_run, raw_args, schedule)


def resume(state_key: str, decision: Any, ctx: Any, token: Any = None) -> Any:
    """Resume the workflow whose resume state is stored under `state_key`; returns the envelope."""
    from lobsterlang.interpret.workflow.runs import resume as resume_state

    return resume_state(state_key, decision, ctx, token)


def resume_run(run_id: str, decision: Any, retry_step: bool, skip_step: bool, ctx: Any) -> Any:
    """Continue an interrupted run from its journal; returns the envelope."""
    from lobsterlang.interpret.workflow.recover import resume_run as recover

    return recover(run_id, decision, retry_step, skip_step, ctx)
