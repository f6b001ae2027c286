"""Two `lobster worker` processes on one Postgres: queued runs spread over both, a kill -9 loses nothing.

A worker killed mid-run (its step waits until the test lets it go, so the kill lands mid-run under any load): its
runs move to the other worker; no step recorded as done runs twice (the side effects are counted in a ledger); only a
step reported uncertain may need `--retry-step`.
An approval is answered from a third process. The ≥ 20-trial version is bench/backend_bench.py.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any, ClassVar

import pytest
from pg_server import pg_root, pg_url  # noqa: F401  (fixtures used by name)

CLI = "import sys; from lobsterlang.cli import main; sys.exit(main(sys.argv[1:]))"
STEPS = ["s1", "s2", "s3", "s4", "s5"]
HANG = ('; echo "$PPID $$" > "$HANGING/.$LOBSTER_ARG_TAG" && mv "$HANGING/.$LOBSTER_ARG_TAG" "$HANGING/$LOBSTER_ARG_TAG"'
        '; until [ -e "$RELEASE" ]; do sleep 0.05; done')
"""What the third step does after its ledger line: names its worker and itself in `$HANGING/TAG`, then waits for
`$RELEASE`, so the test kills a worker in the middle of a run however slow the machine is."""
WORKFLOW = "steps:\n" + "".join(
    f'  - id: {s}\n    run: echo "$LOBSTER_ARG_TAG {s}" >> "$LEDGER"{HANG if s == "s3" else ""}\n' for s in STEPS)
GATED = 'steps:\n  - id: ok\n    approval: Go?\n  - id: after\n    run: echo "gated after" >> "$LEDGER"\n'


def lobster(env: dict[str, str], *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", CLI, *args], env=env, capture_output=True, text=True, timeout=timeout)


def start_worker(env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    with log.open("ab") as out:
        return subprocess.Popen([sys.executable, "-c", CLI, "worker"], env=env, stdout=out, stderr=out)


def detach(env: dict[str, str], path: Path) -> str:
    """`lobster run PATH --detach` in a process of its own; the queued run's id."""
    return str(json.loads(lobster(env, "run", "--mode", "tool", str(path), "--detach").stdout)["runId"])


def queued_on_a_worker(tmp_path: Path, url: str, workflow: str) -> tuple[dict[str, str], subprocess.Popen[bytes], str]:
    """One live worker and `workflow` queued for it: the environment, the worker, the run id."""
    env = worker_env(tmp_path, url)
    (tmp_path / "flow.lobster").write_text(workflow)
    worker = live_worker(env, tmp_path / "w1.log", 1)
    return env, worker, detach(env, tmp_path / "flow.lobster")


def hung(tmp_path: Path) -> bool:
    """Whether a step hangs (it wrote its shell's pid to `$SLEEPER`)."""
    sleeper = tmp_path / "sleeper"
    return sleeper.exists() and sleeper.read_text().strip() != ""


def replace_killed(env: dict[str, str], tmp_path: Path, worker: subprocess.Popen[bytes]) -> subprocess.Popen[bytes]:
    """kill -9 `worker` (and the step shell that hangs on it); a fresh worker started in its place."""
    worker.kill()
    worker.wait()
    os.kill(int((tmp_path / "sleeper").read_text()), signal.SIGKILL)
    return start_worker(env, tmp_path / "w2.log")


def worker_env(tmp_path: Path, url: str) -> dict[str, str]:
    """The environment of every process of one test: the database, a ledger, a state dir that must stay unused."""
    (tmp_path / "hanging").mkdir(exist_ok=True)
    return {**os.environ, "LOBSTER_BACKEND": url, "LEDGER": str(tmp_path / "ledger"), "MARK": str(tmp_path / "mark"),
            "SLEEPER": str(tmp_path / "sleeper"), "LOBSTER_STATE_DIR": str(tmp_path / "state"),
            "HANGING": str(tmp_path / "hanging"), "RELEASE": str(tmp_path / "release")}


def live_worker(env: dict[str, str], log: Path, count: int) -> subprocess.Popen[bytes]:
    """A worker started and heard from: `count` workers now write heartbeats."""
    worker = start_worker(env, log)
    wait_for(lambda: workers_alive(env["LOBSTER_BACKEND"]) >= count, 60, f"worker {count}")
    return worker


