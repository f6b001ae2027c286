"""Record the LLM command cases from the reference CLI: `python tools/record_llm_cases.py /path/to/reference/lobster`.

Starts the stand-in adapter of tests/llm_fake.py, runs each case in a scratch folder and writes
tests/cases/llm.json (the pipeline, its setup runs and the reference's exit code, stdout and stderr).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import llm_fake  # noqa: E402 - found through the path set just above

SCHEMA = '\'{"type":"object","required":["score"]}\''
CASES = [
 ("artifacts-and-options", "exec --json --shell 'cat arts.json' | llm.invoke --prompt 'Summarize' --model m1 --metadata-json '{\"a\":1}' --temperature 0.5 --max-output-tokens 100", []),
 ("positional-prompt", "llm.invoke Hello there --provider http --disable-cache", []),
 ("remote-error", "llm.invoke --prompt fail --disable-cache", []),
 ("invalid-envelope", "llm.invoke --prompt invalid --disable-cache", []),
 ("schema-retry", f"llm.invoke --prompt schema --output-schema {SCHEMA} --disable-cache", []),
 ("schema-fails", f"llm.invoke --prompt badschema --output-schema {SCHEMA} --max-validation-retries 0 --disable-cache", []),
 ("bare-json-reply", "llm.invoke --prompt bare --disable-cache", []),
 ("http-error", "llm.invoke --prompt http500 --disable-cache", []),
 ("unknown-provider", "llm.invoke --prompt x --provider nope", []),
 ("artifacts-not-array", "llm.invoke --artifacts-json '{}' --prompt x", []),
 ("no-prompt", "llm.invoke", []),
 ("cache-replay", "llm.invoke --prompt again", ["llm.invoke --prompt again"]),
 ("state-replay", "llm.invoke --prompt hi --state-key run1 --disable-cache", ["llm.invoke --prompt hi --state-key run1 --disable-cache"]),
 ("refresh-bypasses-cache", "llm.invoke --prompt again --refresh", ["llm.invoke --prompt again"]),
 ("task-alias-openclaw", "llm_task.invoke --prompt hi --disable-cache", []),
 ("openclaw-provider", "llm.invoke --provider openclaw --prompt hi --disable-cache", []),
 ("no-provider", "llm.invoke --prompt hi", []),
 ("triage-rules", "exec --json --shell 'cat emails.json' | email.triage", []),
 ("triage-rules-limit", "exec --json --shell 'cat emails.json' | email.triage --limit 2", []),
 ("triage-rules-drafts", "exec --json --shell 'cat emails.json' | email.triage --emit drafts", []),
 ("triage-llm-without-provider", "exec --json --shell 'cat emails.json' | email.triage --llm", []),
 ("triage-llm-report", "exec --json --shell 'cat emails.json' | email.triage --llm --model m9 --limit 5 | pick summary,buckets,decisions,drafts,mode", []),
 ("triage-llm-drafts", "exec --json --shell 'cat emails.json' | email.triage --llm --emit drafts", []),
]


def uses_adapter(name: str) -> bool:
    """Cases without an adapter URL in the environment exercise provider resolution and rule-based triage."""
    return name not in ("no-provider", "triage-llm-without-provider") and not name.startswith("triage-rules")


def record(lobster: str, url: str) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for name, pipeline, setup in CASES:
        with tempfile.TemporaryDirectory() as scratch:
            folder = Path(scratch)
            (folder / "arts.json").write_text(llm_fake.ARTIFACTS, encoding="utf-8")
            (folder / "emails.json").write_text(llm_fake.EMAILS, encoding="utf-8")
            env = {"PATH": os.environ["PATH"], "HOME": scratch, "LOBSTER_STATE_DIR": scratch + "/state", "LOBSTER_CACHE_DIR": scratch + "/cache"}
            if uses_adapter(name):
                env.update(LOBSTER_LLM_ADAPTER_URL=url, OPENCLAW_URL=url + "/ignored", OPENCLAW_TOKEN="tk")
            for earlier in setup:
                subprocess.run([lobster, earlier], cwd=scratch, env=env, capture_output=True, check=False)
            proc = subprocess.run([lobster, pipeline], cwd=scratch, env=env, capture_output=True, text=True, check=False)
            out.append({"name": name, "pipeline": pipeline, "setup": setup, "provider_env": uses_adapter(name),
                        "expect": {"exit": proc.returncode, "stdout": proc.stdout, "stderr": proc.stderr}})
    return out


def main(argv: list[str]) -> int:
    server = llm_fake.start()
    cases = record(argv[1], f"http://127.0.0.1:{server.server_port}")
    (ROOT / "tests" / "cases" / "llm.json").write_text(json.dumps(cases, indent=2) + "\n", encoding="utf-8")
    server.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
