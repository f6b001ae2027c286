"""Record the resume state the reference CLI writes, and what it prints when that state is resumed.

Usage: python tools/record_reference_state.py /path/to/reference/lobster

For each case below, the reference runs in tool mode with a fresh LOBSTER_STATE_DIR until it
halts at its approval gate; the files it left in the state directory (resume state and
approval index) are stored, then the reference resumes them (`--approve yes`) and its
envelope is stored too. Written to tests/fixtures/reference_state/<case>.json; the fixture
directory is `<dir>` in stored paths. tests/test_gate_security.py loads these files into a
state directory and resumes them with lobsterlang (only with --accept-unsigned-state).
The current files come from 2026.9.13; `<case>-2026.5.22.json`, recorded from 2026.5.22, stay:
state an earlier install left behind must resume too.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "reference_state"
CASES = {
    "workflow": ["run", "--mode", "tool", "--file", "deploy.lobster", "--args-json", '{"target":"prod"}'],
    "pipeline": ["run", "--mode", "tool", "exec --json --shell 'cat items.json' | approve --prompt 'Apply?' | pick id"],
}


def _run(reference: str, args: list[str], cwd: Path, state: Path) -> dict[str, Any]:
    env = {**os.environ, "LOBSTER_STATE_DIR": str(state)}
    done = subprocess.run([reference, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=60, check=False)
    return {"exit": done.returncode, "stdout": json.loads(done.stdout)}


def _version(reference: str) -> str:
    done = subprocess.run([reference, "version"], capture_output=True, text=True, timeout=60, check=False)
    return done.stdout.strip()


def record(reference: str, name: str, args: list[str]) -> dict[str, Any]:
    """Halt, keep the state files, resume with the reference; paths of the scratch dir become `<dir>`."""
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        for source in ("deploy.lobster", "items.json"):
            shutil.copy(FIXTURES / source, work / source)
        state = work / "state"
        halted = _run(reference, args, work, state)
        files = {p.name: json.loads(p.read_text(encoding="utf-8")) for p in sorted(state.iterdir()) if p.is_file()}
        token = halted["stdout"]["requiresApproval"]["resumeToken"]
        resumed = _run(reference, ["resume", "--token", token, "--approve", "yes"], work, state)
        text = json.dumps({"case": name, "args": args, "reference": _version(reference), "halted": halted,
                           "files": files, "resumed": resumed}, indent=2, ensure_ascii=False)
        return json.loads(text.replace(str(work), "<dir>"))  # type: ignore[no-any-return]


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    reference = argv[0]
    for name, args in CASES.items():
        data = record(reference, name, args)
        (FIXTURES / f"{name}.json").write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"recorded {name}: {sorted(data['files'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
