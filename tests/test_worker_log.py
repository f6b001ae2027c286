"""`lobster worker` says what it does (issue 30 item 10): where it connected, its queue and concurrency, each run it
takes and how it ended, each schedule tick; `--quiet` silences all of it."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from pg_server import pg_root, pg_url  # noqa: F401  (fixtures used by name)

from lobsterlang.interpret.backend.worker import logged_run
from lobsterlang.interpret.backend.workerlog import WorkerLog, outcome

CLI = "import sys; from lobsterlang.cli import main; sys.exit(main(sys.argv[1:]))"
LINE = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d lobster worker: ")


def _lines(out: io.StringIO) -> list[str]:
    lines = out.getvalue().splitlines()
    assert all(LINE.match(line) for line in lines), lines
    return [LINE.sub("", line) for line in lines]


def test_a_run_is_logged_when_taken_and_when_it_ends() -> None:
    out = io.StringIO()
    envelope = {"ok": True, "status": "needs_approval", "requiresApproval": {"prompt": "Ship it?"}}
    assert logged_run(WorkerLog(out), "r1", "/srv", lambda run_id, cwd: envelope) == envelope
    assert _lines(out) == ["run r1: taken (cwd /srv)", "run r1: waiting for approval: Ship it?"]


def test_a_run_that_raises_is_logged_as_failed() -> None:
    out = io.StringIO()

    def broken(run_id: str, cwd: str) -> dict[str, Any]:
        raise RuntimeError("database went away\nmore")

    with pytest.raises(RuntimeError):
        logged_run(WorkerLog(out), "r2", "/srv", broken)
    assert _lines(out) == ["run r2: taken (cwd /srv)", "run r2: failed: database went away"]


@pytest.mark.parametrize("envelope, said", [
    ({"ok": True, "status": "ok", "output": []}, "finished"),
    ({"ok": True, "status": "needs_input", "requiresInput": {"prompt": "Why?"}}, "waiting for input: Why?"),
    ({"ok": True, "status": "cancelled"}, "cancelled"),
    ({"ok": False, "error": {"type": "runtime_error", "message": "exec failed (1): boom\nline 2"}}, "failed: exec failed (1): boom"),
])
def test_how_a_run_ended(envelope: dict[str, Any], said: str) -> None:
    assert outcome(envelope) == said


def test_quiet_says_nothing_and_the_scheduler_speaks_through_the_same_log() -> None:
    from lobsterlang.interpret.backend.scheduler import Scheduler

    quiet = WorkerLog(None)
    quiet.say("anything")
    scheduler = Scheduler.__new__(Scheduler)  # its log only: no database
    out = io.StringIO()
    scheduler.log = WorkerLog(out)
    scheduler.say("schedule nightly: tick 06:15 started run r3")
    assert _lines(out) == ["schedule nightly: tick 06:15 started run r3"]
    scheduler.log = quiet
    scheduler.say("not shown")


def _wait_for_line(path: Path, pattern: str, timeout: float = 120) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for line in path.read_text(errors="replace").splitlines():
            if re.search(pattern, line):
                return line
        time.sleep(0.1)
    raise AssertionError(f"no line matching {pattern!r} in:\n{path.read_text(errors='replace')}")


def _worker(tmp_path: Path, url: str, *flags: str) -> tuple[dict[str, str], subprocess.Popen[bytes], Path]:
    env = {**os.environ, "LOBSTER_BACKEND": url, "LOBSTER_STATE_DIR": str(tmp_path / "state")}
    (tmp_path / "hi.lobster").write_text("steps:\n  - id: a\n    run: echo hi\n")
    log = tmp_path / "worker.log"
    with log.open("wb") as out:
        worker = subprocess.Popen([sys.executable, "-c", CLI, "worker", *flags], env=env, stdout=out, stderr=out, cwd=tmp_path)
    return env, worker, log


def _serving(url: str) -> None:
    """Wait until a worker writes heartbeats (its queue exists from then on)."""
    import psycopg

    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        with psycopg.connect(url) as conn:
            try:
                if conn.execute("SELECT count(*) FROM lobster.workers").fetchone()[0]:  # type: ignore[index]
                    return
            except psycopg.errors.UndefinedTable:
                pass
        time.sleep(0.2)
    raise AssertionError("no worker came up")


def _queue_and_wait(env: dict[str, str], cwd: Path) -> str:
    """Queue hi.lobster once a worker serves; its run id once the worker finished it (`lobster runs` no longer lists it)."""
    _serving(env["LOBSTER_BACKEND"])
    queued = subprocess.run([sys.executable, "-c", CLI, "run", "--mode", "tool", "--detach", "hi.lobster"], env=env,
                            capture_output=True, text=True, cwd=cwd, timeout=120)
    run_id = str(json.loads(queued.stdout)["runId"])
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        listed = subprocess.run([sys.executable, "-c", CLI, "runs", "--json"], env=env, capture_output=True, text=True,
                                cwd=cwd, timeout=120)
        if run_id not in listed.stdout:
            return run_id
        time.sleep(0.2)
    raise AssertionError(f"run {run_id} did not finish")


@pytest.mark.slow
def test_a_worker_says_where_it_serves_and_each_run(tmp_path: Path, pg_url: str) -> None:  # noqa: F811
    from lobsterlang.interpret.backend.redact import redacted

    env, worker, log = _worker(tmp_path, pg_url)
    try:
        started = _wait_for_line(log, r"lobster worker: connected to ")
        assert started.endswith(f"connected to {redacted(pg_url)}; serving queue lobster_runs with concurrency 1 as "
                                f"{started.rsplit(' as ', 1)[1]}")
        run_id = _queue_and_wait(env, tmp_path)
        _wait_for_line(log, rf"run {run_id}: taken \(cwd ")
        _wait_for_line(log, rf"run {run_id}: finished$")
    finally:
        worker.terminate()
        worker.wait(timeout=120)
    assert "lobster worker: stopping: running runs have 30 s to finish" in log.read_text()


@pytest.mark.slow
def test_a_quiet_worker_prints_nothing(tmp_path: Path, pg_url: str) -> None:  # noqa: F811
    env, worker, log = _worker(tmp_path, pg_url, "--quiet")
    try:
        _queue_and_wait(env, tmp_path)
    finally:
        worker.terminate()
        worker.wait(timeout=120)
    assert "lobster worker:" not in log.read_text()
