"""Pipeline parsing matches the reference parser, case by case (tests/cases/pipelines.json)."""

from __future__ import annotations

from typing import Any

import pytest
from helpers import CASES, load_json, reference_stages

from lobsterlang import ir
from lobsterlang.compile import compile_pipeline

CASE_LIST: list[dict[str, Any]] = load_json(CASES / "pipelines.json")
# JavaScript object-key accidents of the reference, which lobsterlang does not reproduce:
# a flag named `_` overwrites the positional list and `__proto__` flags vanish. Here they
# are ordinary flags (see docs/language.md, "Differences from the reference").
QUIRKS = {c["name"] for c in CASE_LIST if c["name"].endswith("-quirk")}


def test_the_case_file_is_substantial() -> None:
    assert len(CASE_LIST) >= 40
    assert sum("error" in c["expect"] for c in CASE_LIST) >= 5


@pytest.mark.parametrize("case", [c for c in CASE_LIST if c["name"] not in QUIRKS], ids=lambda c: c["name"])
def test_pipeline_matches_reference(case: dict[str, Any]) -> None:
    result = compile_pipeline(case["input"])
    expect = case["expect"]
    if "error" in expect:
        assert result.ir is None, f"expected error {expect['error']!r}"
        assert result.diagnostics[0].message == expect["error"]
        assert result.diagnostics[0].code.startswith("P")
    else:
        assert result.ir is not None, [d.message for d in result.diagnostics]
        assert reference_stages(result.ir) == expect["stages"]


@pytest.mark.parametrize("text", ["exec --__proto__=x y", "exec --__proto__", "exec a b --_=z", "exec --_=z a"])
def test_javascript_key_quirks_are_ordinary_flags(text: str) -> None:
    pipeline = compile_pipeline(text).ir
    assert pipeline is not None
    flags = [a for a in pipeline.stages[0].args if isinstance(a, ir.Flag)]
    assert [f.name for f in flags] in (["__proto__"], ["_"])


def test_quirk_list_is_what_we_expect() -> None:
    assert len(QUIRKS) == 4
