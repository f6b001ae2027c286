"""Hover on a key: every key of the workflow JSON Schema has one, and it is the text of the level where the key stands
(a top-level `steps:` is not a for_each loop's, a sub-step's `when:` is not a step's)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from lobsterlang_lsp.documents import Documents
from lobsterlang_lsp.hovers import hover_text

from lobsterlang.grammar_files import grammar_file
from lobsterlang.query.at import key_at

SCHEMA: dict[str, Any] = json.loads(grammar_file("lobster-workflow.schema.json").read_text(encoding="utf-8"))

WHERE = {
    "root": "{key}: x\n",
    "step": "steps:\n  - id: a\n    {key}: x\n",
    "substep": "steps:\n  - id: a\n    for_each: $b.json\n    steps:\n      - id: c\n        {key}: x\n",
    "branch": "steps:\n  - id: a\n    parallel:\n      branches:\n        - id: c\n          {key}: x\n",
    "parallel": "steps:\n  - id: a\n    parallel:\n      {key}: x\n",
    "approval_object": "steps:\n  - id: a\n    approval:\n      {key}: x\n",
    "input": "steps:\n  - id: a\n    input:\n      {key}: x\n",
    "arg": "args:\n  who:\n    {key}: x\n",
}
"""A document with `{key}` at each level the schema defines properties for."""


def _described(prop: dict[str, Any]) -> str:
    """What the schema says of a property: its own (markdown) description, else the definition it refers to."""
    text = prop.get("markdownDescription") or prop.get("description")
    if text or "$ref" not in prop:
        return str(text or "")
    return _described(SCHEMA["definitions"][prop["$ref"].split("/")[-1]])


def _properties(level: str) -> dict[str, Any]:
    node = SCHEMA if level == "root" else SCHEMA["definitions"][level]
    properties: dict[str, Any] = node["properties"]
    return properties


CASES = [(level, key) for level in WHERE for key in _properties(level)]


def hover_on_key(text: str, key: str, tmp_path: Path) -> str | None:
    offset = text.rindex(f"{key}:") + 1
    documents = Documents()
    uri = (tmp_path / "keys.lobster").as_uri()
    documents.dirty.add(uri)
    hit = key_at(text, offset)
    assert hit is not None and hit.name == key
    return hover_text(documents.analysis(uri, text, 1), hit)


@pytest.mark.parametrize(("level", "key"), CASES, ids=[f"{level}.{key}" for level, key in CASES])
def test_every_schema_key_has_the_hover_of_its_level(level: str, key: str, tmp_path: Path) -> None:
    expected = _described(_properties(level)[key])
    assert expected, f"the schema describes {level}.{key}"
    assert hover_on_key(WHERE[level].format(key=key), key, tmp_path) == expected


@pytest.mark.parametrize(("text", "key"), [
    ("steps:\n  - id: a\n    run: x\n    retry:\n      backoff: fixed\n", "backoff"),
    ("cost_limit:\n  max_usd: 1\n", "max_usd"),
])
def test_keys_of_the_policies_have_a_hover(text: str, key: str, tmp_path: Path) -> None:
    """`retry` and `cost_limit` keys are described by the server, not by the schema."""
    assert hover_on_key(text, key, tmp_path)


def test_the_top_level_steps_is_not_a_loops_steps(tmp_path: Path) -> None:
    top = hover_on_key(WHERE["root"].format(key="steps"), "steps", tmp_path)
    loop = hover_on_key(WHERE["step"].format(key="steps"), "steps", tmp_path)
    assert top and loop and top != loop and "for_each" in loop and "for_each" not in top
