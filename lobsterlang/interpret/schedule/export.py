"""`lobster schedule export`: the crontab line or systemd timer that fires a schedule on one machine, with no database.

Both call `lobster run --schedule NAME FILE`, whose lock keeps ticks from overlapping
(`ticklock`). What cron or systemd cannot do of a schedule's policies is returned as warnings,
never dropped silently.
"""

from __future__ import annotations

import json
import os
import shlex
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

from lobsterlang.cron import Cron
from lobsterlang.interpret.schedule.files import schedules_dir
from lobsterlang.interpret.schedule.model import Schedule

DAY_NAMES = ("Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat")


def lobster_command() -> list[str]:
    """How cron or systemd starts this lobsterlang: the `lobster` script beside this Python, else `python -m lobsterlang`."""
    beside = Path(sys.executable).parent / "lobster"
    if beside.is_file() and os.access(beside, os.X_OK):
        return [str(beside)]
    return [sys.executable, "-m", "lobsterlang"]


def tick_command(schedule: Schedule) -> list[str]:
    """The `lobster run --schedule` command line of one tick."""
    command = [*lobster_command(), "run", "--schedule", schedule.name]
    if schedule.overlap == "queue":
        command += ["--overlap", "queue"]
    if schedule.args:
        command += ["--args-json", json.dumps(schedule.args, ensure_ascii=False, separators=(",", ":"))]
    return [*command, schedule.file]


def pinned_env(env: Mapping[str, str]) -> dict[str, str]:
    """The settings a tick must see as the exporting shell does: the state directory (where the lock and runs live)."""
    state = env.get("LOBSTER_STATE_DIR", "").strip()
    return {"LOBSTER_STATE_DIR": os.path.abspath(state)} if state else {}


def crontab_entry(schedule: Schedule, env: Mapping[str, str], local_zone: str) -> tuple[str, list[str]]:
    """The crontab lines (a comment, `CRON_TZ` when the zone is not the machine's, the entry) and the warnings."""
    log = schedules_dir(env) / f"{schedule.name}.log"
    assignments = [f"{k}={shlex.quote(v)}" for k, v in pinned_env(env).items()]
    command = " ".join([*assignments, *map(shlex.quote, tick_command(schedule))])
    line = f"cd {shlex.quote(schedule.cwd or '/')} && {command} >>{shlex.quote(str(log))} 2>&1"
    lines = [f"# lobster schedule {schedule.name}: {schedule.cron} in {schedule.timezone} "
             f"(lobster schedule export --crontab {schedule.name})"]
    if schedule.timezone != local_zone:
        lines += ["# CRON_TZ is read by cronie and applies to the lines below it; a cron without it uses the machine's zone",
                  f"CRON_TZ={schedule.timezone}"]
    lines.append(f"{schedule.parsed.portable()} {line.replace('%', chr(92) + '%')}")
    warnings = []
    if schedule.catch_up != "none":
        warnings.append(f"cron does not run ticks missed while the machine was off (the schedule says --catch-up "
                        f"{schedule.catch_up}): export --systemd, or use the workers, to catch up")
    return "\n".join(lines) + "\n", warnings


def systemd_units(schedule: Schedule, env: Mapping[str, str]) -> tuple[str, str, list[str]]:
    """The service and timer units (`lobster-NAME.service`, `.timer`) and the warnings."""
    environment = "".join(f"Environment={_systemd_word(f'{k}={v}')}\n" for k, v in pinned_env(env).items())
    service = (f"[Unit]\nDescription=lobster schedule {schedule.name} ({_systemd_text(schedule.file)})\n\n"
               f"[Service]\nType=oneshot\nWorkingDirectory={_systemd_path(schedule.cwd or '/')}\n{environment}"
               f"ExecStart={' '.join(_systemd_word(w) for w in tick_command(schedule))}\n")
    calendars = "".join(f"OnCalendar={c} {schedule.timezone}\n" for c in on_calendar(schedule.parsed))
    persistent = "true" if schedule.catch_up != "none" else "false"
    timer = (f"[Unit]\nDescription=lobster schedule {schedule.name}: {_systemd_text(schedule.cron)} in {schedule.timezone}\n\n"
             f"[Timer]\n{calendars}Persistent={persistent}\nAccuracySec=1s\nUnit=lobster-{schedule.name}.service\n\n"
             "[Install]\nWantedBy=timers.target\n")
    warnings = []
    if schedule.catch_up == "all":
        warnings.append("systemd runs one missed tick at start-up (Persistent=true), not every missed tick (--catch-up all)")
    if schedule.overlap == "queue":
        warnings.append("systemd does not start a timer's service while it still runs: a tick during a run is skipped, "
                        "not queued (--overlap queue)")
    return service, timer, warnings


def on_calendar(cron: Cron) -> list[str]:
    """systemd `OnCalendar=` times (without the zone) naming the same minutes as `cron`: two when both day fields are
    restricted (cron matches either; one systemd time must match all its fields)."""
    clock = f"{_compress(cron.hours, 0, 23)}:{_compress(cron.minutes, 0, 59)}:00"
    months = _compress(sorted(cron.months), 1, 12)
    days = _compress(sorted(cron.days), 1, 31)
    weekdays = _weekdays(cron.weekdays)
    if cron.day_star or cron.weekday_star:
        return [f"{weekdays}*-{months}-{days} {clock}"]
    return [f"*-{months}-{days} {clock}", f"{weekdays}*-{months}-* {clock}"]


def _weekdays(days: frozenset[int]) -> str:
    """`Mon..Fri `, `Sat,Sun ` (empty for every day): runs of three days or more written as ranges."""
    if len(days) == 7:
        return ""
    runs: list[list[int]] = []
    for position in sorted((d - 1) % 7 for d in days):  # systemd's week starts on Monday: Sun..Tue is no range
        if runs and runs[-1][-1] == position - 1:
            runs[-1].append(position)
        else:
            runs.append([position])
    name = [DAY_NAMES[(p + 1) % 7] for p in range(7)]
    parts = [f"{name[r[0]]}..{name[r[-1]]}" if len(r) > 2 else ",".join(name[p] for p in r) for r in runs]
    return ",".join(parts) + " "


def _compress(values: Iterable[int], low: int, high: int) -> str:
    """`*`, `first/step`, `a..b` or a comma list of two-digit numbers."""
    items = sorted(values)
    if items == list(range(low, high + 1)):
        return "*"
    if len(items) > 2:
        step = items[1] - items[0]
        if items == list(range(items[0], high + 1, step)):
            return f"{items[0]:02d}/{step}"
        if step == 1 and items == list(range(items[0], items[-1] + 1)):
            return f"{items[0]:02d}..{items[-1]:02d}"
    return ",".join(f"{v:02d}" for v in items)


def _systemd_word(word: str) -> str:
    """One command-line word, double-quoted as systemd reads it (`%` specifiers and `$` variables escaped)."""
    escaped = word.replace("\\", "\\\\").replace('"', '\\"').replace("%", "%%").replace("$", "$$")
    return f'"{escaped}"'


def _systemd_path(path: str) -> str:
    return path.replace("%", "%%")


def _systemd_text(text: str) -> str:
    return text.replace("%", "%%").replace("\n", " ")


def systemd_dir(env: Mapping[str, str]) -> Path:
    """Where a user's systemd units live: `$XDG_CONFIG_HOME/systemd/user` (default `~/.config/systemd/user`)."""
    config = env.get("XDG_CONFIG_HOME", "").strip() or os.path.join(os.path.expanduser("~"), ".config")
    return Path(config) / "systemd" / "user"
