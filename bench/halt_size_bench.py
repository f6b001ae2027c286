"""What a halt stores: `python bench/halt_size_bench.py [--items 20000 200000]`.

A workflow whose first step prints N items as JSON and whose second is an approval gate over them
(`stdin: $gen.json`) is run once per N with `lobster run --mode tool` in a fresh state directory; the
bytes of the resume state file(s) and of the run journal it leaves, and the run's peak memory (RSS),
are printed. Issue 36, item 8: the records of a halt are stored twice, in the journal's `done` events
and again in the sealed resume state's `steps`.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

from harness import load_note, lobster_command

GENERATOR = """import json, sys
n = int(sys.argv[1])
print(json.dumps([{"id": i, "name": f"item-{i}", "email": f"user{i}@example.com", "amount": i * 3 % 1000}
                  for i in range(n)]))
"""

FLOW = """steps:
  - id: gen
    run: {python} {generator} {items}
  - id: gate
    approval: required
    stdin: $gen.json
  - id: after
    run: echo done
"""


def write_flow(folder: Path, items: int) -> Path:
    generator = folder / "gen.py"
    generator.write_text(GENERATOR, encoding="utf-8")
    path = folder / f"halt-{items}.lobster"
    path.write_text(FLOW.format(python=sys.executable, generator=generator, items=items), encoding="utf-8")
    return path


def sizes(state_dir: Path) -> tuple[int, int]:
    """Bytes of the resume state files and of the run journals under `state_dir`."""
    states = sum(p.stat().st_size for p in state_dir.glob("workflow_resume_*.json"))
    journals = sum(p.stat().st_size for p in (state_dir / "runs").glob("*.jsonl"))
    return states, journals


def measure(folder: Path, items: int) -> tuple[int, int, int]:
    """State bytes, journal bytes and peak RSS (KiB; the largest child so far, so run N in ascending order)."""
    state_dir = folder / f"state-{items}"
    env = {**os.environ, "LOBSTER_STATE_DIR": str(state_dir)}
    command = [*lobster_command(), "run", "--mode", "tool", str(write_flow(folder, items))]
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, check=False)
    if done.returncode != 0:
        raise SystemExit(f"lobster run failed: {done.stderr.decode(errors='replace')[-2000:]}")
    states, journals = sizes(state_dir)
    return states, journals, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--items", type=int, nargs="+", default=[20000, 200000])
    args = parser.parse_args(argv)
    print(load_note())
    print(f"{'items':>8} {'state':>13} {'journal':>13} {'peak RSS':>10}")
    with tempfile.TemporaryDirectory(prefix="halt-size-") as folder:
        for items in sorted(args.items):
            states, journals, peak = measure(Path(folder), items)
            print(f"{items:>8,} {states:>13,} {journals:>13,} {peak // 1024:>7,} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
