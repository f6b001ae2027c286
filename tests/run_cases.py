"""Loading and comparing the recorded reference run cases (tests/cases/run/*.json)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from helpers import CASES

RUN_CASES = CASES / "run"
PLACEHOLDERS = {"resumeToken": "<token>", "approvalId": "<id>"}
_STAGE_NOTE = re.compile(r"^  in stage \d+ \([^)\n]*\)(?:; did you mean `[^`\n]+`\?)?\n", re.MULTILINE)


def all_cases() -> list[dict[str, Any]]:
    cases: list[dict[str, Any]] = []
    for path in sorted(RUN_CASES.glob("*.json")):
        cases += json.loads(path.read_text(encoding="utf-8"))
    return cases


def normalized(value: Any) -> Any:
    """Random resume tokens and approval ids replaced by placeholders; objects as lists of (key, value) pairs,
    so that the keys' order is compared too (JavaScript puts integer-like keys first)."""
    if isinstance(value, dict):
        return [(k, PLACEHOLDERS[k] if k in PLACEHOLDERS else normalized(v)) for k, v in value.items()]
    if isinstance(value, list):
        return [normalized(v) for v in value]
    return value


def comparable(stdout: str) -> Any:
    """Parsed and normalized JSON output, or the text itself."""
    try:
        return normalized(json.loads(stdout))
    except ValueError:
        return stdout


def write_files(folder: Path, files: dict[str, str], executables: list[str]) -> None:
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")
    for name in executables:
        (folder / name).chmod(0o755)


def reference_lines(err: str) -> str:
    """`err` without the line lobsterlang adds under a human-mode pipeline error, `  in stage 2 (pikc)` (issue 36
    item 4): the reference's own text stays pinned as recorded (tests/test_newcomer.py pins the stage lines)."""
    return _STAGE_NOTE.sub("", err)
