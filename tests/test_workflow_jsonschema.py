"""grammar/lobster-workflow.schema.json: a valid draft-07 schema that accepts the examples and
mirrors the reference loader on small edge cases."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped,unused-ignore]
import pytest
import yaml
from helpers import example_files

ROOT = Path(__file__).resolve().parent.parent
SCHEMA_PATH = ROOT / "grammar" / "lobster-workflow.schema.json"
EXAMPLES = example_files()

Doc = dict[str, Any]


def load_schema() -> Doc:
    schema: Doc = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    return schema


def validation_errors(doc: Any) -> list[str]:
    validator = jsonschema.Draft7Validator(load_schema())
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(doc)]


def wf(*steps: Any, **top: Any) -> Doc:
    return {**top, "steps": list(steps)}


def step(**fields: Any) -> Doc:
    return {"id": "a", **fields}


X = {"id": "x", "run": "printf '[1,2]'"}  # an earlier step for loops to iterate over
SUB = [{"id": "s", "run": "echo"}]
INPUT = {"prompt": "Decision?", "responseSchema": {"type": "object"}}
BRANCH = {"id": "b", "run": "echo"}

INVALID: list[tuple[str, Any]] = [
    ("not a mapping", ["steps"]),
    ("no steps", {"name": "x"}),
    ("empty steps", wf()),
    ("step without id", wf({"run": "echo"})),
    ("empty id", wf({"id": "", "run": "echo"})),
    ("no execution kind", wf(step())),
    ("run and pipeline", wf(step(run="echo", pipeline="json"))),
    ("command and workflow", wf(step(command="echo", workflow="c.lobster"))),
    ("run not a string", wf(step(run=123, approval=True))),
    ("blank workflow path", wf(step(workflow="  "))),
    ("workflow_args not a mapping", wf(step(run="echo", workflow_args=["x"]))),
    ("timeout_ms 0", wf(step(run="echo", timeout_ms=0))),
    ("timeout_ms too large", wf(step(run="echo", timeout_ms=2147483648))),
    ("timeout_ms fractional", wf(step(run="echo", timeout_ms=1.5))),
    ("on_error retry", wf(step(run="echo", on_error="retry"))),
    ("retry.max 0", wf(step(run="echo", retry={"max": 0}))),
    ("retry.backoff linear", wf(step(run="echo", retry={"backoff": "linear"}))),
    ("retry.jitter string", wf(step(run="echo", retry={"jitter": "yes"}))),
    ("parallel wait some", wf(step(parallel={"wait": "some", "branches": [BRANCH]}))),
    ("parallel without branches", wf(step(parallel={"branches": []}))),
    ("branch with run and pipeline", wf(step(parallel={"branches": [{**BRANCH, "pipeline": "json"}]}))),
    ("branch without command", wf(step(parallel={"branches": [{"id": "b", "run": ""}]}))),
    ("for_each with approval", wf(X, step(for_each="$x.json", steps=SUB, approval=True))),
    ("for_each with stdin", wf(X, step(for_each="$x.json", steps=SUB, stdin="$x.json"))),
    ("for_each with run", wf(X, step(for_each="$x.json", steps=SUB, run="echo"))),
    ("for_each without steps", wf(X, step(for_each="$x.json"))),
    # The loader accepts this, but a template always yields a string: "expected array, got string" at run time.
    ("for_each over a template", wf(X, step(for_each="items: $x.json", steps=SUB))),
    ("for_each batch_size 0", wf(X, step(for_each="$x.json", steps=SUB, batch_size=0))),
    ("sub-step workflow", wf(X, step(for_each="$x.json", steps=[{"id": "s", "workflow": "c.lobster"}]))),
    ("sub-step approval", wf(X, step(for_each="$x.json", steps=[{"id": "s", "run": "echo", "approval": True}]))),
    ("sub-step blank run", wf(X, step(for_each="$x.json", steps=[{"id": "s", "run": "   "}]))),
    ("sub-step id is the item var", wf(X, step(for_each="$x.json", steps=[{"id": "item", "run": "echo"}]))),
    ("input and approval", wf(step(input=INPUT, approval=True))),
    ("input and run", wf(step(input=INPUT, run="echo"))),
    ("input without responseSchema", wf(step(input={"prompt": "p"}))),
    ("approval 5", wf(step(approval=5))),
    ("approval false alone", wf(step(approval=False))),
    ("approval blank string", wf(step(approval="  "))),
    ("approval identity not a string", wf(step(approval={"initiated_by": 5}))),
    ("when 1", wf(step(run="echo", when=1))),
    ("when empty", wf(step(run="echo", when=""))),
    # Stricter than the loader, which silently drops non-string env values.
    ("env value not a string", wf(step(run="echo", env={"N": 5}))),
    ("cost_limit action halt", wf(step(run="echo"), cost_limit={"max_usd": 1, "action": "halt"})),
    ("cost_limit negative", wf(step(run="echo"), cost_limit={"max_usd": -1})),
]

VALID: list[tuple[str, Any]] = [
    ("unknown keys", {"nmae": "x", **wf(step(run="echo", retries=3, timeout=5, **{"on-error": "continue"}))}),
    ("run and command", wf(step(run="printf run", command="printf command"))),
    ("empty run beside pipeline", wf(step(run="", pipeline="json"))),
    ('approval "required"', wf(step(approval="required"))),
    ("approval true without run", wf(step(approval=True))),
    ("approval mapping with both spellings", wf(step(approval={"initiated_by": "a", "initiatedBy": "b"}))),
    ("approval false beside run", wf(step(run="echo", approval=False))),
    ("approval beside parallel", wf(step(approval="Go?", parallel={"branches": [BRANCH]}))),
    ("input step alone", wf(step(input={**INPUT, "defaults": {"decision": "approve"}}, stdin={"q": 1}))),
    ("when false", wf(step(run="echo", when=False))),
    ("condition used when when is null", wf(step(run="echo", when=None, condition=False))),
    ("branch with run and command", wf(step(parallel={"wait": "any", "branches": [{**BRANCH, "command": "x"}]}))),
    ("for_each ignores recovery keys", wf(X, step(for_each=" $x.json ", steps=SUB, on_error="continue", stdin=None))),
    (
        "sub-step id reuses a top-level id",
        wf(X, step(for_each="$x.json", item_var="it", steps=[{"id": "x", "run": "e"}])),
    ),
    ("id that cannot be referenced", wf({"id": "my.step", "run": "echo"})),
    ("decorative arg fields", wf(step(run="echo"), args={"n": {"default": None, "required": "yes", "type": 7}})),
    ("max_usd as a numeric string", wf(step(run="echo"), cost_limit={"max_usd": "1.5"})),
]


def test_schema_is_valid_draft7() -> None:
    schema = load_schema()
    jsonschema.Draft7Validator.check_schema(schema)
    assert schema["$schema"] == "http://json-schema.org/draft-07/schema#"
    assert schema["$id"] == "https://lobsterlang.dev/schema/lobster-workflow.schema.json"
    assert schema["title"] and schema["description"]


def test_every_known_property_is_described() -> None:
    # Rules (allOf/if/then…) and predicates (definitions/has_*) constrain properties; they need no hover text.
    skip = {"allOf", "anyOf", "oneOf", "not", "if", "then", "else", "examples", "defaultSnippets"}
    schema = load_schema()
    undescribed: list[str] = []

    def described(sub: Doc) -> bool:
        if "description" in sub:
            return True
        ref = sub.get("$ref", "")
        return ref.startswith("#/definitions/") and "description" in schema["definitions"][ref.rsplit("/", 1)[1]]

    def walk(node: Any, path: str) -> None:
        if not isinstance(node, dict):
            return
        undescribed.extend(f"{path}/{name}" for name, sub in node.get("properties", {}).items() if not described(sub))
        for key, value in node.items():
            if key not in skip and not key.startswith("has_"):
                walk(value, f"{path}/{key}")

    walk(schema, "")
    assert undescribed == []


def test_examples_exist() -> None:
    names = {p.relative_to(ROOT / "examples").as_posix() for p in EXAMPLES}
    assert {"hello.lobster", "json-workflow.json", "lib/notify.lobster"} <= names


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_is_valid(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    doc = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
    assert validation_errors(doc) == []


@pytest.mark.parametrize(("name", "doc"), INVALID, ids=[name for name, _ in INVALID])
def test_invalid_workflow_is_rejected(name: str, doc: Any) -> None:
    assert validation_errors(doc), f"{name} should be rejected"


@pytest.mark.parametrize(("name", "doc"), VALID, ids=[name for name, _ in VALID])
def test_valid_edge_case_is_accepted(name: str, doc: Any) -> None:
    assert validation_errors(doc) == []
