"""`lobster lint` output for many findings on one long line: `python bench/lint_output_bench.py [--refs 5000 20000]`.

A step whose `run:` line holds N copies of `$a.stdout` (L302 for each, a 10·N-byte line) is linted with
`--format text` and `--format json`; each run is one `lobster lint` process, whose output size, wall time and
peak memory (RSS) are printed. Issue 29, item 6: the text output had each finding repeat the whole line, so
it grew with N times the line (376 MB, 1.7 GB and 13.6 s for N = 5,000); it must grow with N.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from harness import load_note, lobster_command, run_child


def write_flow(folder: Path, refs: int) -> Path:
    path = folder / f"refs-{refs}.lobster"
    line = " ".join(["$a.stdout"] * refs)
    path.write_text(f"steps:\n  - id: a\n    run: echo hi\n  - id: b\n    run: echo {line}\n", encoding="utf-8")
    return path


def measure(path: Path, fmt: str) -> tuple[int, float, int]:
    """Bytes printed, wall seconds and peak RSS (KiB) of one `lobster lint` process."""
    command = [*lobster_command(), "lint", "--no-cache", "--no-shellcheck", "--select", "L302", "--format", fmt, str(path)]
    done = run_child(command)
    return len(done.out), done.wall, done.peak


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--refs", type=int, nargs="+", default=[5000, 20000])
    args = parser.parse_args(argv)
    print(load_note())
    print(f"{'refs':>7} {'line':>9} {'format':>6} {'output':>13} {'wall':>8} {'peak RSS':>10}")
    with tempfile.TemporaryDirectory(prefix="lint-output-") as folder:
        for refs in args.refs:
            path = write_flow(Path(folder), refs)
            for fmt in ("text", "json"):
                size, seconds, peak = measure(path, fmt)
                print(f"{refs:>7,} {path.stat().st_size:>9,} {fmt:>6} {size:>13,} {seconds:>7.2f}s {peak // 1024:>7,} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
