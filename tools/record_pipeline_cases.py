"""Record the pipeline parser cases (tests/cases/pipelines.json) from the reference's own parser.

Usage: python tools/record_pipeline_cases.py /path/to/node_modules/.bin/lobster

The reference package exports `parsePipeline` from `@clawdbot/lobster/core`. Each case's `input`
is parsed with it (in one `node` process); `expect` becomes `{"stages": [{name, args}, …]}` (the
parser's `raw` field left out) or `{"error": message}` when the parser throws.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import unicodedata
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "tests" / "cases" / "pipelines.json"

# Reads a JSON list of inputs on stdin and prints one result per input.
PARSE_ALL = """
const { pathToFileURL } = await import("node:url");
const core = await import(pathToFileURL(process.argv[1]).href);
let text = "";
for await (const chunk of process.stdin) text += chunk;
const results = JSON.parse(text).map((input) => {
  try {
    return { stages: core.parsePipeline(input).map(({ name, args }) => ({ name, args })) };
  } catch (err) {
    return { error: String(err?.message ?? err) };
  }
});
process.stdout.write(JSON.stringify(results));
"""


def package_dir(lobster: str) -> Path:
    """The reference package folder behind `node_modules/.bin/lobster` (a link to `bin/lobster.js`)."""
    return Path(lobster).resolve().parent.parent


def parse_all(lobster: str, inputs: list[str]) -> list[dict[str, Any]]:
    core = package_dir(lobster) / "dist" / "src" / "core" / "index.js"
    done = subprocess.run(["node", "--input-type=module", "-e", PARSE_ALL, str(core)], input=json.dumps(inputs),
                          capture_output=True, text=True, timeout=120, check=True)
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def readable_json(value: Any) -> str:
    """JSON with letters and emoji as they are, and invisible characters (spaces, controls) as `\\uXXXX`."""
    text = json.dumps(value, indent=2, ensure_ascii=False)
    return re.sub(r"[^\x00-\x7f]", _escape_if_invisible, text)


def _escape_if_invisible(match: re.Match[str]) -> str:
    char = match.group()
    return f"\\u{ord(char):04x}" if unicodedata.category(char)[0] in "ZC" else char


def main(argv: list[str]) -> int:
    cases = json.loads(CASES.read_text(encoding="utf-8"))
    for case, result in zip(cases, parse_all(argv[0], [c["input"] for c in cases]), strict=True):
        case["expect"] = result
    CASES.write_text(readable_json(cases) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
