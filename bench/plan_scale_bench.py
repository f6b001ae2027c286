"""Planning a generated workflow of 1k, 10k and 100k steps, side by side with the reference: `lobster run --dry-run FILE`.

`python bench/plan_scale_bench.py [--reference PATH | --no-reference] [--quick]`. Each figure is one whole process (CPU is
user + system time, memory its peak RSS), measured as `scale_bench.py` measures pipelines. The files
come from `corpus.py` (the same generator as `run.py`'s compile scaling), about 235 bytes a step.
"""

from __future__ import annotations

import itertools
import os
import sys
import tempfile
from pathlib import Path

import corpus
from scale_bench import Figure, cpu_and_rss, side_by_side, side_by_side_args

FULL_STEPS = (1_000, 10_000, 100_000)
QUICK_STEPS = (1_000, 10_000)


def measure(clis: dict[str, list[str]], sizes: tuple[int, ...]) -> dict[tuple[int, str], Figure]:
    figures: dict[tuple[int, str], Figure] = {}
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["LOBSTER_STATE_DIR"] = str(folder / "state")
        for steps in sizes:
            path = folder / f"steps-{steps}.lobster"
            path.write_text(corpus.workflow("plan-scale", steps), encoding="utf-8")
            for who, cli in clis.items():
                figures[steps, who] = cpu_and_rss([*cli, "run", "--dry-run", path.name], folder, env)
    return figures


def print_figures(figures: dict[tuple[int, str], Figure], sizes: tuple[int, ...], clis: list[str]) -> None:
    print(f"{'steps':>10}" + "".join(f"{who + ' CPU s':>18}{'MiB':>8}" for who in clis) + ("  CPU ratio  RSS ratio" if len(clis) > 1 else ""))
    for steps in sizes:
        cells = "".join(f"{figures[steps, who][0]:>18.2f}{figures[steps, who][1]:>8.0f}" for who in clis)
        ratios = ""
        if len(clis) > 1:
            (ours_cpu, ours_rss), (ref_cpu, ref_rss) = figures[steps, clis[0]], figures[steps, clis[1]]
            ratios = f"{ours_cpu / ref_cpu:>10.2f}x{ours_rss / ref_rss:>10.2f}x"
        print(f"{steps:>10,}{cells}{ratios}")
    for who in clis:
        growth = ", ".join(f"{b:,}/{a:,} {figures[b, who][0] / figures[a, who][0]:.1f}x" for a, b in itertools.pairwise(sizes))
        print(f"{who} CPU growth: {growth}")


def main(argv: list[str] | None = None) -> int:
    from runtime_bench import ours

    args = side_by_side_args(__doc__, "1k and 10k steps only", argv)
    sizes = QUICK_STEPS if args.quick else FULL_STEPS
    clis = side_by_side(args.reference, ours())
    print_figures(measure(clis, sizes), sizes, list(clis))
    return 0


if __name__ == "__main__":
    sys.exit(main())
