"""Record how the reference CLI loads each workflow file of tests/cases/workflows/ into its reference.json.

Usage: python tools/record_workflow_cases.py /path/to/node_modules/.bin/lobster [NAME ...]

Each file is loaded with `lobster run --mode tool --dry-run --file /ABS/PATH` (the dry run loads
and plans the file, runs nothing); `ok` and `error` (the envelope's `error.message`, or null)
are stored. A run that prints no envelope is reported and left out.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "tests" / "cases" / "workflows"
REFERENCE = CASES / "reference.json"
SUFFIXES = (".lobster", ".yaml", ".yml", ".json")


def case_files() -> list[Path]:
    return sorted(p for p in CASES.iterdir() if p.suffix in SUFFIXES and p != REFERENCE)


def load(lobster: str, path: Path) -> dict[str, Any] | None:
    """`{"ok", "error"}` from the reference's dry-run envelope, or None when it printed none."""
    done = subprocess.run([lobster, "run", "--mode", "tool", "--dry-run", "--file", str(path)], cwd=CASES,
                          capture_output=True, text=True, timeout=60, check=False)
    try:
        envelope = json.loads(done.stdout)
    except ValueError:
        print(f"{path.name}: no envelope (exit {done.returncode}): {done.stderr.strip()}", file=sys.stderr)
        return None
    error = envelope.get("error") or {}
    return {"ok": bool(envelope.get("ok")), "error": error.get("message")}


def main(argv: list[str]) -> int:
    lobster, only = argv[0], set(argv[1:])
    recorded: dict[str, Any] = json.loads(REFERENCE.read_text(encoding="utf-8"))
    for path in case_files():
        if only and path.name not in only:
            continue
        result = load(lobster, path)
        if result is not None:
            recorded[path.name] = result
    REFERENCE.write_text(json.dumps(recorded, indent=2, ensure_ascii=False) + "\n",
                         encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
