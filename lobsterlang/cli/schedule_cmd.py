"""`lobster schedule`: run a workflow file on a cron schedule: add, list, remove, pause, resume, run-now, export.

Schedules live in the backend: with `LOBSTER_BACKEND` (or `--backend`) a Postgres database whose
`lobster worker`s fire them, else this machine's state directory, fired by the crontab line or
systemd timer `schedule export` writes.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from typing import Any

import click

from lobsterlang.cli.completion import complete_paths
from lobsterlang.cli.options import COLOR_OPTION
from lobsterlang.interpret.errors import LobsterRunError
from lobsterlang.interpret.schedule.model import (
    CATCH_UPS,
    DEFAULT_CATCH_UP,
    DEFAULT_OVERLAP,
    OVERLAPS,
    Schedule,
    ScheduleView,
)

BACKEND_OPTION = click.option("--backend", metavar="URL",
                              help="The database whose workers fire the schedules (postgresql://…; default "
                                   "$LOBSTER_BACKEND; unset: this machine's state directory).")


@contextmanager
def _store(backend: str | None) -> Iterator[Any]:
    """The schedules of the backend named by --backend / LOBSTER_BACKEND (the state directory when none is)."""
    url = (backend or os.environ.get("LOBSTER_BACKEND", "")).strip()
    try:
        if not url:
            from lobsterlang.interpret.schedule.files import FileSchedules

            yield FileSchedules(os.environ)
            return
        from lobsterlang.interpret.backend.worker import backend_url
        from lobsterlang.interpret.schedule.postgres import PgSchedules

        store = PgSchedules(backend_url(url, os.environ))
        try:
            yield store
        finally:
            store.close()
    except LobsterRunError as exc:
        raise click.UsageError(exc.message) from None


def _now(store: Any) -> datetime:
    now = getattr(store, "now", None)
    return now() if now is not None else datetime.now(timezone.utc)


def when(moment: datetime | None, schedule: Schedule) -> str:
    """`Thu 2026-12-03 07:30 CET`: a moment in the schedule's time zone."""
    return "-" if moment is None else moment.astimezone(schedule.zone).strftime("%a %Y-%m-%d %H:%M %Z")


def _fired_by(store: Any, name: str) -> str:
    if store.workers:
        from lobsterlang.interpret.backend.redact import redacted

        return f"fired by the workers of {redacted(store.url)}"
    return f"fired by cron or systemd once exported: lobster schedule export --crontab {name} (or --systemd)"


@click.group("schedule")
def schedule_group() -> None:
    """Run workflow files on a schedule (cron expressions, in a time zone).

    With a Postgres backend (--backend or $LOBSTER_BACKEND) the `lobster worker`s fire each tick
    exactly once, however many there are. Without one, schedules are kept in the state directory
    and `schedule export` writes the crontab line or systemd timer that fires them on this machine.
    docs/schedules.md has the details (time zones and DST, overlap, catch-up).
    """


@schedule_group.command("add")
@click.argument("name")
@click.argument("file", shell_complete=complete_paths)
@click.option("--cron", "cron_text", required=True, metavar="EXPR",
              help="When to run: minute hour day-of-month month day-of-week, e.g. '30 7 * * 1-5', or @daily, @hourly…")
@click.option("--args-json", metavar="JSON", help="The workflow's args, as for `lobster run`.")
@click.option("--timezone", metavar="TZ", help="The IANA time zone of the cron times (default: this machine's), e.g. Europe/Berlin.")
@click.option("--overlap", type=click.Choice(OVERLAPS), default=DEFAULT_OVERLAP, show_default=True,
              help="A tick while the last run is still queued or running: skip it, or queue it behind.")
@click.option("--catch-up", "catch_up", type=click.Choice(CATCH_UPS), default=DEFAULT_CATCH_UP, show_default=True,
              help="Ticks missed while nothing fired them: run none, the newest one, or all of them.")
