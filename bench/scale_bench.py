"""Pipeline scaling side by side with the reference: three stage shapes at 100k and 1M items (CPU and peak RSS).

Part of `runtime_bench.py` (also runnable alone: `python bench/scale_bench.py [--reference PATH | --no-reference] [--quick]
[--shape NAME]... [--runs N]`: only the shapes named, the whole table N times in a row, the load average before each).
Each figure is one whole `lobster '<pipeline>'` process: CPU is user + system time and memory its peak
RSS, both from `os.wait4` on that process alone, started from a small helper so that the benchmark's
own memory never counts.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

INPUT = "scale-items.json"
SHAPES = {
    "where|pick|sort|head": "where 'n>={half}' | pick id,n | sort --key n --desc | head --n 5",
    "where|map|groupBy|pick|sort": (
        "where 'n>={half}' | map 'label={{{{name}}}}/{{{{kind}}}}' | groupBy --key kind | pick key,count"
        " | sort --key count --desc"
    ),
    "where|template|sort|head": "where 'n>={half}' | template --text '{{{{id}}}}: {{{{name | upper}}}} ({{{{kind}}}})' | sort | head --n 5",
}
FULL_SIZES = (100_000, 1_000_000)
QUICK_SIZES = (10_000, 100_000)

Figure = tuple[float, float]
"""(CPU seconds, peak RSS in MiB) of one process."""


def pipeline(shape: str, size: int) -> str:
    return f"exec --json --shell 'cat {INPUT}' | " + SHAPES[shape].format(half=size // 2)


def write_items(folder: Path, size: int) -> None:
    """`size` items with a number to filter and sort on, a name to template and ~1,000 groups (written one by one)."""
    with (folder / INPUT).open("w", encoding="utf-8") as out:
        out.write("[")
        for i in range(size):
            item = {"id": i, "n": (i * 7919) % size, "name": f"item-{i}", "kind": f"k{i % 997}", "tags": ["a", "b"]}
            out.write(("," if i else "") + json.dumps(item))
        out.write("]")


MEASURE = (
    "import os, subprocess, sys\n"
    "child = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
    "_, status, usage = os.wait4(child.pid, 0)\n"
    "print(os.waitstatus_to_exitcode(status), usage.ru_utime + usage.ru_stime, usage.ru_maxrss)\n"
)
"""Runs the command from a small Python process: Linux gives a process the peak RSS of the one that
forked it (at exec), so a child of this benchmark, which has held large lists, would report too much."""


def cpu_and_rss(argv: list[str], folder: Path, env: dict[str, str]) -> Figure:
    """One run's CPU time (user + system, its reaped children included) and peak RSS."""
    proc = subprocess.run([sys.executable, "-c", MEASURE, *argv], cwd=folder, env=env, capture_output=True, text=True, check=True)
    code, cpu, rss_kib = proc.stdout.split()
    if code != "0":
        raise SystemExit(f"benchmark pipeline failed ({code}): {argv}")
    return float(cpu), int(rss_kib) / 1024


def measure(clis: dict[str, list[str]], sizes: tuple[int, ...], env: dict[str, str], shapes: tuple[str, ...]) -> dict[tuple[str, int, str], Figure]:
    """Every (shape, size, CLI) figure; the CLIs take turns on each input, so a slow spell hits both."""
    figures: dict[tuple[str, int, str], Figure] = {}
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        for size in sizes:
            write_items(folder, size)
            for shape in shapes:
                for who, cli in clis.items():
                    figures[shape, size, who] = cpu_and_rss([*cli, pipeline(shape, size)], folder, env)
    return figures


def print_figures(figures: dict[tuple[str, int, str], Figure], sizes: tuple[int, ...], clis: list[str], shapes: tuple[str, ...]) -> None:
    print(f"{'shape':30}{'items':>10}" + "".join(f"{who + ' CPU s':>18}{'MiB':>8}" for who in clis) + ("  ratio" if len(clis) > 1 else ""))
    for shape in shapes:
        for size in sizes:
            cells = "".join(f"{figures[shape, size, who][0]:>18.2f}{figures[shape, size, who][1]:>8.0f}" for who in clis)
            ratio = f"{figures[shape, size, clis[0]][0] / figures[shape, size, clis[1]][0]:>6.2f}x" if len(clis) > 1 else ""
            print(f"{shape:30}{size:>10,}{cells} {ratio}")
    small, large = sizes[0], sizes[-1]
    for who in clis:
        growth = ", ".join(f"{shape} {figures[shape, large, who][0] / figures[shape, small, who][0]:.1f}x" for shape in shapes)
        print(f"{who} CPU {large:,}/{small:,}: {growth}")


def side_by_side_args(doc: str, quick: str, argv: list[str] | None,
                      extra: Callable[[argparse.ArgumentParser], None] | None = None) -> argparse.Namespace:
    """`--reference PATH`, `--no-reference` and `--quick`, the options of the side-by-side benchmarks;
    `reference` is the executable found (None with `--no-reference`), or the run stops with a clear error."""
    from harness import add_reference_options, reference_cli

    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    add_reference_options(parser)
    parser.add_argument("--quick", action="store_true", help=quick)
    if extra is not None:
        extra(parser)
    args = parser.parse_args(argv)
    args.reference = reference_cli(args)
    return args


def side_by_side(reference: str | None, ours: list[str]) -> dict[str, list[str]]:
    """lobsterlang's command and the reference's (left out with `--no-reference`)."""
    clis = {"lobsterlang": ours}
    if reference is not None:
        clis["reference"] = [reference]
    return clis


def main(argv: list[str] | None = None) -> int:
    from runtime_bench import ours

    args = side_by_side_args(__doc__, "10k and 100k items instead of 100k and 1M", argv, extra=_shape_options)
    for _ in range(args.runs):
        print(f"load average {os.getloadavg()[0]:.2f}")
        run(args.reference, QUICK_SIZES if args.quick else FULL_SIZES, ours(), tuple(args.shape or SHAPES))
    return 0


def _shape_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--shape", action="append", choices=list(SHAPES), help="time only this shape (repeatable)")
    parser.add_argument("--runs", type=int, default=1, help="measure the whole table this many times in a row")


def run(reference: str | None, sizes: tuple[int, ...], ours: list[str], shapes: tuple[str, ...] = tuple(SHAPES)) -> None:
    """Measure and print."""
    clis = side_by_side(reference, ours)
    with tempfile.TemporaryDirectory() as state:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["LOBSTER_STATE_DIR"] = state
        env["LOBSTER_MAX_OUTPUT_BYTES"] = str(1 << 30)  # 1M items are 87 MB of JSON, over the default 16 MiB cap
        print_figures(measure(clis, sizes, env, shapes), sizes, list(clis), shapes)


if __name__ == "__main__":
    sys.exit(main())
