"""The IR codec round-trips every compiled input, and its JSON Schema is current and valid."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from helpers import CASES, ROOT, example_files, load_json
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lobsterlang import ir
from lobsterlang.compile import compile_pipeline, compile_workflow
from lobsterlang.ir_codec import IRFormatError, from_json, to_json
from lobsterlang.record import FrozenRecordError
from tools.gen_ir_schema import generate

SCHEMA = load_json(ROOT / "docs" / "ir.schema.json")
WORKFLOW_FILES = sorted((CASES / "workflows").glob("[0-9]*.*")) + example_files()


def _compiled(path: Path) -> Any:
    return compile_workflow(path.read_bytes(), str(path.relative_to(ROOT))).ir


@pytest.mark.parametrize("path", WORKFLOW_FILES, ids=lambda p: p.name)
def test_workflow_round_trip(path: Path) -> None:
    workflow = _compiled(path)
    if workflow is None:
        pytest.skip("the file has no IR (it is refused before any step is read)")
    data = to_json(workflow)
    assert data["ir_version"] == ir.IR_VERSION
    assert from_json(json.loads(json.dumps(data))) == workflow
    jsonschema.validate(data, SCHEMA)


@pytest.mark.parametrize("case", load_json(CASES / "pipelines.json"), ids=lambda c: c["name"])
def test_pipeline_round_trip(case: dict[str, Any]) -> None:
    pipeline = compile_pipeline(case["input"]).ir
    if pipeline is None:
        pytest.skip("error case")
    data = to_json(pipeline)
    assert from_json(json.loads(json.dumps(data))) == pipeline
    jsonschema.validate(data, SCHEMA)


def test_ir_schema_is_current() -> None:
    assert (ROOT / "docs" / "ir.schema.json").read_text(encoding="utf-8") == generate(), (
        "docs/ir.schema.json is stale: run `python tools/gen_ir_schema.py`"
    )


def test_ir_schema_is_a_valid_schema() -> None:
    jsonschema.Draft7Validator.check_schema(SCHEMA)


def test_records_are_frozen_and_compare_by_value() -> None:
    pipeline = compile_pipeline("exec echo hi | json").ir
    assert pipeline is not None
    with pytest.raises(FrozenRecordError):
        pipeline.text = "x"  # type: ignore[misc]
    assert pipeline == compile_pipeline("exec echo hi | json").ir
    assert hash(pipeline) == hash(compile_pipeline("exec echo hi | json").ir)


@pytest.mark.parametrize(
    "data, message",
    [
        ([], "IR must be a JSON object"),
        ({"ir_version": 99, "type": "Pipeline"}, "unsupported ir_version"),
        ({"type": "Nope"}, "unknown IR node type"),
        ({"type": "Text", "value": "x"}, "missing field 'span'"),
        ({"type": "Text", "value": "x", "span": [1, 2]}, "a span is a list of 6 integers"),
    ],
)
def test_bad_ir_json_is_refused_clearly(data: Any, message: str) -> None:
    with pytest.raises(IRFormatError, match=message):
        from_json(data)


# ── property: any workflow built from these pieces survives compile → JSON → IR ──

_ids = st.from_regex(r"[a-z][a-z0-9_-]{0,8}", fullmatch=True)
_text = st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=30)
_words = st.lists(st.from_regex(r"[a-z0-9.,=]{1,6}", fullmatch=True), min_size=1, max_size=4)
_pipelines = st.lists(_words, min_size=1, max_size=3).map(lambda stages: " | ".join(" ".join(w) for w in stages))
_json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-1000, 1000) | _text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_ids, inner, max_size=3),
    max_leaves=6,
)


@st.composite
def _workflows(draw: st.DrawFn) -> dict[str, Any]:
    ids = draw(st.lists(_ids, min_size=1, max_size=5, unique=True))
    steps: list[dict[str, Any]] = []
    for index, step_id in enumerate(ids):
        step: dict[str, Any] = {"id": step_id}
        kind = draw(st.sampled_from(["run", "pipeline", "approval"]))
        step[kind] = draw(_text.filter(str.strip)) if kind != "pipeline" else draw(_pipelines)
        if index and draw(st.booleans()):
            step["when"] = f"${ids[index - 1]}.json.count > {draw(st.integers(0, 9))}"
        if draw(st.booleans()):
            step["stdin"] = draw(_json_values)
        if draw(st.booleans()):
            step["env"] = {"X_" + step_id.upper().replace("-", "_"): draw(_text)}
        steps.append(step)
    return {"name": draw(_text), "args": {"who": {"default": draw(_json_values)}}, "steps": steps}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_workflows(), st.booleans())
def test_generated_workflows_round_trip(doc: dict[str, Any], as_json: bool) -> None:
    text = json.dumps(doc, ensure_ascii=False)
    result = compile_workflow(text.encode(), "gen.json" if as_json else "gen.lobster")
    assert result.ir is not None, [d.message for d in result.diagnostics]
    assert not any(d.is_error for d in result.diagnostics), [d.message for d in result.diagnostics]
    assert from_json(json.loads(json.dumps(to_json(result.ir)))) == result.ir
