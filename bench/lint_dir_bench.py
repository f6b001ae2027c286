"""Warm `lobster lint DIR` over `.yaml` workflows: how long deciding which `.yaml` files are workflows takes.

`python bench/lint_dir_bench.py [--files 141]` writes that many generated 20-step workflows as `.yaml` files (and as
many other YAML files that are not workflows, as a repository has), then, in one run:

- times the discovery of the workflows under the directory (`cli.files.workflows_under`) with PyYAML's libyaml
  loader (what lint uses) and with its pure-Python loader (what it used before), taking turns, best of 5 each;
- times the whole warm `lobster lint DIR` (cache filled by a first run) and `lobster lint FILES…` naming the same
  files, best of 5 each.

With `PYTHONPATH=OTHER_CHECKOUT` it measures that checkout's lobsterlang (a before/after comparison).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parent))

import yaml
from corpus import workflow

from lobsterlang.cli import files


def write(directory: Path, count: int) -> list[Path]:
    """`count` workflows as `.yaml` files, and `count` YAML files that are not workflows (a `steps:` key but no ids)."""
    paths = []
    for index in range(count):
        path = directory / f"flow-{index:04d}.yaml"
        path.write_text(workflow(f"dir{index}"), encoding="utf-8")
        paths.append(path)
        (directory / f"config-{index:04d}.yaml").write_text(f"name: job {index}\nsteps:\n  - build\n  - test\n", encoding="utf-8")
    return paths


def best(work: Callable[[], object], rounds: int = 5) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times)


def discovery(directory: Path) -> tuple[float, float]:
    """Seconds to find the workflows with the libyaml loader and with the pure-Python loader (turns taken)."""
    pure = yaml.SafeLoader
    libyaml, python = [], []
    for _ in range(5):
        libyaml.append(best(lambda: files.workflows_under(directory), 1))
        with mock.patch.object(yaml, "CSafeLoader", pure):
            python.append(best(lambda: files.workflows_under(directory), 1))
    return min(libyaml), min(python)


def lint(args: list[str], cache: Path) -> float:
    env = {"LOBSTER_CACHE_DIR": str(cache), "PATH": "/usr/bin:/bin", **({"PYTHONPATH": os.environ["PYTHONPATH"]} if "PYTHONPATH" in os.environ else {})}
    command = [sys.executable, "-m", "lobsterlang", "lint", "--no-shellcheck", *args]
    def run() -> object:
        return subprocess.run(command, capture_output=True, env=env, check=False, cwd=cache.parent)

    run()  # fills the cache
    return best(run)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--files", type=int, default=141)
    count = parser.parse_args().files
    with tempfile.TemporaryDirectory(prefix="lint-dir-bench-") as tmp:
        directory = Path(tmp) / "flows"
        directory.mkdir()
        paths = write(directory, count)
        libyaml, python = discovery(directory)
        cache = Path(tmp) / "cache"
        whole = lint([str(directory)], cache)
        named = lint([str(p) for p in paths], cache)
    print(f"{count} workflows + {count} other YAML files")
    print(f"finding the workflows, libyaml loader: {libyaml * 1000:.0f} ms; pure-Python loader: {python * 1000:.0f} ms")
    print(f"warm `lobster lint DIR`: {whole:.2f} s; warm `lobster lint FILES…` (the same files named): {named:.2f} s")


if __name__ == "__main__":
    main()
