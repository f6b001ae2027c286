"""Benchmarks for lobsterlang — CLI cold start, compile throughput and scaling: `python bench/run.py [--quick] [--json OUT]`."""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import corpus
from harness import best_of, load_note, lobster_command, one_core

from lobsterlang.compile import compile_workflow
from lobsterlang.diagnostics import Diagnostic

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
TWENTY_STEPS = BENCH / "corpus" / "twenty-steps.lobster"

TARGET_COLD_MS = 150.0
TARGET_FILES_PER_S = 500.0
TARGET_RATIO = 12.0


@dataclass(frozen=True)
class Settings:
    cold_runs: int
    files: int
    passes: int
    small_steps: int
    large_steps: int


FULL = Settings(cold_runs=20, files=1000, passes=5, small_steps=1_000, large_steps=10_000)
QUICK = Settings(cold_runs=3, files=25, passes=1, small_steps=100, large_steps=1_000)


@dataclass(frozen=True)
class Row:
    """One line of the table; `value` and `unit` are the headline figure kept in the JSON output."""

    name: str
    figure: str
    target: str
    within: bool | None
    value: float
    unit: str
    note: str = ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="a fast smoke run: few repetitions, small inputs")
    parser.add_argument("--json", metavar="OUT", type=Path, help="also write the results as JSON to OUT")
    args = parser.parse_args(argv)
    settings = QUICK if args.quick else FULL
    started = time.perf_counter()
    print(machine_line(), flush=True)
    rows = cold_starts(settings) + throughput(settings) + scaling(settings)
    print_table(rows)
    elapsed = time.perf_counter() - started
    print(f"\n({'quick' if args.quick else 'full'} run, {elapsed:.1f} s; figures are measurements, not pass/fail checks)")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        data = {"machine": machine(), "quick": args.quick, "settings": asdict(settings), "elapsed_s": elapsed}
        data["results"] = [asdict(row) for row in rows]
        args.json.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    return 0


# ── 1. cold start ──────────────────────────────────────────────────────────────────────




def start_env() -> dict[str, str]:
    # This machine sets PYTHONDONTWRITEBYTECODE=1. With it no __pycache__ is ever written, so every
    # fresh process would recompile lobsterlang's sources and we would time the bytecode compiler,
    # not the start-up users get from an installed package (whose caches exist).
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def cold_start(name: str, argv: list[str], runs: int, target: float | None) -> Row:
    """Wall time of fresh processes, after one warm-up run that writes the bytecode caches."""
    env = start_env()
    warm = subprocess.run(argv, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    times = []
    for _ in range(runs):
        begin = time.perf_counter()
        subprocess.run(argv, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append((time.perf_counter() - begin) * 1000)
    median = statistics.median(times)
    note = ""
    if warm.returncode != 0:  # still a measurement, but of a failing command: say so loudly
        last = (warm.stderr.strip().splitlines() or ["no stderr"])[-1]
        note = f"exit {warm.returncode}: {last}"
    return Row(
        f"cold start: {name}", f"median {median:.1f} ms, min {min(times):.1f} ms (n={runs})",
        f"< {target:.0f} ms" if target else "(reference)", median < target if target else None, median, "ms", note,
    )


def cold_starts(settings: Settings) -> list[Row]:
    check(TWENTY_STEPS.name, compile_workflow(TWENTY_STEPS.read_bytes(), str(TWENTY_STEPS)).diagnostics)
    lobster, twenty = lobster_command(), str(TWENTY_STEPS.relative_to(ROOT))
    return [
        cold_start("python -c pass", [sys.executable, "-c", "pass"], settings.cold_runs, None),
        cold_start("lobster --version", [*lobster, "--version"], settings.cold_runs, TARGET_COLD_MS),
        cold_start(f"lobster compile {twenty}", [*lobster, "compile", twenty], settings.cold_runs, TARGET_COLD_MS),
    ]


# ── 2. compile throughput and 3. scaling (in-process) ─────────────────────────────────


def check(name: str, diagnostics: tuple[Diagnostic, ...]) -> None:
    """Abort when a benchmark input has errors: the corpus generator (or file) is wrong, not the timing."""
    errors = [d for d in diagnostics if d.is_error]
    if errors:
        first = errors[0]
        sys.exit(f"bench: input {name} does not compile (a corpus bug): {first.span.line}:{first.span.col} {first.code} {first.message}")




def compile_files(paths: list[Path]) -> None:
    for path in paths:
        compile_workflow(path.read_bytes(), str(path))


def throughput(settings: Settings) -> list[Row]:
    with tempfile.TemporaryDirectory(prefix="lobster-bench-") as tmp:
        paths = corpus.write_corpus(Path(tmp), settings.files)
        with one_core():
            for path in paths:  # also the warm-up pass
                check(path.name, compile_workflow(path.read_bytes(), str(path)).diagnostics)
            best = best_of(settings.passes, lambda: compile_files(paths))
    rate = len(paths) / best
    figure = f"{rate:.0f} files/s, {best / len(paths) * 1000:.2f} ms/file (best of {settings.passes})"
    name = f"compile {len(paths):,} files × 20 steps"
    return [Row(name, figure, f"≥ {TARGET_FILES_PER_S:.0f} files/s", rate >= TARGET_FILES_PER_S, rate, "files/s")]


def compile_time(steps: int, passes: int) -> float:
    """Best-of-`passes` seconds to compile one generated workflow of `steps` steps."""
    source, path = corpus.workflow(f"scale:{steps}", steps).encode(), f"scale-{steps}.lobster"
    check(path, compile_workflow(source, path).diagnostics)  # also the warm-up
    return best_of(passes, lambda: compile_workflow(source, path))


def scaling(settings: Settings) -> list[Row]:
    with one_core():
        small, large = (compile_time(steps, settings.passes) for steps in (settings.small_steps, settings.large_steps))
    ratio = large / small
    return [
        Row(f"compile {settings.small_steps:,} steps", f"{small * 1000:.0f} ms", "", None, small * 1000, "ms"),
        Row(f"compile {settings.large_steps:,} steps", f"{large * 1000:.0f} ms", "", None, large * 1000, "ms"),
        Row(f"scaling {settings.large_steps:,} / {settings.small_steps:,} steps", f"{ratio:.1f}×",
            f"≤ {TARGET_RATIO:.0f}×", ratio <= TARGET_RATIO, ratio, "×"),
    ]


# ── report ─────────────────────────────────────────────────────────────────────────────


def machine() -> dict[str, object]:
    cpu = platform.processor()
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        models = [line.split(":", 1)[1].strip() for line in cpuinfo.read_text().splitlines() if line.startswith("model name")]
        cpu = models[0] if models else cpu
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {"python": platform.python_version(), "platform": platform.platform(), "cpu": cpu, "cores": cores,
            "lobster": " ".join(lobster_command()), "load": load_note()}


def machine_line() -> str:
    m = machine()
    return f"lobsterlang benchmarks — Python {m['python']}, {m['platform']}, {m['cpu']}, {m['cores']} cores\nlobster: {m['lobster']} ({m['load']})\n"


def print_table(rows: list[Row]) -> None:
    header = ("benchmark", "result", "target", "within")
    cells = [(r.name, r.figure, r.target, {True: "yes", False: "NO", None: ""}[r.within]) for r in rows]
    widths = [max(len(line[i]) for line in [header, *cells]) for i in range(4)]
    for line in [header, tuple("─" * w for w in widths), *cells]:
        print("  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True)).rstrip())
    for row in rows:
        if row.note:
            print(f"  ! {row.name}: {row.note}")


if __name__ == "__main__":
    sys.exit(main())
