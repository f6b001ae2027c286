"""Shared benchmark helpers: the `lobster` command to time, one child measured alone, the reference CLI to compare with, the load average, pinning to one CPU, best-of-N timing."""

from __future__ import annotations

import argparse
import gc
import math
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path


def lobster_command() -> list[str]:
    """The console script next to this Python, else `python -m lobsterlang`."""
    script = Path(sys.executable).parent / "lobster"
    return [str(script)] if script.exists() else [sys.executable, "-m", "lobsterlang"]


@dataclass
class Child:
    """One process run by `run_child`: its exit code, what it printed, its wall time (s) and its own peak RSS (KiB)."""

    code: int
    out: bytes
    err: bytes
    wall: float
    peak: int


def run_child(command: list[str], env: Mapping[str, str] | None = None) -> Child:
    """Run `command`, measuring this child alone (`wait4` on it), not the largest child so far."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(command, stdout=out, stderr=err, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return Child(proc.returncode, out.read(), err.read(), wall, usage.ru_maxrss)


REFERENCE_ENV = "LOBSTER_REFERENCE"
REFERENCE_DEFAULT = "/tmp/refcli/node_modules/.bin/lobster"
"""Where the reference CLI is looked for when neither `--reference` nor $LOBSTER_REFERENCE names it."""


def add_reference_options(parser: argparse.ArgumentParser) -> None:
    """`--reference PATH` and `--no-reference`, the options of the benchmarks that time the reference CLI too."""
    parser.add_argument("--reference", metavar="PATH", help=f"the reference CLI's `lobster` executable (default: ${REFERENCE_ENV}, else {REFERENCE_DEFAULT})")
    parser.add_argument("--no-reference", action="store_true", help="time lobsterlang alone")


def reference_cli(args: argparse.Namespace) -> str | None:
    """The reference executable the options name (None with `--no-reference`); exits with a clear error if it is not there."""
    if args.no_reference:
        return None
    path = args.reference or os.environ.get(REFERENCE_ENV) or REFERENCE_DEFAULT
    if os.path.isfile(path) and os.access(path, os.X_OK):
        return str(path)
    named_by = "--reference" if args.reference else (f"${REFERENCE_ENV}" if os.environ.get(REFERENCE_ENV) else "the default path")
    raise SystemExit(
        f"error: no reference CLI at {path} (from {named_by})\n"
        f"hint: `npm install @clawdbot/lobster` in a directory DIR, then pass --reference DIR/node_modules/.bin/lobster"
        f" or set {REFERENCE_ENV} to that path; --no-reference times lobsterlang alone"
    )


def load_note() -> str:
    """The machine's load average over the last minute, printed beside the figures (the dev machines are shared)."""
    return f"load average {os.getloadavg()[0]:.2f}"


@contextmanager
def one_core() -> Iterator[None]:
    """Pin this process to one CPU while timing, where the OS allows it."""
    if not hasattr(os, "sched_setaffinity"):
        yield
        return
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(before)})
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)


def best_of(passes: int, work: Callable[[], object]) -> float:
    """The fastest of `passes` timed calls, in seconds (garbage collected before each)."""
    return best_of_each(passes, {"work": work})["work"]


def best_of_each(passes: int, works: dict[str, Callable[[], object]]) -> dict[str, float]:
    """`best_of` for several works that take turns within each pass.

    Interleaved, a slow spell of a shared machine hits every work alike, so the ratios
    between them hold better than when each work's passes run back to back.
    """
    best = dict.fromkeys(works, math.inf)
    for _ in range(passes):
        for name, work in works.items():
            gc.collect()
            begin = time.perf_counter()
            work()
            best[name] = min(best[name], time.perf_counter() - begin)
    return best
