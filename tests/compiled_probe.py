"""Print, as JSON, what lobsterlang makes of many inputs: IR, compile diagnostics and lint findings.

`test_compiled_build` runs this script under the pure-Python package and under a
mypyc-compiled wheel; the two outputs must be identical.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import corpus  # noqa: E402

import lobsterlang  # noqa: E402
from lobsterlang.compile import compile_pipeline, compile_workflow  # noqa: E402
from lobsterlang.ir_codec import to_json  # noqa: E402
from lobsterlang.lint import Config, Source, lint_sources  # noqa: E402
from lobsterlang.report import diagnostic_json  # noqa: E402

MALFORMED: dict[str, bytes] = {
    "tabs.lobster": b"steps:\n\t- id: a\n",
    "unclosed.lobster": b"steps:\n  - id: a\n    pipeline: exec 'oops\n",
    "deep.lobster": b"args: " + b"[" * 300 + b"]" * 300 + b"\nsteps: []\n",
    "bomb.lobster": b"a: &a [x, x]\nb: &b [*a, *a]\nc: &c [*b, *b]\nsteps: [*c]\n",
    "bom.lobster.json": b'\xef\xbb\xbf{"steps": []}',
    "nan.lobster.json": b'{"steps": [{"id": "a", "run": "x", "timeout_ms": NaN}]}',
    "bad-utf8.lobster": b"steps:\n  - id: \xff\n    run: x\n",
    "when.lobster": b"steps:\n  - id: a\n    run: x\n  - id: b\n    when: a == = 1\n    run: y\n",
}


def workflow_inputs() -> Iterator[tuple[str, bytes]]:
    for i in range(60):
        yield f"corpus-{i}.lobster", corpus.workflow(f"probe-{i}", 20).encode()
    for pattern in ("*.lobster", "*.yaml", "*.yml", "*.json"):
        for folder in (ROOT / "examples", ROOT / "tests" / "lint", ROOT / "tests" / "cases" / "workflows"):
            for path in sorted(folder.rglob(pattern)):
                yield path.relative_to(ROOT).as_posix(), path.read_bytes()
    yield from MALFORMED.items()


def pipeline_inputs() -> Iterator[str]:
    for case in json.loads((ROOT / "tests" / "cases" / "pipelines.json").read_text(encoding="utf-8")):
        yield case["input"]
    yield from ("a | b", "a ||", "  | a", "'unclosed", "x \"a\\\"b\" 'c\\'d' --k=v --f", "where 'a\\\\'b' | c")


def main() -> None:
    workflows = list(workflow_inputs())
    results: dict[str, Any] = {"compiled": lobsterlang.compiled()}
    for name, data in workflows:
        compiled = compile_workflow(data, name)
        ir = None if compiled.ir is None else to_json(compiled.ir)
        results[name] = {"ir": ir, "diagnostics": [diagnostic_json(name, d) for d in compiled.diagnostics]}
    for result in lint_sources([Source(name, data) for name, data in workflows], Config(shellcheck=False)):
        results[result.path]["lint"] = [diagnostic_json(result.path, d) for d in result.diagnostics]
    for i, text in enumerate(pipeline_inputs()):
        compiled_pipeline = compile_pipeline(text)
        ir = None if compiled_pipeline.ir is None else to_json(compiled_pipeline.ir)
        key = f"pipeline {i}: {text}"
        results[key] = {"ir": ir, "diagnostics": [diagnostic_json(key, d) for d in compiled_pipeline.diagnostics]}
    json.dump(results, sys.stdout, sort_keys=True)


if __name__ == "__main__":
    main()