@click.option("--replace", is_flag=True, help="Change the schedule NAME if it exists.")
@BACKEND_OPTION
@COLOR_OPTION
def add_command(name: str, file: str, cron_text: str, args_json: str | None, timezone: str | None, overlap: str,
                catch_up: str, replace: bool, backend: str | None, color: str) -> None:
    """Add schedule NAME: run workflow FILE at the times --cron names.

    The expression, the time zone, the workflow (what `lobster lint` reports as an error) and the
    args (every required one given) are checked first; nothing is stored when one is wrong.
    """
    from lobsterlang.cli.output import use_color
    from lobsterlang.cli.schedule_check import Request, check_schedule
    from lobsterlang.report import render_text, summary

    request = Request(name, cron_text, file, args_json, timezone, overlap, catch_up)
    try:
        checked = check_schedule(request, os.environ, os.getcwd())
    except LobsterRunError as exc:
        raise click.UsageError(exc.message) from None
    if checked.diagnostics:
        click.echo(render_text(checked.reports, color=use_color(color)) + summary(checked.diagnostics), err=True, nl=False)
    if not checked.ok:
        raise click.ClickException(f"schedule {name} not added: fix the errors above")
    with _store(backend) as store:
        try:
            store.add(checked.schedule, replace, checked.workflow, checked.digest)
        except LobsterRunError as exc:
            raise click.UsageError(exc.message) from None
        view = next(v for v in store.views(_now(store)) if v.schedule.name == name)
        click.echo(f"schedule {name} {'saved' if replace else 'added'}: {checked.schedule.cron} in {checked.schedule.timezone}, "
                   f"next tick {when(view.next_at, checked.schedule)} ({_fired_by(store, name)})")


