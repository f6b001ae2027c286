"""What a halt stores: `python bench/halt_size_bench.py [--items 20000 200000]`.

A workflow whose first step prints N items as JSON and whose second is an approval gate over them
(`stdin: $gen.json`) is run once per N with `lobster run --mode tool` in a fresh state directory, then
approved with `lobster resume`; the bytes of the resume state file(s) and of the run journal at the halt,
and each process's wall time and peak memory (RSS), are printed. Issue 36, item 8: the records of a halt
were stored twice, in the journal's `done` events and again in the sealed resume state's `steps`; the
state now names the journal's copy by digest.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

from harness import Child, load_note, lobster_command, run_child

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


def lobster(args: list[str], env: dict[str, str]) -> Child:
    """One `lobster` process, measured alone; a failure ends the benchmark."""
    done = run_child([*lobster_command(), *args], env)
    if done.code != 0:
        raise SystemExit(f"lobster {' '.join(args[:2])} failed: {done.err.decode(errors='replace')[-2000:]}")
    return done


def measure(folder: Path, items: int) -> tuple[int, int, Child, Child]:
    """State and journal bytes at the halt, the halting run and the approving resume."""
    state_dir = folder / f"state-{items}"
    env = {**os.environ, "LOBSTER_STATE_DIR": str(state_dir)}
    halted = lobster(["run", "--mode", "tool", str(write_flow(folder, items))], env)
    states, journals = sizes(state_dir)
    token = json.loads(halted.out)["requiresApproval"]["resumeToken"]
    resumed = lobster(["resume", "--token", token, "--approve", "yes"], env)
    return states, journals, halted, resumed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--items", type=int, nargs="+", default=[20000, 200000])
    args = parser.parse_args(argv)
    print(load_note())
    print(f"{'items':>8} {'state':>13} {'journal':>13} {'halt: wall, peak RSS':>22} {'resume: wall, peak RSS':>24}")
    with tempfile.TemporaryDirectory(prefix="halt-size-") as folder:
        for items in sorted(args.items):
            states, journals, halted, resumed = measure(Path(folder), items)
            print(f"{items:>8,} {states:>13,} {journals:>13,} {halted.wall:>9.2f} s {halted.peak // 1024:>6,} MB"
                  f" {resumed.wall:>11.2f} s {resumed.peak // 1024:>6,} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
