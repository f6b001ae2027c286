"""Schedules on one machine, no database: `schedule add` refuses what would fail, `export` writes entries whose ticks
never overlap (the crontab line's command run twice at once: one runs, one skips), and `runs --schedule` filters."""

from __future__ import annotations

import json
import os
import queue
import re
import shlex
import shutil
import subprocess
import sys
import threading
from datetime import datetime, timezone
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from lobsterlang.cli import main
from lobsterlang.cron import parse_cron
from lobsterlang.interpret.schedule.export import lobster_command, on_calendar
from lobsterlang.interpret.schedule.timing import next_tick

BRIEFING = """args:
  to:
    required: true
  note:
    default: ""
steps:
  - id: draft
    run: echo "briefing for $LOBSTER_ARG_TO $LOBSTER_ARG_NOTE"
  - id: send
    run: echo sent
"""
BLOCKING = """args:
  ledger: {required: true}
  gate: {required: true}
  note: {default: ""}
steps:
  - id: work
    run: |
      echo "started $LOBSTER_ARG_NOTE" >> "$LOBSTER_ARG_LEDGER"
      read line < "$LOBSTER_ARG_GATE"
"""


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("LOBSTER_BACKEND", raising=False)
    monkeypatch.setenv("LOBSTER_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("TZ", "Europe/Berlin")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "briefing.lobster").write_text(BRIEFING)
    return tmp_path


def lobster(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_an_invalid_cron_expression_is_refused_pointing_into_it(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = lobster(capsys, "schedule", "add", "b", "--cron", "30 7 * * mon-fir", "briefing.lobster",
                           "--args-json", '{"to": "me"}')
    assert code == 1
    assert "--cron:1:14: C002 unknown day name 'fir'" in err and "did you mean `fri`?" in err
    assert " 1 | 30 7 * * mon-fir\n   |              ^^^" in err
    assert "schedule b not added" in err
    assert not (home / "state" / "schedules").exists()


def test_a_missing_required_arg_is_refused_at_the_declaration(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = lobster(capsys, "schedule", "add", "b", "--cron", "@daily", "briefing.lobster", "--args-json", '{"too": 1}')
    assert code == 1
    assert "briefing.lobster:2:3: A001 required arg 'to' has no value" in err
    assert "--args-json:1:2: A002 'too' is not an arg of the workflow" in err and "did you mean 'to'?" in err
    assert not (home / "state" / "schedules").exists()


def test_a_workflow_lint_reports_as_an_error_is_refused_with_lints_diagnostic(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (home / "bad.lobster").write_text("steps:\n  - id: a\n    run: echo $missing.json\n    stdin: $nope.json\n")
    code, _, err = lobster(capsys, "schedule", "add", "b", "--cron", "@daily", "bad.lobster")
    _, _, linted = lobster(capsys, "lint", "--no-cache", "bad.lobster")
    assert code == 1
    first = linted.splitlines()[0] if linted else ""
    assert "L101" in err and first.split(" [")[0] in err  # the same diagnostic as `lobster lint`


@pytest.mark.parametrize(("args", "message"), [
    (["--timezone", "Europe/Berln"], "did you mean 'Europe/Berlin'?"),
    (["--overlap", "skp"], "'skp' is not one of 'skip', 'queue'"),
    (["--catch-up", "alll"], "'alll' is not one of 'none', 'last', 'all'"),
])
def test_bad_options_are_usage_errors(home: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str) -> None:
    code, _, err = lobster(capsys, "schedule", "add", "b", "--cron", "@daily", "briefing.lobster", "--args-json", '{"to": 1}', *args)
    assert code == 2 and message in err, err


def test_bad_names_and_files_are_usage_errors(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = lobster(capsys, "schedule", "add", "../x", "--cron", "@daily", "briefing.lobster")
    assert code == 2 and "schedule name '../x'" in err
    code, _, err = lobster(capsys, "schedule", "add", "b", "--cron", "@daily", "brefing.lobster")
    assert code == 2 and "brefing.lobster: no such file" in err


def test_add_list_pause_resume_remove(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = lobster(capsys, "schedule", "add", "morning", "--cron", "30 7 * * 1-5", "briefing.lobster",
                           "--args-json", '{"to": "me"}')
    assert code == 0 and out.startswith("schedule morning added: 30 7 * * 1-5 in Europe/Berlin, next tick ")
    code, out, err = lobster(capsys, "schedule", "add", "morning", "--cron", "@daily", "briefing.lobster", "--args-json", '{"to": 1}')
    assert code == 2 and "schedule morning exists (hint: --replace" in err
    [row] = json.loads(lobster(capsys, "schedule", "list", "--json")[1])
    assert row["timezone"] == "Europe/Berlin" and row["catchUp"] == "last" and row["overlap"] == "skip"
    ticks = datetime.fromisoformat(row["nextTick"]).astimezone(ZoneInfo("Europe/Berlin"))
    assert (ticks.hour, ticks.minute, ticks.isoweekday() <= 5) == (7, 30, True) and row["lastRun"] is None
    assert lobster(capsys, "schedule", "pause", "morning")[1] == "schedule morning paused\n"
    [row] = json.loads(lobster(capsys, "schedule", "list", "--json")[1])
    assert row["paused"] and row["nextTick"] is None
    assert " Europe/Berlin  paused " in lobster(capsys, "schedule", "list")[1].splitlines()[1]
    assert lobster(capsys, "schedule", "resume", "morning")[1].startswith("schedule morning resumed: next tick ")
    code, _, err = lobster(capsys, "schedule", "remove", "mornin")
    assert code == 2 and "did you mean 'morning'?" in err
    assert lobster(capsys, "schedule", "remove", "morning")[1] == "schedule morning removed\n"
    assert lobster(capsys, "schedule", "list")[1] == "No schedules (lobster schedule add NAME --cron EXPR FILE).\n"


def test_run_now_runs_a_tick_here_and_list_shows_it(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lobster(capsys, "schedule", "add", "morning", "--cron", "30 7 * * 1-5", "briefing.lobster", "--args-json", '{"to": "me"}')
    code, out, _ = lobster(capsys, "schedule", "run-now", "morning", "--mode", "tool")
    assert code == 0 and json.loads(out)["output"] == ["sent\n"]
    [row] = json.loads(lobster(capsys, "schedule", "list", "--json")[1])
    assert row["lastRun"]["status"] == "ok"


GATED = "steps:\n  - id: draft\n    run: echo draft\n  - id: approve\n    approval: Send it?\n  - id: send\n    run: echo sent\n    when: $approve.approved\n"


def test_a_tick_halted_at_a_gate_is_listed_by_schedule(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (home / "gated.lobster").write_text(GATED)
    lobster(capsys, "schedule", "add", "gated", "--cron", "@daily", "gated.lobster")
    assert lobster(capsys, "run", "--mode", "tool", "--schedule", "gated", "gated.lobster")[0] == 0
    assert lobster(capsys, "run", "--mode", "tool", "gated.lobster")[0] == 0  # not a tick
    runs = json.loads(lobster(capsys, "runs", "--json", "--schedule", "gated")[1])
    assert [(r["waitingGate"], r["schedule"]) for r in runs] == [("approve", "gated")]
    assert len(json.loads(lobster(capsys, "runs", "--json")[1])) == 2
    [row] = json.loads(lobster(capsys, "schedule", "list", "--json")[1])
    assert row["lastRun"] == {"at": row["lastRun"]["at"], "runId": runs[0]["id"], "status": "waiting at approve"}
    assert lobster(capsys, "runs", "--schedule", "other")[1] == "No unfinished runs of schedule other.\n"


def test_a_paused_schedule_runs_nothing_from_cron(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lobster(capsys, "schedule", "add", "morning", "--cron", "@daily", "briefing.lobster", "--args-json", '{"to": "me"}')
    lobster(capsys, "schedule", "pause", "morning")
    code, out, err = lobster(capsys, "run", "--schedule", "morning", "--args-json", '{"to": "me"}', "briefing.lobster")
    assert (code, out) == (0, "") and "schedule morning is paused" in err


def test_run_schedule_options_are_checked(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert "--overlap goes with --schedule" in lobster(capsys, "run", "--overlap", "queue", "briefing.lobster")[2]
    assert "--overlap must be skip or queue" in lobster(capsys, "run", "--schedule", "a", "--overlap", "queu", "briefing.lobster")[2]
    assert "need no --detach" in lobster(capsys, "run", "--schedule", "a", "--detach", "briefing.lobster")[2]
    assert "schedule name 'a/b'" in lobster(capsys, "run", "--schedule", "a/b", "briefing.lobster", "--args-json", '{"to": 1}')[2]


def _crontab_command(line: str) -> str:
    """What cron runs for `line`: the text after the five time fields, `\\%` read as `%` (a bare `%` would end it)."""
    command = line.split(None, 1 if line.startswith("@") else 5)[-1]
    assert re.search(r"(?<!\\)%", command) is None, command
    return command.replace("\\%", "%")


def _first_to_exit(processes: list[subprocess.Popen[bytes]]) -> subprocess.Popen[bytes]:
    ended: queue.Queue[subprocess.Popen[bytes]] = queue.Queue()

    def watch(process: subprocess.Popen[bytes]) -> None:
        process.wait()
        ended.put(process)

    for process in processes:
        threading.Thread(target=watch, args=(process,), daemon=True).start()
    return ended.get(timeout=120)


def test_the_crontab_lines_command_run_twice_at_once_runs_once(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (home / "blocking.lobster").write_text(BLOCKING)
    os.mkfifo(home / "gate")
    args = {"ledger": str(home / "ledger"), "gate": str(home / "gate"), "note": "100% it's $HOME"}
    lobster(capsys, "schedule", "add", "twice", "--cron", "*/5 * * * *", "--timezone", "UTC", "blocking.lobster",
            "--args-json", json.dumps(args))
    code, entry, warnings = lobster(capsys, "schedule", "export", "--crontab", "twice")
    assert code == 0 and "cron does not run ticks missed" in warnings
    assert entry.splitlines()[:3] == [
        "# lobster schedule twice: */5 * * * * in UTC (lobster schedule export --crontab twice)",
        "# CRON_TZ is read by cronie and applies to the lines below it; a cron without it uses the machine's zone",
        "CRON_TZ=UTC"]
    line = entry.splitlines()[3]
    assert line.startswith("*/5 * * * * cd ") and "\\%" in line
    command = _crontab_command(line)
    env = {k: v for k, v in os.environ.items() if k != "LOBSTER_STATE_DIR"}  # the line itself says where state lives
    ticks = [subprocess.Popen(["/bin/sh", "-c", command], env=env) for _ in range(2)]
    skipper = _first_to_exit(ticks)  # the other one holds the lock, blocked in its step until the gate opens
    assert skipper.returncode == 0
    with open(home / "gate", "w") as gate:
        gate.write("go\n")
    runner = next(t for t in ticks if t is not skipper)
    assert runner.wait(timeout=120) == 0
    assert (home / "ledger").read_text() == "started 100% it's $HOME\n"
    log = (home / "state" / "schedules" / "twice.log").read_text()
    assert len(re.findall(r"schedule twice skipped: its previous run \((pid \d+, since [^)]+|just started)\) is still running", log)) == 1
    [row] = json.loads(lobster(capsys, "schedule", "list", "--json")[1])
    assert row["lastRun"]["status"] == "ok"


def test_overlap_queue_waits_for_the_running_tick(home: Path) -> None:
    (home / "blocking.lobster").write_text(BLOCKING)
    for fifo in ("gate", "ledger"):  # the step says it started through the ledger, and waits for the gate
        os.mkfifo(home / fifo)
    argv = [sys.executable, "-m", "lobsterlang", "run", "--schedule", "q", "--overlap", "queue", "--args-json",
            json.dumps({"ledger": str(home / "ledger"), "gate": str(home / "gate")}), "blocking.lobster"]
    first = subprocess.Popen(argv, stdout=subprocess.DEVNULL)
    assert (home / "ledger").read_text() == "started \n"  # the first tick holds the lock: it is in its step
    second = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert second.stderr is not None
    assert "schedule q waiting for its previous run (pid" in second.stderr.readline().decode()
    (home / "gate").write_text("go\n")
    assert first.wait(timeout=120) == 0
    assert (home / "ledger").read_text() == "started \n"  # then the second one runs
    (home / "gate").write_text("go\n")
    assert second.wait(timeout=120) == 0


def test_the_systemd_units_verify_and_name_the_same_times(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed")
    lobster(capsys, "schedule", "add", "morning", "--cron", "30 7 * * mon-fri", "briefing.lobster",
            "--args-json", json.dumps({"to": "a \"quoted\" $USER 50%"}), "--catch-up", "all")
    code, out, err = lobster(capsys, "schedule", "export", "--systemd", "morning", "--dir", str(home / "units"))
    assert code == 0 and "wrote" in out and "not every missed tick" in err
    timer = (home / "units" / "lobster-morning.timer").read_text()
    assert "OnCalendar=Mon..Fri *-*-* 07:30:00 Europe/Berlin\n" in timer and "Persistent=true" in timer
    verified = subprocess.run([analyze, "verify", "--man=no", *map(str, sorted((home / "units").iterdir()))],
                              capture_output=True, text=True)
    assert verified.returncode == 0, verified.stderr


SYSTEMD_CASES = ["30 7 * * 1-5", "*/15 9-17 * * *", "0 0 1,15 * mon", "5/20 */3 * 2-11 *", "0 12 */2 * sun",
                 "0 0 1 1 *", "59 23 31 * *", "@hourly", "10,20 4 * jan,jul 0-2"]


@pytest.mark.parametrize("text", SYSTEMD_CASES)
def test_systemd_fires_at_the_same_minutes_as_the_cron_expression(text: str) -> None:
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed")
    cron, _ = parse_cron(text)
    assert cron is not None
    base = datetime(2026, 1, 1, tzinfo=timezone.utc)
    shown = subprocess.run([analyze, "calendar", f"--base-time=@{int(base.timestamp())}", "--iterations=12",
                            *(f"{c} UTC" for c in on_calendar(cron))], capture_output=True, text=True, check=True).stdout
    theirs = sorted({datetime.strptime(m, "%Y-%m-%d %H:%M:%S").replace(tzinfo=timezone.utc)
                     for m in re.findall(r"(?:Next elapse|Iter\. #\d+): \w+ (\S+ \S+) UTC", shown)})[:12]
    ours: list[Any] = []
    moment = base
    while len(ours) < 12:
        moment = next_tick(cron, ZoneInfo("UTC"), moment)  # type: ignore[assignment]
        ours.append(moment)
    assert theirs == ours, shown


def test_the_tick_command_is_shell_safe(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lobster(capsys, "schedule", "add", "q", "--cron", "@daily", "briefing.lobster", "--args-json", json.dumps({"to": "'; rm -rf ~; '"}),
            "--overlap", "queue", "--timezone", "Europe/Berlin")
    line = lobster(capsys, "schedule", "export", "--crontab", "q")[1].splitlines()[-1]
    words = shlex.split(_crontab_command(line).split(" >>")[0].split("&& ", 1)[1])
    assert words[0] == f"LOBSTER_STATE_DIR={home / 'state'}"
    assert words[1:] == [*lobster_command(), "run", "--schedule", "q", "--overlap", "queue", "--args-json",
                     json.dumps({"to": "'; rm -rf ~; '"}, separators=(",", ":")), str(home / "briefing.lobster")]
    assert "CRON_TZ" not in lobster(capsys, "schedule", "export", "--crontab", "q")[1]  # the machine's own zone