@schedule_group.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print the schedules as a JSON array.")
@BACKEND_OPTION
def list_command(as_json: bool, backend: str | None) -> None:
    """List the schedules: when each fires next, and what its last tick did."""
    with _store(backend) as store:
        try:
            views = store.views(_now(store))
        except LobsterRunError as exc:
            raise click.UsageError(exc.message) from None
    if as_json:
        click.echo(json.dumps([v.to_json() for v in views], indent=2, ensure_ascii=False))
        return
    if not views:
        click.echo("No schedules (lobster schedule add NAME --cron EXPR FILE).")
        return
    rows = [_row(v) for v in views]
    widths = [max(len(r[i]) for r in [HEADER, *rows]) for i in range(len(HEADER) - 1)]
    for row in [HEADER, *rows]:
        click.echo("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=False)) + "  " + row[-1])


HEADER = ("NAME", "CRON", "TIME ZONE", "NEXT TICK", "LAST TICK", "RUN", "STATUS", "FILE")


def _row(view: ScheduleView) -> tuple[str, ...]:
    schedule, last = view.schedule, view.last
    next_tick = "paused" if schedule.paused else when(view.next_at, schedule)
    return (schedule.name, schedule.cron, schedule.timezone, next_tick, when(last.at if last else None, schedule),
            (last.run_id or "-") if last else "-", last.status if last else "-", schedule.file)


@schedule_group.command("remove")
@click.argument("name")
@BACKEND_OPTION
def remove_command(name: str, backend: str | None) -> None:
    """Remove schedule NAME (its runs that started keep going)."""
    with _store(backend) as store:
        _changed(store, "remove", name)
        click.echo(f"schedule {name} removed")
        if not store.workers:
            click.echo(f"hint: also delete its crontab line, or: systemctl --user disable --now lobster-{name}.timer", err=True)


@schedule_group.command("pause")
@click.argument("name")
@BACKEND_OPTION
def pause_command(name: str, backend: str | None) -> None:
    """Pause schedule NAME: no tick fires until `schedule resume` (ticks of the pause are not caught up)."""
    with _store(backend) as store:
        _changed(store, "set_paused", name, True)
        click.echo(f"schedule {name} paused")


@schedule_group.command("resume")
@click.argument("name")
@BACKEND_OPTION
def resume_command(name: str, backend: str | None) -> None:
    """Resume schedule NAME from now on."""
    with _store(backend) as store:
        schedule = _changed(store, "set_paused", name, False)
        view = next(v for v in store.views(_now(store)) if v.schedule.name == name)
        click.echo(f"schedule {name} resumed: next tick {when(view.next_at, schedule)}")


def _changed(store: Any, method: str, *args: Any) -> Schedule:
    try:
        return getattr(store, method)(*args)  # type: ignore[no-any-return]
    except LobsterRunError as exc:
        raise click.UsageError(exc.message) from None


@schedule_group.command("run-now")
@click.argument("name")
@click.option("--mode", type=click.Choice(["human", "tool"]), default="human", show_default=True,
              help="How a run on this machine prints its result (as `lobster run`).")
@BACKEND_OPTION
def run_now_command(name: str, mode: str, backend: str | None) -> int:
    """Fire one tick of schedule NAME now (paused or not; its overlap policy applies).

    With workers, the run is queued for them and its id printed; on this machine it runs here,
    under the schedule's lock, and prints what `lobster run` prints.
    """
    with _store(backend) as store:
        schedule = _changed(store, "require", name)
        if store.workers:
            return _queue_now(store.url, name)
    from lobsterlang.cli.run_cmd import run_main

    argv = ["--schedule", name, "--mode", mode, *(["--overlap", "queue"] if schedule.overlap == "queue" else []),
            *(["--args-json", json.dumps(schedule.args)] if schedule.args else []), schedule.file]
    if schedule.cwd and os.path.isdir(schedule.cwd):
        os.chdir(schedule.cwd)
    return run_main(argv)


def _queue_now(url: str, name: str) -> int:
    from lobsterlang.interpret.backend.scheduler import run_now
    from lobsterlang.interpret.backend.worker import queue_target

    try:
        line, run_id = run_now(url, queue_target(), name)
    except Exception as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise click.ClickException(f"cannot fire schedule {name}: {reason} (hint: a worker must have started once on this "
                                   "database: lobster worker)") from None
    click.echo(f"schedule {name}: {line}", err=True)
    if run_id:
        click.echo(run_id)
    return 0


@schedule_group.command("export")
@click.argument("name")
@click.option("--crontab", "target", flag_value="crontab", help="Print a crontab entry (add it with `crontab -e`).")
@click.option("--systemd", "target", flag_value="systemd", help="Write lobster-NAME.service and lobster-NAME.timer.")
@click.option("--dir", "directory", metavar="DIR",
              help="Where --systemd writes the units (default: ~/.config/systemd/user).")
@BACKEND_OPTION
def export_command(name: str, target: str | None, directory: str | None, backend: str | None) -> None:
    """Write what fires schedule NAME on this machine, with no database: a crontab entry or a systemd timer.

    Each tick runs `lobster run --schedule NAME FILE`, which holds the schedule's lock while it
    runs: a tick that comes while the last one still runs is skipped (overlap queue: it waits).
    """
    from lobsterlang.interpret.schedule import export

    if target is None:
        raise click.UsageError("give --crontab or --systemd")
    with _store(backend) as store:
        schedule = _changed(store, "require", name)
        if store.workers and not schedule.paused:
            click.echo(f"warning: the workers of the database fire schedule {name} too; pause it there "
                       f"(lobster schedule pause {name}) or each tick runs twice", err=True)
    if target == "crontab":
        from lobsterlang.interpret.schedule.timing import local_zone_name

        text, warnings = export.crontab_entry(schedule, os.environ, local_zone_name(os.environ))
        click.echo(text, nl=False)
    else:
        warnings = _write_units(schedule, directory)
    for warning in warnings:
        click.echo(f"warning: {warning}", err=True)


def _write_units(schedule: Schedule, directory: str | None) -> list[str]:
    from pathlib import Path

    from lobsterlang.cli.files import write_atomic
    from lobsterlang.interpret.schedule import export

    service, timer, warnings = export.systemd_units(schedule, os.environ)
    folder = Path(directory) if directory else export.systemd_dir(os.environ)
    folder.mkdir(parents=True, exist_ok=True)
    unit = f"lobster-{schedule.name}"
    for suffix, text in ((".service", service), (".timer", timer)):
        write_atomic(str(folder / f"{unit}{suffix}"), text)
        click.echo(f"wrote {folder / f'{unit}{suffix}'}")
    where = "" if not directory else "once they are in a systemd unit folder (~/.config/systemd/user), "
    click.echo(f"start it {where}with: systemctl --user daemon-reload && systemctl --user enable --now {unit}.timer", err=True)
    return warnings

