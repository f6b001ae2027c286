"""Backend benchmark: the file journal vs Postgres (inline, 1 worker, 2 workers), approval round trip, kill trials.

    python bench/backend_bench.py [--runs 40] [--kill-runs 100] [--kill-trials 20]

Starts its own Postgres (pgserver). Each run is a 5-step workflow of `true` steps, so the
figures are the backend's overhead, not the steps' work. The kill part runs `--kill-runs`
workflows over two workers and kills (-9) a random worker at a random moment `--kill-trials`
times (starting a fresh one each time), then checks that every run finished and that no
step recorded as done ran twice (only a step left uncertain may run again, via --retry-step).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

CLI = "import sys; from lobsterlang.cli import main; sys.exit(main(sys.argv[1:]))"
STEPS = ("s1", "s2", "s3", "s4", "s5")
FAST = "steps:\n" + "".join(f"  - id: {s}\n    run: 'true'\n" for s in STEPS)
LEDGERED = "steps:\n" + "".join(
    f'  - id: {s}\n    run: sleep 0.05; echo "$LOBSTER_ARG_TAG {s}" >> "$LEDGER"\n' for s in STEPS)
GATED = "steps:\n  - id: ok\n    approval: Go?\n  - id: after\n    run: 'true'\n"


def lobster(env: dict[str, str], *args: str) -> dict[str, Any]:
    out = subprocess.run([sys.executable, "-c", CLI, *args], env=env, capture_output=True, text=True, check=False)
    return json.loads(out.stdout)  # type: ignore[no-any-return]


def sql(url: str, query: str) -> Any:
    import psycopg

    with psycopg.connect(url) as conn:
        return conn.execute(query).fetchall()


def workers(env: dict[str, str], count: int, logs: Path) -> list[subprocess.Popen[bytes]]:
    procs = []
    for _ in range(count):
        with (logs / "workers.log").open("ab") as log:
            procs.append(subprocess.Popen([sys.executable, "-c", CLI, "worker"], env=env, stdout=log, stderr=log))
        wait(lambda: _alive(env["LOBSTER_BACKEND"], procs[-1].pid), 120)
    return procs


def _alive(url: str, pid: int) -> bool:
    """Whether worker `pid` has written its first heartbeat."""
    try:
        return bool(sql(url, f"SELECT 1 FROM lobster.workers WHERE executor_id LIKE '%-{pid}'"))
    except Exception:
        return False


def stop(procs: list[subprocess.Popen[bytes]]) -> None:
    for proc in procs:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
    for proc in procs:
        proc.wait(timeout=120)


def wait(predicate: Any, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError("benchmark step timed out")
        time.sleep(0.05)


def pending(url: str) -> int:
    return int(sql(url, "SELECT count(*) FROM dbos.workflow_status WHERE status NOT IN ('SUCCESS', 'ERROR')")[0][0])


def inline(env: dict[str, str], path: Path, runs: int) -> float:
    """Steps per second running `runs` workflows one after the other in one process each."""
    started = time.perf_counter()
    for _ in range(runs):
        assert lobster(env, "run", "--mode", "tool", str(path))["ok"]
    return runs * len(STEPS) / (time.perf_counter() - started)


def queued(env: dict[str, str], path: Path, runs: int) -> float:
    """Steps per second from the first enqueue to the last run finished on the running workers."""
    started = time.perf_counter()
    enqueue(env, path, [None] * runs)
    wait(lambda: pending(env["LOBSTER_BACKEND"]) == 0, 600)
    return runs * len(STEPS) / (time.perf_counter() - started)


def enqueue(env: dict[str, str], path: Path, args: list[str | None]) -> None:
    """`lobster run PATH --detach` once per args JSON, in this process (no start-up cost per run)."""
    from lobsterlang.interpret.backend.detach import detach_file

    os.environ.update(env)
    with open(os.devnull, "w") as null:
        saved, sys.stdout = sys.stdout, null
        try:
            for given in args:
                assert detach_file(str(path), given, "tool", False) == 0
        finally:
            sys.stdout = saved


def approval_round_trip(env: dict[str, str], path: Path, trials: int) -> float:
    """Median seconds from `resume --id … --approve yes` to its envelope (a fresh process each time)."""
    times = []
    for _ in range(trials):
        halted = lobster(env, "run", "--mode", "tool", str(path))
        started = time.perf_counter()
        assert lobster(env, "resume", "--id", halted["requiresApproval"]["approvalId"], "--approve", "yes")["ok"]
        times.append(time.perf_counter() - started)
    return sorted(times)[len(times) // 2]


def kill_trials(env: dict[str, str], root: Path, runs: int, trials: int) -> dict[str, Any]:
    """`runs` ledgered workflows over two workers, `trials` kill -9s at random moments; the ledger checked."""
    from lobsterlang.cli.runs_cmd import run_row
    from lobsterlang.interpret.wiring import store_from_env
    from lobsterlang.interpret.workflow.stores import backend_of

    rng = random.Random(19)
    path = root / "ledgered.lobster"
    path.write_text(LEDGERED)
    procs = workers(env, 2, root)
    enqueue(env, path, [json.dumps({"tag": f"t{i}"}) for i in range(runs)])
    for _ in range(trials):
        time.sleep(rng.uniform(0.1, 1.5))
        victim = procs.pop(rng.randrange(len(procs)))
        victim.send_signal(signal.SIGKILL)
        victim.wait()
        procs += workers(env, 1, root)
    wait(lambda: pending(env["LOBSTER_BACKEND"]) == 0, 900)
    store = store_from_env(env)
    left = [run_row(log) for log in backend_of(store).list_runs()]
    store.close()  # type: ignore[attr-defined]
    for row in left:
        assert lobster(env, "resume", "--run", row["id"], "--retry-step")["ok"]
    stop(procs)
    counts = Counter((root / "ledger").read_text().splitlines())
    complete = sum(all(counts[f"t{i} {s}"] >= 1 for s in STEPS) for i in range(runs))
    twice = sum(max(0, counts[f"t{i} {s}"] - 1) for i in range(runs) for s in STEPS)
    return {"runs": runs, "kills": trials, "completed": complete, "uncertainRetried": len(left),
            "stepsRunTwice": twice, "ok": complete == runs and twice <= len(left)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--kill-runs", type=int, default=100)
    parser.add_argument("--kill-trials", type=int, default=20)
    parser.add_argument("--kill-only", action="store_true", help="skip the throughput and latency figures")
    options = parser.parse_args()
    import pgserver

    root = Path(tempfile.mkdtemp(prefix="lobster-bench-"))
    server = pgserver.get_server(root / "pg", cleanup_mode="stop")  # type: ignore[attr-defined]
    try:
        report = measure(str(server.get_uri()), root, options)
    finally:
        server.cleanup()
    print(json.dumps(report, indent=2))


def measure(url: str, root: Path, options: argparse.Namespace) -> dict[str, Any]:
    fast, gated = root / "fast.lobster", root / "gated.lobster"
    fast.write_text(FAST)
    gated.write_text(GATED)
    files = {**os.environ, "LOBSTER_STATE_DIR": str(root / "state"), "LEDGER": str(root / "ledger")}
    files.pop("LOBSTER_BACKEND", None)
    db = {**files, "LOBSTER_BACKEND": url}
    report: dict[str, Any] = {"cpus": os.cpu_count(), "runsPerFigure": options.runs}
    if not options.kill_only:
        throughput(report, files, db, fast, gated, root, options.runs)
    if options.kill_trials:
        report["kill"] = kill_trials(db, root, options.kill_runs, options.kill_trials)
    return report


def throughput(report: dict[str, Any], files: dict[str, str], db: dict[str, str], fast: Path, gated: Path, root: Path,
               runs: int) -> None:
    """Steps per second and per-step overhead, inline (one process per run) and on 1 and 2 warm workers."""
    report["file_inline_steps_per_s"] = inline(files, fast, runs)
    report["postgres_inline_steps_per_s"] = inline(db, fast, runs)
    for count in (1, 2):
        procs = workers(db, count, root)
        report[f"postgres_{count}_worker_steps_per_s"] = queued(db, fast, runs)
        stop(procs)
    for name, steps in list(report.items()):
        if name.endswith("_steps_per_s"):
            report[name.replace("_steps_per_s", "_ms_per_step")] = 1000 / steps
    report["file_approval_round_trip_s"] = approval_round_trip(files, gated, 5)
    report["postgres_approval_round_trip_s"] = approval_round_trip(db, gated, 5)


if __name__ == "__main__":
    main()
