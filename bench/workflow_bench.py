"""Per-step overhead of running workflow files: lobsterlang against the reference CLI, wall time and CPU.

    python bench/workflow_bench.py [--steps 50] [--runs 5] [--busy] [--before PATH] [--reference PATH | --no-reference]

Runs a workflow of N `run: "true"` steps and a 1-step one with each CLI (`lobster run --mode tool
--file F`, a fresh process each time, a fresh state dir), the CLIs taking turns run by run so that a
slow spell of the shared machine hits both. Each figure is the median of `--runs`: wall time, and CPU
(user + system of the CLI and every process it waited for: both CLIs start `/bin/sh -lc true` for each
step, a login shell). The per-step overhead is `(T(N) - T(1)) / (N - 1)`. `--busy` keeps one core busy
with a Python loop in another process while timing (the "loaded machine" figures). `--before PATH` times
another lobsterlang too (another checkout's `lobster`), taking turns with the others.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from harness import add_reference_options, lobster_command, reference_cli

Figure = tuple[float, float]
"""(wall seconds, CPU seconds) of one run."""


def workflow(steps: int) -> str:
    return "steps:\n" + "".join(f"  - id: s{i}\n    run: \"true\"\n" for i in range(steps))


def timed_run(argv: list[str], path: Path) -> Figure:
    """Wall and CPU seconds of one `run --mode tool --file path`, in a fresh state dir."""
    state = tempfile.mkdtemp(prefix="lobster-bench-state-")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["LOBSTER_STATE_DIR"] = state
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        proc = subprocess.Popen([*argv, "run", "--mode", "tool", "--file", str(path)], env=env, stdout=out, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)  # the child's CPU with that of every process it waited for
        elapsed = time.perf_counter() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        printed, complaint = out.read(), err.read()
    shutil.rmtree(state, ignore_errors=True)
    if b'"status": "ok"' not in printed:
        raise SystemExit(f"{argv[0]} failed: {printed.decode()}{complaint.decode()}")
    return elapsed, usage.ru_utime + usage.ru_stime


@contextlib.contextmanager
def busy_core(enabled: bool) -> Iterator[None]:
    """While the block runs, another process spins on one core (when `enabled`)."""
    if not enabled:
        yield
        return
    spinner = subprocess.Popen([sys.executable, "-c", "while 1: pass"])
    try:
        yield
    finally:
        spinner.kill()
        spinner.wait()


def measure(tools: dict[str, list[str]], files: dict[str, Path], runs: int) -> dict[tuple[str, str], list[Figure]]:
    """`runs` figures for each (tool, file), the tools taking turns on each file (one warm-up run each first)."""
    figures: dict[tuple[str, str], list[Figure]] = {}
    for command in tools.values():
        timed_run(command, files["1"])
    for _ in range(runs):
        for label, path in files.items():
            for name, command in tools.items():
                figures.setdefault((name, label), []).append(timed_run(command, path))
    return figures


def median(figures: list[Figure], index: int) -> float:
    return statistics.median(figure[index] for figure in figures)


def report(figures: dict[tuple[str, str], list[Figure]], tools: list[str], steps: int) -> None:
    n = str(steps)
    print(f"{'cli':<12} {'1 step wall/CPU':>18} {f'{steps} steps wall/CPU':>20} {'per step wall/CPU':>20}")
    for name in tools:
        one, many = figures[name, "1"], figures[name, n]
        per_step = [(median(many, i) - median(one, i)) / (steps - 1) * 1000 for i in (0, 1)]
        print(f"{name:<12} {median(one, 0) * 1000:>7.0f} / {median(one, 1) * 1000:>4.0f} ms"
              f" {median(many, 0) * 1000:>9.0f} / {median(many, 1) * 1000:>4.0f} ms"
              f" {per_step[0]:>9.2f} / {per_step[1]:>5.2f} ms")
    if "reference" in tools:
        theirs = figures["reference", n]
        for name in tools[:-1]:
            ours = figures[name, n]
            print(f"{name} / reference, {steps} steps: wall {median(ours, 0) / median(theirs, 0):.2f}x,"
                  f" CPU {median(ours, 1) / median(theirs, 1):.2f}x")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--busy", action="store_true", help="keep one core busy with another process while timing")
    parser.add_argument("--before", metavar="PATH", help="another lobsterlang's `lobster` to time too (before a change)")
    add_reference_options(parser)
    options = parser.parse_args(argv)
    reference = reference_cli(options)
    tools = {"lobsterlang": lobster_command()}
    if options.before:
        tools["before"] = [options.before]
    if reference is not None:
        tools["reference"] = [reference]
    with tempfile.TemporaryDirectory() as folder:
        files = {"1": Path(folder, "one.lobster"), str(options.steps): Path(folder, f"steps{options.steps}.lobster")}
        for label, path in files.items():
            path.write_text(workflow(int(label)), encoding="utf-8")
        print(f"load average {os.getloadavg()[0]:.2f}; {'one core held busy' if options.busy else 'idle'}; median of {options.runs}")
        with busy_core(options.busy):
            figures = measure(tools, files, options.runs)
        report(figures, list(tools), options.steps)
    return 0


if __name__ == "__main__":
    sys.exit(main())
