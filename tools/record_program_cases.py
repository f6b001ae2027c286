"""Record the reference's `openclaw.invoke` / `clawd.invoke` programs: tests/cases/programs.json.

Usage: python tools/record_program_cases.py /path/to/node_modules/.bin/lobster [NAME ...]

The reference package installs both programs next to `lobster`. Each case runs
`<program> <argv…>` in a scratch folder with a minimal environment (PATH, HOME, LOBSTER_STATE_DIR
and the case's `env`) against the stand-in gateway of tests/gateway_fake.py; `{url}` in argv and
env is the gateway's address, and becomes `{url}` again in what is recorded. The exit code, stdout
and stderr go to the case's `expect`. Cases where lobsterlang differs on purpose keep its result in
`ours`, with the reason in `divergence`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "tests" / "cases" / "programs.json"
sys.path.insert(0, str(ROOT / "tests"))

import gateway_fake  # noqa: E402 - found through the path set just above


def case_env(case: dict[str, Any], url: str, scratch: str) -> dict[str, str]:
    """The environment a case runs with: no gateway settings but the case's own."""
    base = {"PATH": os.environ["PATH"], "HOME": scratch, "LOBSTER_STATE_DIR": os.path.join(scratch, "state")}
    return {**base, **{k: v.replace("{url}", url) for k, v in case.get("env", {}).items()}}


def observe(bin_dir: Path, case: dict[str, Any], url: str) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as scratch:
        argv = [a.replace("{url}", url) for a in case["argv"]]
        done = subprocess.run([str(bin_dir / case["program"]), *argv], cwd=scratch, env=case_env(case, url, scratch),
                              input=case.get("stdin", ""), capture_output=True, text=True, timeout=60, check=False)
    return {"exit": done.returncode, "stdout": done.stdout.replace(url, "{url}"), "stderr": done.stderr.replace(url, "{url}")}


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    bin_dir, only = Path(argv[0]).parent, set(argv[1:])
    cases = json.loads(CASES.read_text(encoding="utf-8"))
    server = gateway_fake.start()
    try:
        url = f"http://127.0.0.1:{server.server_port}"
        for case in cases:
            if not only or case["name"] in only:
                case["expect"] = observe(bin_dir, case, url)
    finally:
        server.shutdown()
    CASES.write_text(json.dumps(cases, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
