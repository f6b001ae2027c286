"""Record pipeline run cases from the reference CLI: `python tools/record_run_cases.py /path/to/reference/lobster [NAME.json…]`.

Reads tests/cases/run/*.json, runs each case's argv in a scratch folder holding its `files`,
and writes the observed exit code, stdout and stderr into the case's `expect`. A recording that
differs from the stored one only in its random resume tokens and approval ids is left as it was.
Cases where lobsterlang differs on purpose keep lobsterlang's result in `ours`, with the reason in
`divergence`; a case that waits for lobsterlang to catch up names the work in `xfail`.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

CASES = Path(__file__).resolve().parent.parent / "tests" / "cases" / "run"
_RANDOM = re.compile(r'"(resumeToken|approvalId)": "[^"]*"')


def observe(lobster: str, case: dict[str, Any]) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as scratch:
        for name, text in case.get("files", {}).items():
            (Path(scratch) / name).parent.mkdir(parents=True, exist_ok=True)
            (Path(scratch) / name).write_text(text, encoding="utf-8")
        for name in case.get("executables", []):
            (Path(scratch) / name).chmod(0o755)
        env = {**os.environ, "LOBSTER_STATE_DIR": str(Path(scratch) / "state"), **case.get("env", {})}
        for argv in case.get("setup", []):
            subprocess.run([lobster, *argv], cwd=scratch, env=env, capture_output=True, timeout=60, check=False)
        proc = subprocess.run([lobster, *case["argv"]], cwd=scratch, env=env, capture_output=True, text=True,
                              input=case.get("stdin", ""), timeout=60, check=False)
    return {"exit": proc.returncode, "stdout": proc.stdout, "stderr": proc.stderr}


def same_but_random(old: dict[str, Any] | None, new: dict[str, Any]) -> bool:
    """Whether two recordings differ only in their resume tokens and approval ids."""
    def masked(recording: dict[str, Any]) -> dict[str, Any]:
        return {key: _RANDOM.sub(r'"\1": ""', value) if isinstance(value, str) else value for key, value in recording.items()}

    return old is not None and masked(old) == masked(new)


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    lobster, only = argv[1], set(argv[2:])
    for path in sorted(CASES.glob("*.json")):
        if only and path.name not in only:
            continue
        cases = json.loads(path.read_text(encoding="utf-8"))
        changed = False
        for case in cases:
            if case.get("recorded") is False:
                continue
            observed = observe(lobster, case)
            if not same_but_random(case.get("expect"), observed):
                case["expect"], changed = observed, True
        if changed:
            path.write_text(json.dumps(cases, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
