"""Per-step overhead of running workflow files: lobsterlang against the reference CLI.

    python bench/workflow_bench.py [--steps 200] [--reference PATH | --no-reference] [--runs 3]

Runs a workflow of N `true` steps and a 1-step one with each CLI (`lobster run --mode tool
--file F`, a fresh process each time, a fresh state dir), and reports the median wall time of
each and the per-step overhead `(T(N) - T(1)) / (N - 1)`. Both CLIs spawn `/bin/sh -lc true`
for every step; lobsterlang also fsyncs its run journal twice per step.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from harness import add_reference_options, reference_cli


def workflow(steps: int) -> str:
    return "steps:\n" + "".join(f"  - id: s{i}\n    run: \"true\"\n" for i in range(steps))


def lobster_command() -> list[str]:
    script = Path(sys.executable).with_name("lobster")
    return [str(script)] if script.exists() else [sys.executable, "-m", "lobsterlang"]


def timed_run(argv: list[str], path: Path) -> float:
    """Seconds for one `run --mode tool --file path`, in a fresh state dir."""
    state = tempfile.mkdtemp(prefix="lobster-bench-state-")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["LOBSTER_STATE_DIR"] = state
    started = time.perf_counter()
    proc = subprocess.run([*argv, "run", "--mode", "tool", "--file", str(path)], env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    shutil.rmtree(state, ignore_errors=True)
    if proc.returncode != 0 or '"status": "ok"' not in proc.stdout:
        raise SystemExit(f"{argv[0]} failed: {proc.stdout}{proc.stderr}")
    return elapsed


def measure(argv: list[str], small: Path, large: Path, runs: int) -> tuple[float, float]:
    """Median seconds for the 1-step and the N-step file (after one warm-up run)."""
    timed_run(argv, small)
    one = statistics.median(timed_run(argv, small) for _ in range(runs))
    many = statistics.median(timed_run(argv, large) for _ in range(runs))
    return one, many


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--runs", type=int, default=3)
    add_reference_options(parser)
    options = parser.parse_args(argv)
    reference = reference_cli(options)
    with tempfile.TemporaryDirectory() as folder:
        small, large = Path(folder, "one.lobster"), Path(folder, f"steps{options.steps}.lobster")
        small.write_text(workflow(1), encoding="utf-8")
        large.write_text(workflow(options.steps), encoding="utf-8")
        tools = {"lobsterlang": lobster_command()}
        if reference is not None:
            tools["reference"] = [reference]
        print(f"{'cli':<12} {'1 step':>10} {f'{options.steps} steps':>12} {'per step':>10}")
        for name, command in tools.items():
            one, many = measure(command, small, large, options.runs)
            per_step = (many - one) / (options.steps - 1) * 1000
            print(f"{name:<12} {one * 1000:>8.0f}ms {many * 1000:>10.0f}ms {per_step:>8.2f}ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