def wait_for(predicate: Any, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.2)


def ledger(path: Path) -> Counter[str]:
    return Counter(path.read_text().splitlines()) if path.exists() else Counter()


def unfinished(env: dict[str, str]) -> list[dict[str, Any]]:
    """What `lobster runs --json` lists (read in this process: polling must stay cheap)."""
    from lobsterlang.cli.runs_cmd import run_row
    from lobsterlang.interpret.wiring import store_from_env
    from lobsterlang.interpret.workflow.stores import backend_of

    store = store_from_env(env)
    try:
        backend = backend_of(store)
        logs = backend.list_runs()
        holders = backend.holders([log.run_id for log in logs])
        return [run_row(log, holders.get(log.run_id)) for log in logs]
    finally:
        store.close()  # type: ignore[attr-defined]


def workers_alive(url: str) -> int:
    import psycopg

    with psycopg.connect(url) as conn:
        try:
            return int(conn.execute("SELECT count(*) FROM lobster.workers").fetchone()[0])  # type: ignore[index]
        except psycopg.errors.UndefinedTable:
            return 0


def not_done(url: str) -> int:
    """DBOS workflows not finished: a killed worker's stay PENDING until another worker takes them over."""
    import psycopg

    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT count(*) FROM dbos.workflow_status WHERE status <> 'SUCCESS'").fetchone()
    return int(row[0]) if row else 0


@pytest.mark.slow
def test_two_workers_a_kill_and_an_approval_from_elsewhere(tmp_path: Path, pg_url: str) -> None:  # noqa: F811
    env = worker_env(tmp_path, pg_url)
    (tmp_path / "five.lobster").write_text(WORKFLOW)
    (tmp_path / "gated.lobster").write_text(GATED)
    first = live_worker(env, tmp_path / "w1.log", 1)
    second = live_worker(env, tmp_path / "w2.log", 2)
    try:
        tags = [f"t{i}" for i in range(4)]
        for tag in tags:
            queued = lobster(env, "run", "--mode", "tool", str(tmp_path / "five.lobster"), "--detach",
                             "--args-json", json.dumps({"tag": tag}))
            assert json.loads(queued.stdout)["status"] == "queued", queued
        wait_for(lambda: _hanging(tmp_path), 60, "a run to reach its third step on a worker")
        worker_pid, shell_pid = _hanging(tmp_path)[0]
        [victim] = [w for w in (first, second) if w.pid == worker_pid]  # DBOS may give one worker all the runs
        victim.kill()
        victim.wait()
        os.kill(shell_pid, signal.SIGKILL)  # the step's shell outlived its worker
        (tmp_path / "release").touch()  # the other worker's third steps go on
        wait_for(lambda: not_done(pg_url) == 0, 60, "the killed worker's runs to be taken over")
        assert all(r["uncertainStep"] for r in unfinished(env))
        for run in unfinished(env):
            retried = json.loads(lobster(env, "resume", "--run", run["id"], "--retry-step").stdout)
            assert retried["ok"], retried
        _check_ledger(ledger(tmp_path / "ledger"), tags, retried_allowed=True)
        _approval_from_a_third_process(env, tmp_path)
    finally:
        (tmp_path / "release").touch()  # no step shell is left waiting when the test fails early
        for worker in (first, second):
            if worker.poll() is None:
                worker.send_signal(signal.SIGTERM)
                worker.wait(timeout=60)
    survivor = second if victim is first else first
    assert survivor.returncode == 0, (tmp_path / "w1.log").read_text()[-1000:] + (tmp_path / "w2.log").read_text()[-1000:]


def _hanging(tmp_path: Path) -> list[tuple[int, int]]:
    """(worker pid, step shell pid) of each run whose third step waits for `$RELEASE` now."""
    return [(int(w), int(p)) for f in sorted((tmp_path / "hanging").glob("t*")) for w, p in [f.read_text().split()]]


def _check_ledger(counts: Counter[str], tags: list[str], *, retried_allowed: bool) -> None:
    for tag in tags:
        per_step = [counts[f"{tag} {s}"] for s in STEPS]
        assert all(n >= 1 for n in per_step), (tag, per_step)
        assert sum(n - 1 for n in per_step) <= (1 if retried_allowed else 0), (tag, per_step)


