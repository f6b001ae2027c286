"""Record what the reference CLI draws for each case of tests/cases/graph/ in each format.

Usage: python tools/record_graph_cases.py /path/to/node_modules/.bin/lobster

For `NN-name.lobster` (or `.json`) and each format, runs
`lobster graph --file NN-name.lobster --format FMT [--args-json "$(cat NN-name.args.json)"]` in the case
folder and writes its stdout to `NN-name.FMT`. Where lobsterlang draws differently on purpose
(`differences.json`: expected file name → reason), the expected file keeps lobsterlang's output and the
reference's goes to `NN-name.FMT.reference` beside it, so that the difference stays visible.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GRAPH = ROOT / "tests" / "cases" / "graph"
DIFFERENCES = GRAPH / "differences.json"
FORMATS = ("mermaid", "dot", "ascii")


def workflow_files() -> list[Path]:
    """The case workflows: `.lobster` and `.json` files that are neither args nor the differences list."""
    return sorted(p for p in GRAPH.iterdir() if p.suffix in (".lobster", ".json")
                  and not p.name.endswith(".args.json") and p != DIFFERENCES)


def differences() -> dict[str, str]:
    return json.loads(DIFFERENCES.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def args_of(path: Path) -> list[str]:
    given = path.with_name(path.stem + ".args.json")
    return ["--args-json", given.read_text(encoding="utf-8")] if given.exists() else []


def draw(lobster: str, path: Path, fmt: str) -> str:
    done = subprocess.run([lobster, "graph", "--file", path.name, "--format", fmt, *args_of(path)], cwd=GRAPH,
                          capture_output=True, text=True, timeout=60, check=False)
    if done.returncode != 0 or done.stderr:
        raise SystemExit(f"{path.name} {fmt}: exit {done.returncode}: {done.stderr.strip()}")
    return done.stdout


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    deliberate = differences()
    for path in workflow_files():
        for fmt in FORMATS:
            expected = path.with_suffix("." + fmt)
            target = expected.with_name(expected.name + ".reference") if expected.name in deliberate else expected
            target.write_text(draw(argv[0], path, fmt), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
