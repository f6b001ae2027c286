"""Workflow files compile as the reference loads them (tests/cases/workflows/reference.json).

Where the reference refuses a file, lobsterlang reports an error, and its first error (in
the reference's check order) carries the reference's message. Where the reference loads a
file, lobsterlang compiles it without errors. Diagnostics and IR are pinned as snapshots. A case
with a `lobsterlang` entry differs on purpose; its `note` says why.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers import CASES, load_json

from lobsterlang.compile import compile_workflow
from lobsterlang.ir_codec import to_json

WORKFLOWS = CASES / "workflows"
REFERENCE: dict[str, dict[str, Any]] = load_json(WORKFLOWS / "reference.json")

# Refused only by the reference's dry run, which evaluates references and commands: the
# compiler leaves these to the linter and the interpreter.
DRY_RUN_ONLY = {"94-condition-unknown-ref.lobster", "96-stdin-unknown-ref.lobster", "99-pipeline-unknown-command.lobster"}
# Messages produced by third-party parsers (yaml, V8's JSON.parse, Ajv): lobsterlang has its own wording.
OWN_WORDING = ("E", "X")
AJV_MESSAGE_PREFIX = "Workflow step a input.responseSchema is invalid: schema is invalid: data/type must be equal to one of the allowed values"


def _compile(name: str) -> Any:
    path = WORKFLOWS / name
    return compile_workflow(path.read_bytes(), f"tests/cases/workflows/{name}")


def test_the_case_set_is_substantial() -> None:
    assert len(REFERENCE) >= 30
    assert sum(1 for r in REFERENCE.values() if r["ok"]) >= 10


@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_matches_reference(name: str) -> None:
    expected = REFERENCE[name].get("lobsterlang") or REFERENCE[name]  # `lobsterlang`: differs on purpose (its `note`)
    errors = [d for d in _compile(name).diagnostics if d.is_error]
    if expected["ok"]:
        assert errors == []
    elif name in DRY_RUN_ONLY:
        assert all(e.code.startswith("X") for e in errors)
    elif errors[0].code.startswith(OWN_WORDING):
        assert errors, "expected an error"
    elif name == "62-input-bad-schema.json":
        assert expected["error"].startswith(errors[0].message) and errors[0].message == AJV_MESSAGE_PREFIX
    else:
        assert errors[0].message == expected["error"]


@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_diagnostics_snapshot(name: str, snapshot: Any) -> None:
    result = _compile(name)
    rendered = [f"{d.span.line}:{d.span.col} {d.code} {d.severity.value}: {d.message}" for d in result.diagnostics]
    assert rendered == snapshot


@pytest.mark.parametrize("name", sorted(n for n, r in REFERENCE.items() if (r.get("lobsterlang") or r)["ok"]))
def test_ir_snapshot(name: str, snapshot: Any) -> None:
    result = _compile(name)
    assert result.ir is not None
    assert to_json(result.ir) == snapshot


def test_every_case_file_is_listed() -> None:
    files = {p.name for p in WORKFLOWS.iterdir() if p.suffix in (".lobster", ".yaml", ".yml", ".json") and p.name != "reference.json"}
    assert files == set(REFERENCE)


def test_case_paths_exist() -> None:
    assert all((WORKFLOWS / name).is_file() for name in REFERENCE)
    assert Path(WORKFLOWS / "NOTES.md").is_file()
