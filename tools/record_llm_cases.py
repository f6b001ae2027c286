"""Record the LLM command cases from the reference CLI: `python tools/record_llm_cases.py /path/to/reference/lobster`.

Starts the stand-in adapter of tests/llm_fake.py, runs each case in a scratch folder and writes
tests/cases/llm.json (the pipeline, its setup runs, the case's own environment and the reference's exit code,
stdout and stderr). A case's `xfail` (reference behaviour lobsterlang does not have yet, naming the work
item) is kept.
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
SPOIL_CACHE = "exec --shell 'for f in \"$LOBSTER_CACHE_DIR\"/*/*.json; do printf %s \"$SPOIL\" > \"$f\"; done'"
"""Overwrites every cache entry with the case's SPOIL text (a setup step)."""
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
 ("temperature-in-cache-key", "llm.invoke --prompt again --temperature 0.7", ["llm.invoke --prompt again --temperature 0.2"]),
 ("max-output-tokens-in-cache-key", "llm.invoke --prompt again --max-output-tokens 50", ["llm.invoke --prompt again"]),
 ("same-sampling-replays", "llm.invoke --prompt again --temperature 0.7 --max-output-tokens 50",
  ["llm.invoke --prompt again --temperature 0.7 --max-output-tokens 50"]),
 ("schema-no-retries-one-call", f"llm.invoke --prompt schema --output-schema {SCHEMA} --max-validation-retries 0 --disable-cache", []),
 ("schema-default-one-extra-call", f"llm.invoke --prompt schema3 --output-schema {SCHEMA} --disable-cache", []),
 ("schema-two-extra-calls", f"llm.invoke --prompt schema3 --output-schema {SCHEMA} --max-validation-retries 2 --disable-cache", []),
 ("corrupt-cache-entry-is-a-miss", "llm.invoke --prompt again", ["llm.invoke --prompt again", SPOIL_CACHE]),
 ("cache-entry-of-another-key-is-a-miss", "llm.invoke --prompt again", ["llm.invoke --prompt again", SPOIL_CACHE]),
 ("http-cap-not-a-number", "llm.invoke --prompt hi --disable-cache", []),
 ("http-cap-zero", "llm.invoke --prompt hi --disable-cache", []),
 ("http-cap-fraction", "llm.invoke --prompt hi --disable-cache", []),
 ("http-cap-while-reading", "llm.invoke --prompt big --disable-cache", []),
 ("http-cap-declared-length", "llm.invoke --prompt sized --disable-cache", []),
 ("http-cap-stream-stops-early", "llm.invoke --prompt stream --disable-cache", []),
 ("http-cap-fits", "llm.invoke --prompt big --disable-cache", []),
 ("http-cap-openclaw-provider", "llm.invoke --provider openclaw --prompt big --disable-cache", []),
 ("http-cap-task-alias", "llm_task.invoke --prompt big --disable-cache", []),
 ("http-cap-openclaw-invoke", "openclaw.invoke --tool t --action a --args-json '{\"pad\":3000}'", []),
 ("http-cap-openclaw-invoke-fits", "openclaw.invoke --tool t --action a --args-json '{\"pad\":30}'", []),
 ("http-cap-openclaw-invoke-not-a-number", "openclaw.invoke --tool t --action a", []),
]
ENV: dict[str, dict[str, str]] = {
    "corrupt-cache-entry-is-a-miss": {"SPOIL": "{not json"},
    "cache-entry-of-another-key-is-a-miss": {"SPOIL": '{"cacheKey": "other", "items": [{"kind": "stale"}]}'},
    "http-cap-not-a-number": {"LOBSTER_MAX_HTTP_RESPONSE_BYTES": "abc"},
    "http-cap-zero": {"LOBSTER_MAX_HTTP_RESPONSE_BYTES": "0"},
    "http-cap-fraction": {"LOBSTER_MAX_HTTP_RESPONSE_BYTES": "1.5"},
    "http-cap-while-reading": {"LOBSTER_MAX_HTTP_RESPONSE_BYTES": "1024"},
    "http-cap-declared-length": {"LOBSTER_MAX_HTTP_RESPONSE_BYTES": "50"},
    "http-cap-stream-stops-early": {"LOBSTER_MAX_HTTP_RESPONSE_BYTES": "1024"},
    "http-cap-fits": {"LOBSTER_MAX_HTTP_RESPONSE_BYTES": " 100000 "},
    "http-cap-openclaw-provider": {"LOBSTER_MAX_HTTP_RESPONSE_BYTES": "1024"},
    "http-cap-task-alias": {"LOBSTER_MAX_HTTP_RESPONSE_BYTES": "1024"},
    "http-cap-openclaw-invoke": {"LOBSTER_MAX_HTTP_RESPONSE_BYTES": "1024"},
    "http-cap-openclaw-invoke-fits": {"LOBSTER_MAX_HTTP_RESPONSE_BYTES": "1024"},
    "http-cap-openclaw-invoke-not-a-number": {"LOBSTER_MAX_HTTP_RESPONSE_BYTES": "²"},
}
"""Settings of single cases, on top of the common environment."""


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
            env.update(ENV.get(name, {}))
            for earlier in setup:
                subprocess.run([lobster, earlier], cwd=scratch, env=env, capture_output=True, check=False)
            proc = subprocess.run([lobster, pipeline], cwd=scratch, env=env, capture_output=True, text=True, check=False)
            out.append({"name": name, "pipeline": pipeline, "setup": setup, "provider_env": uses_adapter(name),
                        **({"env": ENV[name]} if name in ENV else {}),
                        "expect": {"exit": proc.returncode, "stdout": proc.stdout, "stderr": proc.stderr}})
    return out


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    path = ROOT / "tests" / "cases" / "llm.json"
    xfails = {c["name"]: c["xfail"] for c in json.loads(path.read_text(encoding="utf-8")) if "xfail" in c}
    server = llm_fake.start()
    cases = record(argv[1], f"http://127.0.0.1:{server.server_port}")
    server.shutdown()
    for case in cases:
        if case["name"] in xfails:
            case["xfail"] = xfails[case["name"]]
    path.write_text(json.dumps(cases, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