def _approval_from_a_third_process(env: dict[str, str], tmp_path: Path) -> None:
    queued = json.loads(lobster(env, "run", "--mode", "tool", str(tmp_path / "gated.lobster"), "--detach").stdout)
    wait_for(lambda: any(r["id"] == queued["runId"] and r["waitingGate"] for r in unfinished(env)), 60, "the gate")
    answered = json.loads(lobster(env, "resume", "--run", queued["runId"], "--approve", "yes").stdout)
    assert answered["ok"] and answered["status"] == "queued", answered  # the rest runs on a worker
    wait_for(lambda: not any(r["id"] == queued["runId"] for r in unfinished(env)), 60, "a worker to finish the run")
    assert ledger(tmp_path / "ledger")["gated after"] == 1


AFTER_GATE = ('steps:\n  - id: ok\n    approval: Go?\n'
              '  - id: after\n    run: echo "after $PPID $(hostname)" >> "$LEDGER"\n')


@pytest.mark.slow
def test_an_approval_continues_on_a_worker_not_in_the_resuming_process(tmp_path: Path, pg_url: str) -> None:  # noqa: F811
    env, first, run_id = queued_on_a_worker(tmp_path, pg_url, AFTER_GATE)
    wait_for(lambda: any(r["id"] == run_id and r["waitingGate"] for r in unfinished(env)), 60, "the gate")
    first.send_signal(signal.SIGTERM)  # no worker runs while the approval arrives: the continuation must wait for one
    assert first.wait(timeout=60) == 0
    resumes = [subprocess.Popen([sys.executable, "-c", CLI, "resume", "--run", run_id, "--approve", "yes"], env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(3)]
    answers = [json.loads(p.communicate(timeout=60)[0]) for p in resumes]
    assert sorted(a.get("status", "error") for a in answers) == ["error", "error", "queued"], answers
    assert not (tmp_path / "ledger").exists()  # the resuming processes ran nothing
    [row] = unfinished(env)
    assert row["queued"] and row["id"] == run_id
    second = start_worker(env, tmp_path / "w2.log")
    try:
        wait_for(lambda: not unfinished(env), 60, "a worker to finish the run")
    finally:
        second.send_signal(signal.SIGTERM)
        second.wait(timeout=60)
    [line] = (tmp_path / "ledger").read_text().splitlines()  # exactly once
    assert line == f"after {second.pid} {socket.gethostname()}"
    final = json.loads(lobster(env, "resume", "--run", run_id).stdout)
    assert final["ok"] and final["status"] == "ok", final


@pytest.mark.slow
def test_a_worker_killed_in_a_for_each_leaves_its_recorded_items_done(tmp_path: Path, pg_url: str) -> None:  # noqa: F811
    from test_branch_journal import LOOP

    env, first, run_id = queued_on_a_worker(tmp_path, pg_url, LOOP)
    wait_for(lambda: hung(tmp_path), 60, "item 3 to hang on the worker")
    [row] = unfinished(env)  # seen from this process through the database: the worker holds the run
    assert row["running"] and row["pid"] == first.pid and row["host"] == socket.gethostname(), row
    second = replace_killed(env, tmp_path, first)  # kill -9 in the middle of item 3
    try:
        wait_for(lambda: not_done(pg_url) == 0, 90, "the second worker to take the run over")
        [row] = unfinished(env)  # the second worker refused to run item 3 again on its own
        assert row["id"] == run_id and row["uncertainBranches"] == ["3/effect"], row
        assert ledger(tmp_path / "ledger") == Counter(f"item {n}" for n in range(4))
        done = json.loads(lobster(env, "resume", "--run", run_id, "--retry-step").stdout)
    finally:
        second.send_signal(signal.SIGTERM)
        second.wait(timeout=60)
    assert done["ok"] and [it["twice"] for it in done["output"]] == [{"value": n} for n in range(6)], done
    assert ledger(tmp_path / "ledger") == Counter({**{f"item {n}": 1 for n in range(6)}, "item 3": 2})


SPEND_GATED = """cost_limit: {max_usd: 1, action: stop}
steps:
  - id: first
    run: |
      echo '{"model": "gpt-4o", "usage": {"inputTokens": 240000, "outputTokens": 0}}'
  - id: ok
    approval: Spend more?
  - id: second
    run: |
      echo second >> "$LEDGER"
      echo '{"model": "gpt-4o", "usage": {"inputTokens": 240000, "outputTokens": 0}}'
"""


@pytest.mark.slow
def test_a_cost_cap_holds_on_the_worker_that_continues_after_a_gate(tmp_path: Path, pg_url: str) -> None:  # noqa: F811
    env, worker, run_id = queued_on_a_worker(tmp_path, pg_url, SPEND_GATED)
    try:
        wait_for(lambda: any(r["id"] == run_id and r["waitingGate"] for r in unfinished(env)), 60, "the gate")
        answered = json.loads(lobster(env, "resume", "--run", run_id, "--approve", "yes").stdout)
        assert answered["status"] == "queued", answered  # the first step's $0.60 must travel with the run
        wait_for(lambda: not unfinished(env), 60, "the worker to end the run")
        final = json.loads(lobster(env, "resume", "--run", run_id).stdout)
    finally:
        worker.send_signal(signal.SIGTERM)
        worker.wait(timeout=60)
    assert not final["ok"] and "Cost limit exceeded: $1.2000 > $1.00 limit" in final["error"]["message"], final
    assert ledger(tmp_path / "ledger") == Counter({"second": 1})


FLAKY = """steps:
  - id: flaky
    retry: {max: 2, delay_ms: 0}
    run: echo flaky >> "$LEDGER"; [ -e "$MARK" ] || { touch "$MARK"; echo $$ > "$SLEEPER"; exec sleep 30; }
  - id: after
    run: echo after >> "$LEDGER"
"""


@pytest.mark.slow
def test_a_step_with_a_retry_policy_is_run_again_by_the_next_worker_without_a_flag(tmp_path: Path, pg_url: str) -> None:  # noqa: F811
    env, first, run_id = queued_on_a_worker(tmp_path, pg_url, FLAKY)
    wait_for(lambda: hung(tmp_path), 60, "the first attempt to hang")
    second = replace_killed(env, tmp_path, first)
    try:
        wait_for(lambda: not unfinished(env), 90, "the second worker to finish the run")
    finally:
        second.send_signal(signal.SIGTERM)
        second.wait(timeout=60)
    assert ledger(tmp_path / "ledger") == Counter({"flaky": 2, "after": 1})
    final = json.loads(lobster(env, "resume", "--run", run_id).stdout)
    assert final["ok"] and final["status"] == "ok", final


class _NoDbos:
    """Stands in for DBOS in `serve`: this process starts the worker's database side only (and counts launches)."""

    launched: ClassVar[list[int]] = []

    def __init__(self, config: dict[str, Any]) -> None:
        self.config = config

    @classmethod
    def launch(cls) -> None:
        cls.launched.append(1)

    register_queue = destroy = staticmethod(lambda *args, **kwargs: None)
    step = workflow = staticmethod(lambda **kwargs: lambda function: function)


class _NoDbosClient:
    """Stands in for DBOS's client in the worker's scheduler (which fires no tick here: no schedule exists)."""

    def __init__(self, **kwargs: Any) -> None:
        self.kwargs = kwargs

    destroy = staticmethod(lambda: None)


@pytest.mark.parametrize("trial", range(2))
def test_workers_started_together_on_a_fresh_database_all_start(pg_url: str, monkeypatch: pytest.MonkeyPatch,  # noqa: F811
                                                                  trial: int) -> None:
    """Issue 29 item 11: eight workers let go at one barrier on a new database; none dies of a table created twice."""
    import threading
    import types

    from lobsterlang.interpret.backend.worker import serve

    monkeypatch.setitem(sys.modules, "dbos", types.SimpleNamespace(DBOS=_NoDbos, DBOSClient=_NoDbosClient))
    monkeypatch.setattr(_NoDbos, "launched", [])
    barrier, stop, failures = threading.Barrier(8), threading.Event(), []

    def start() -> None:
        barrier.wait()
        try:
            serve(pg_url, stop)
        except Exception as exc:  # the failure is the finding
            failures.append(repr(exc))

    threads = [threading.Thread(target=start) for _ in range(8)]
    for thread in threads:
        thread.start()
    try:
        wait_for(lambda: failures or len(_NoDbos.launched) + sum(not t.is_alive() for t in threads) >= 8, 60, "eight starts")
    finally:
        stop.set()
        for thread in threads:
            thread.join()
    assert failures == [] and len(_NoDbos.launched) == 8
    assert workers_alive(pg_url) == 0  # each one also went away cleanly


@pytest.mark.slow
def test_the_quick_start_two_workers_at_once_both_come_up(tmp_path: Path, pg_url: str) -> None:  # noqa: F811
    """The workers page's quick start (`lobster worker & lobster worker &`) on a fresh database: both run."""
    env = worker_env(tmp_path, pg_url)
    workers = [start_worker(env, tmp_path / f"w{n}.log") for n in (1, 2)]
    try:
        wait_for(lambda: workers_alive(pg_url) >= 2 or any(w.poll() is not None for w in workers), 120, "two workers")
        assert [w.poll() for w in workers] == [None, None], [(tmp_path / f"w{n}.log").read_text()[-2000:] for n in (1, 2)]
    finally:
        for worker in workers:
            if worker.poll() is None:
                worker.send_signal(signal.SIGTERM)
                worker.wait(timeout=60)


@pytest.mark.parametrize("argv", [["resume", "--run", "rnoworker0001"], ["cancel", "rnoworker0001"]])
def test_a_run_id_on_a_database_no_worker_used_is_not_found(argv: list[str], tmp_path: Path, pg_url: str,  # noqa: F811
                                                            capsys: pytest.CaptureFixture[str],
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 29 item 10: DBOS's tables do not exist until a worker starts; asking for a run's result is no traceback."""
    from lobsterlang.cli import main

    monkeypatch.setenv("LOBSTER_BACKEND", pg_url)
    monkeypatch.setenv("LOBSTER_STATE_DIR", str(tmp_path / "state"))
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 2 and "Run rnoworker0001 not found" in out + err and "Traceback" not in out + err, (out, err)


PAUSING = """steps:
  - id: s1
    run: echo s1 >> "$LEDGER"
  - id: s2
    run: echo s2 >> "$LEDGER"; echo $$ > "$SLEEPER"; until [ -e "$RELEASE" ]; do sleep 0.05; done
  - id: s3
    run: echo s3 >> "$LEDGER"
"""


def _heartbeat_of(url: str, pid: int) -> bool:
    import psycopg

    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT count(*) FROM lobster.workers WHERE executor_id LIKE %s", (f"%-{pid}",)).fetchone()
    return bool(row and row[0])


@pytest.mark.slow
def test_a_worker_paused_past_its_lease_keeps_its_run_and_its_result(tmp_path: Path, pg_url: str) -> None:  # noqa: F811
    """A worker whose heartbeat stops while it is alive (stopped, or starved on a busy machine) loses its lease: another
    worker takes its row and tries its run, which the paused one still holds. Each step runs once, and the run's
    result is the one the paused worker finishes with, not the other's refusal."""
    env, first, run_id = queued_on_a_worker(tmp_path, pg_url, PAUSING)
    wait_for(lambda: hung(tmp_path), 60, "s2 to run on the first worker")
    first.send_signal(signal.SIGSTOP)
    second = start_worker(env, tmp_path / "w2.log")
    try:
        wait_for(lambda: not _heartbeat_of(pg_url, first.pid), 90, "the second worker to take the paused one's lease")
        wait_for(lambda: f"run {run_id}: taken" in (tmp_path / "w2.log").read_text(), 60, "the second worker to take the run")
        first.send_signal(signal.SIGCONT)
        (tmp_path / "release").touch()
        wait_for(lambda: not unfinished(env), 60, "the first worker to finish its run")
        final = json.loads(lobster(env, "resume", "--run", run_id).stdout)
    finally:
        first.send_signal(signal.SIGCONT)
        (tmp_path / "release").touch()
        for worker in (first, second):
            worker.send_signal(signal.SIGTERM)
            worker.wait(timeout=60)
    assert ledger(tmp_path / "ledger") == Counter({"s1": 1, "s2": 1, "s3": 1})
    assert final["ok"] and final["status"] == "ok", (final, (tmp_path / "w2.log").read_text()[-2000:])
