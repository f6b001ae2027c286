"""Runtime benchmarks side by side with the reference CLI: `python bench/runtime_bench.py [--reference PATH | --no-reference] [--quick]`.

1. cold start of `lobster run --mode tool 'exec --json --shell "echo [1,2,3]" | json'` (median wall time);
2. 100,000 JSON items through `where | pick | sort | head` (items per second, whole process);
3. peak memory of `head --n 5` over an endless producer, and whether the producer was stopped;
4. three pipeline shapes at 100k and 1M items: CPU, peak RSS and the 1M/100k growth (`scale_bench.py`).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import scale_bench
from harness import add_reference_options, reference_cli

COLD_PIPELINE = 'exec --json --shell "echo [1,2,3]" | json'
THROUGHPUT_PIPELINE = "exec --json --shell 'cat items.json' | where 'n>=50000' | pick id,n | sort --key n --desc | head --n 5"
ENDLESS_PIPELINE = "exec --shell 'echo $$ > producer.pid; exec yes' | head --n 5"
ITEMS = 100_000
ENDLESS_LIMIT_S = 5.0


def ours() -> list[str]:
    script = Path(sys.executable).with_name("lobster")
    return [str(script)] if script.exists() else [sys.executable, "-m", "lobsterlang"]


def environment(folder: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["LOBSTER_STATE_DIR"] = str(folder / "state")
    return env


def wall(argv: list[str], folder: Path) -> float:
    started = time.perf_counter()
    subprocess.run(argv, cwd=folder, env=environment(folder), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - started


def cold_start(cli: list[str], folder: Path, runs: int) -> float:
    argv = [*cli, "run", "--mode", "tool", COLD_PIPELINE]
    wall(argv, folder)
    return statistics.median(wall(argv, folder) for _ in range(runs))


def throughput(cli: list[str], folder: Path, runs: int) -> float:
    argv = [*cli, THROUGHPUT_PIPELINE]
    wall(argv, folder)
    return ITEMS / min(wall(argv, folder) for _ in range(runs))


def endless(cli: list[str], folder: Path) -> tuple[float, float, bool, int]:
    """(peak RSS in MiB, seconds, producer stopped, exit code) for `head --n 5` over `yes`; killed after ENDLESS_LIMIT_S."""
    started = time.perf_counter()
    proc = subprocess.Popen([*cli, ENDLESS_PIPELINE], cwd=folder, env=environment(folder), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    pid, status, usage = 0, 0, None
    while pid == 0 and time.perf_counter() - started < ENDLESS_LIMIT_S:
        time.sleep(0.01)
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
    finished = pid != 0
    if not finished:
        proc.kill()
        _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = 0
    elapsed = time.perf_counter() - started
    producer = int((folder / "producer.pid").read_text()) if (folder / "producer.pid").exists() else 0
    stopped = finished and not _running(producer)
    _kill(producer)
    assert usage is not None
    return usage.ru_maxrss / 1024, elapsed, stopped, os.waitstatus_to_exitcode(status)


def _running(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, IndexError):
        return False


def _kill(pid: int) -> None:
    if pid and _running(pid):
        os.kill(pid, 9)


def write_items(folder: Path) -> None:
    items = [{"id": i, "n": (i * 7919) % ITEMS, "name": f"item-{i}", "tags": ["a", "b"]} for i in range(ITEMS)]
    (folder / "items.json").write_text(json.dumps(items), encoding="utf-8")


def measure(cli: list[str], runs: int) -> dict[str, float | bool]:
    """All figures for one CLI (`endless_producer_stopped`: it exited by itself and `yes` is gone)."""
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        rss, seconds, stopped, code = endless(cli, folder)  # first: a fork of a big parent would inflate the child's peak RSS
        write_items(folder)
        return {
            "cold_start_ms": cold_start(cli, folder, runs) * 1000,
            "items_per_s": throughput(cli, folder, max(1, runs // 4)),
            "endless_peak_rss_mib": rss,
            "endless_seconds": seconds,
            "endless_producer_stopped": stopped,
            "endless_exit_code": code,
        }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_reference_options(parser)
    parser.add_argument("--quick", action="store_true", help="3 cold starts instead of 15; 10k and 100k items for the shapes")
    args = parser.parse_args(argv)
    reference = reference_cli(args)
    runs = 3 if args.quick else 15
    rows = {"lobsterlang": measure(ours(), runs)}
    if reference is not None:
        rows["reference"] = measure([reference], runs)
    print_table(rows)
    print(f"(max RSS of this benchmark's children so far: {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024:.0f} MiB)")
    print()
    scale_bench.run(reference, scale_bench.QUICK_SIZES if args.quick else scale_bench.FULL_SIZES, ours())
    return 0


def print_table(rows: dict[str, dict[str, float | bool]]) -> None:
    names = list(next(iter(rows.values())))
    print(f"{'figure':28}" + "".join(f"{who:>16}" for who in rows))
    for name in names:
        cells = "".join(f"{_cell(rows[who][name]):>16}" for who in rows)
        print(f"{name:28}{cells}")
    if "reference" in rows:
        ref, us = rows["reference"], rows["lobsterlang"]
        print(f"cold start: {float(us['cold_start_ms']) / float(ref['cold_start_ms']):.2f} of the reference's time; "
              f"throughput: {float(us['items_per_s']) / float(ref['items_per_s']):.2f}x the reference's")


def _cell(value: float | bool) -> str:
    if isinstance(value, (bool, int)):
        return str(value)
    return f"{value:,.1f}"


if __name__ == "__main__":
    sys.exit(main())
