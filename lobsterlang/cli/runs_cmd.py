"""`lobster runs`: list workflow runs that did not finish (interrupted, or waiting at a gate)."""

from __future__ import annotations

import json
import os
from typing import Any

import click

from lobsterlang.interpret.errors import LobsterRunError
from lobsterlang.interpret.gatestate import is_expired
from lobsterlang.interpret.wiring import store_from_env
from lobsterlang.interpret.workflow.runlog import RunLog
from lobsterlang.interpret.workflow.stores import Holder, backend_of


def run_row(log: RunLog, holder: Holder | None = None) -> dict[str, Any]:
    """One unfinished run as plain data; `holder` is the live process running it, if any."""
    halted = log.halted or {}
    return {
        "id": log.run_id,
        "running": holder is not None,
        "queued": log.queued and holder is None,
        "pid": holder.pid or None if holder else None,
        "host": holder.host if holder else None,
        "workflow": log.start.get("filePath"),
        "lastCompletedStep": last_completed_step(log),
        "waitingGate": halted.get("step"),
        "expiresAt": halted.get("expiresAt"),
        "expired": is_expired(halted.get("expiresAt")),
        "uncertainStep": log.uncertain[1] if log.uncertain else None,
        "uncertainBranches": list(log.open_branches),
        "notRetried": _not_retried(log),
        "startedAt": log.start.get("startedAt"),
        "schedule": log.start.get("schedule"),
    }


def last_completed_step(log: RunLog) -> str | None:
    """The last step that finished. A run halted at a gate has journaled the gate step's own record (what it
    shows), but the gate waits for its answer: the last completed step is the one before it (the STATUS column
    names the gate)."""
    halted = log.halted or {}
    if halted.get("step") is None or halted.get("step") != log.last_done:
        return log.last_done
    steps = (log.start.get("ir") or {}).get("steps") or []
    index = halted.get("index") if isinstance(halted.get("index"), int) else len(steps)
    earlier = [step.get("id") for step in steps[:index] if isinstance(step, dict)]
    return next((step_id for step_id in reversed(earlier) if step_id in log.results), None)


def _not_retried(log: RunLog) -> dict[str, Any] | None:
    """The step that failed after dispatching calls, which its `retry:` did not run again (None: no such step)."""
    if log.uncertain is None or not log.not_retried:
        return None
    return {"step": log.uncertain[1], "calls": list(log.not_retried)}


def _status(row: dict[str, Any]) -> str:
    if row["running"]:
        where = f" on {row['host']}" if row["host"] else ""
        return f"running (pid {row['pid']}{where})" if row["pid"] else "running"
    if row["queued"]:
        return "queued"
    if row["waitingGate"]:
        return f"expired at {row['waitingGate']}" if row["expired"] else f"waiting at {row['waitingGate']}"
    if row["notRetried"]:
        calls = ", ".join(row["notRetried"]["calls"])
        return f"not retried in {row['uncertainStep']} (its {calls} may have taken effect)"
    if row["uncertainBranches"]:
        return f"interrupted in {row['uncertainStep']} ({', '.join(row['uncertainBranches'])})"
    if row["uncertainStep"]:
        return f"interrupted in {row['uncertainStep']}"
    return "interrupted"


@click.command("runs")
@click.option("--json", "as_json", is_flag=True, help="Print the runs as a JSON array.")
@click.option("--backend", metavar="URL", help="List the runs in this database (postgresql://…; default $LOBSTER_BACKEND).")
@click.option("--schedule", metavar="NAME", help="Only the runs schedule NAME started (lobster schedule list).")
def runs_command(as_json: bool, backend: str | None, schedule: str | None) -> None:
    """List workflow runs that did not finish: id, workflow, last completed step, status, start time.

    A run that a live process is still running shows as `running (pid N)` (with the Postgres
    backend, `running (pid N on HOST)`, from any machine); it cannot be resumed until that
    process ends or halts.

    Continue one with `lobster resume --run ID` (add --retry-step or --skip-step when a step
    was interrupted), or answer its gate with --approve yes|no / --response-json. A gate past
    its expiry is listed as `expired`: it can only be cancelled (--cancel). A step that failed
    after sending a call out (`openclaw.invoke`, `gog.gmail.send`…) is listed as `not retried`:
    its `retry:` did not run it again, as the call may have taken effect.
    """
    env = {**os.environ, "LOBSTER_BACKEND": backend} if backend else os.environ
    try:
        runs_backend = backend_of(store_from_env(env))
        logs = [log for log in runs_backend.list_runs() if schedule is None or log.start.get("schedule") == schedule]
        holders = runs_backend.holders([log.run_id for log in logs])
    except LobsterRunError as exc:
        raise click.UsageError(exc.message) from None
    rows = [run_row(log, holders.get(log.run_id)) for log in logs]
    for problem in (p for log in logs for p in log.skipped):
        click.echo(f"warning: {problem}", err=True)
    if as_json:
        click.echo(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    if not rows:
        click.echo(f"No unfinished runs{f' of schedule {schedule}' if schedule else ''}.")
        return
    click.echo(f"{'RUN':<14} {'STARTED':<25} {'LAST STEP':<16} {'STATUS':<28} WORKFLOW")
    for row in rows:
        last = row["lastCompletedStep"] or "-"
        click.echo(f"{row['id']:<14} {row['startedAt']!s:<25} {last:<16} {_status(row):<28} {row['workflow']}")
