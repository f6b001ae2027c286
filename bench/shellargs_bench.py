"""What the check of `${arg}` contexts costs: `lobster run` of tiny workflows, and the check per step in-process.

    python bench/shellargs_bench.py [--runs 21] [--code DIR]

Cold: `lobster run --mode tool --file F --args-json …` of three one-step workflows, a fresh process
and state dir each time, the runs of the three interleaved (median and minimum): `plain` (`echo
${x}`, no context worth a parse: tree-sitter is never imported), `arithmetic` (`let "v=${x}"`,
which loads tree-sitter and parses) and `heredoc` (`${x}` in a here-document read by `cat`).
`--code DIR` runs the lobsterlang found in DIR instead (`--code /work/main` for the figures before a
change). In-process: `check_shell_args` on a 12-line script, the first call (parse) and later calls (cached).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from harness import best_of, lobster_command

WORKFLOWS = {
    "plain": 'run: echo "${x}"',
    "arithmetic": 'run: let "v = ${x} + 1"; echo $v',
    "heredoc": "run: |\n      cat <<'EOF'\n      ${x}\n      EOF",
}
SCRIPT = "\n".join(
    ["set -eu", 'name="${x}"', "for i in 1 2 3; do", '  echo "$i ${x}"', "done", 'let "n = ${x} + 1"',
     "printf -v out '%s' \"$n\"", '[[ -v out ]] && echo "$out"', "python3 -c 'import sys; print(sys.stdin.read())' <<'EOF'",
     "${x}", "EOF", 'echo "done"']
)


def timed_run(argv: list[str], path: Path, env: dict[str, str]) -> float:
    state = tempfile.mkdtemp(prefix="lobster-bench-state-")
    started = time.perf_counter()
    proc = subprocess.run([*argv, "run", "--mode", "tool", "--file", str(path), "--args-json", '{"x": "41"}'],
                          env={**env, "LOBSTER_STATE_DIR": state}, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    shutil.rmtree(state, ignore_errors=True)
    if proc.returncode != 0 or '"status": "ok"' not in proc.stdout:
        raise SystemExit(f"{path.name} failed: {proc.stdout}{proc.stderr}")
    return elapsed


def cold(runs: int, code: str | None) -> dict[str, list[float]]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    if code:
        env["PYTHONPATH"] = code
    argv = [sys.executable, "-m", "lobsterlang"] if code else lobster_command()
    times: dict[str, list[float]] = {name: [] for name in WORKFLOWS}
    with tempfile.TemporaryDirectory() as folder:
        paths = {}
        for name, step in WORKFLOWS.items():
            paths[name] = Path(folder, f"{name}.lobster")
            paths[name].write_text(f'args:\n  x: {{default: "1"}}\nsteps:\n  - id: s\n    {step}\n', encoding="utf-8")
            timed_run(argv, paths[name], env)  # warm-up: __pycache__
        for _ in range(runs):
            for name, path in paths.items():
                times[name].append(timed_run(argv, path, env))
    return times


def in_process() -> tuple[float, float]:
    """Seconds for the first `check_shell_args` of SCRIPT (loads tree-sitter, parses) and for a later one."""
    from lobsterlang.compile import compile_workflow
    from lobsterlang.interpret.workflow.templates import check_shell_args

    text = "args:\n  x: {default: '1'}\nsteps:\n  - id: s\n    run: |\n" + "".join(f"      {line}\n" for line in SCRIPT.splitlines())
    step = compile_workflow(text, "bench.lobster").ir.steps[0]  # type: ignore[union-attr]
    template = step.action.command  # type: ignore[union-attr]
    started = time.perf_counter()
    check_shell_args(template, {"x": "41"})
    first = time.perf_counter() - started
    return first, best_of(20, lambda: check_shell_args(template, {"x": "41"}))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--code", metavar="DIR", help="time the lobsterlang in DIR (put first on PYTHONPATH)")
    options = parser.parse_args(argv)
    print(f"lobsterlang: {options.code or 'this checkout'}; load average {os.getloadavg()[0]:.1f}")
    print(f"{'lobster run':<24} {'median':>8} {'min':>8}")
    for name, samples in cold(options.runs, options.code).items():
        print(f"{name:<24} {statistics.median(samples) * 1000:>6.0f}ms {min(samples) * 1000:>6.0f}ms")
    if not options.code:
        first, later = in_process()
        print(f"check of a 12-line script: first {first * 1000:.1f}ms (tree-sitter loaded, parsed), then {later * 1e6:.0f}µs (cached)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
