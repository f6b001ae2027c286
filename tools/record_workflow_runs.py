"""Record what the reference CLI prints for each workflow-run case (tests/cases/workflow_runs/*.case.json).

Usage: python tools/record_workflow_runs.py /path/to/reference/lobster [CASE ...]

Each case lists commands (`args`, optional `env`); `{file}` is the case's workflow file,
`{token}` / `{id}` the resume token / approval id of the previous envelope. In `env` values,
`{state}` is the case's state directory, `{adapter}` the URL of the stand-in LLM adapter and
OpenClaw gateway (tests/llm_fake.py) and `{bin}` the folder of the recorded CLI, where its package installed
`openclaw.invoke` and `clawd.invoke` beside `lobster`. The commands run in order, in tests/cases/workflow_runs/,
with a fresh LOBSTER_STATE_DIR. The exit code, stdout and stderr of each are stored under
`expected` after normalising (see `normalise`).
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

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "tests" / "cases" / "workflow_runs"


def substitute(arg: str, case_file: Path, last: dict[str, Any]) -> str:
    """Fill in `{file}`, `{token}` and `{id}`."""
    return arg.replace("{file}", str(case_file)).replace("{token}", str(last.get("token", ""))).replace(
        "{id}", str(last.get("id", ""))
    )


def fill_env(env: dict[str, str], state: str, adapter: str, bin_dir: str = "") -> dict[str, str]:
    """A command's `env` with `{state}`, `{adapter}` and `{bin}` filled in."""
    return {k: v.replace("{state}", state).replace("{adapter}", adapter).replace("{bin}", bin_dir) for k, v in env.items()}


def gate_of(stdout: str) -> dict[str, Any]:
    """The resume token and approval id in an envelope, if any."""
    try:
        data = json.loads(stdout)
    except ValueError:
        return {}
    if not isinstance(data, dict):
        return {}
    request = data.get("requiresApproval") or data.get("requiresInput") or {}
    found = {"token": request.get("resumeToken"), "id": request.get("approvalId")}
    return {k: v for k, v in found.items() if v}


RUN_ID = re.compile(r"--run r[0-9a-f]{12}\b")
MASKED = ("resumeToken", "approvalId", "createdAt", "storedAt")
"""Keys whose values differ from run to run (an LLM answer's times), replaced by `<key>`."""


def normalise(text: str) -> Any:
    """Parsed JSON (tokens, ids and times replaced by placeholders) or the text; the case dir becomes `<dir>`, a
    run id in `--run ID` becomes `<runId>`."""
    text = RUN_ID.sub("--run <runId>", text.replace(str(CASES), "<dir>"))
    try:
        data = json.loads(text)
    except ValueError:
        return text
    return _mask(data)


def _mask(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: ("<" + k + ">" if k in MASKED else _mask(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [_mask(v) for v in value]
    return value


def run_case(case_path: Path, argv0: list[str], adapter: str = "") -> list[dict[str, Any]]:
    """Run a case's commands with `argv0` (the CLI to record) and return what each printed."""
    case = json.loads(case_path.read_text(encoding="utf-8"))
    workflow = CASES / case["file"]
    results = []
    last: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as state:
        for command in case["commands"]:
            filled = fill_env(command.get("env", {}), state, adapter, os.path.dirname(argv0[0]))
            env = {**os.environ, "LOBSTER_STATE_DIR": state, **filled}
            args = [substitute(a, workflow, last) for a in command["args"]]
            proc = subprocess.run([*argv0, *args], cwd=CASES, env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL)
            last = gate_of(proc.stdout) or last
            results.append({"exit": proc.returncode, "stdout": normalise(proc.stdout), "stderr": normalise(proc.stderr)})
    return results


def main(argv: list[str]) -> int:
    if not argv or argv[0].endswith(".case.json"):
        print(__doc__, file=sys.stderr)
        return 2
    reference = argv[0]
    names = [a for a in argv if a.endswith(".case.json")]
    paths = [CASES / n for n in names] if names else sorted(CASES.glob("*.case.json"))
    sys.path.insert(0, str(ROOT / "tests"))
    import llm_fake

    server = llm_fake.start()
    adapter = f"http://127.0.0.1:{server.server_port}"
    for path in paths:
        case = json.loads(path.read_text(encoding="utf-8"))
        case["expected"] = run_case(path, [reference], adapter)
        path.write_text(json.dumps(case, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"recorded {path.name}", file=sys.stderr)
    server.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
