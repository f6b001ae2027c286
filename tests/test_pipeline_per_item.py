"""Work done once per stage gives what per-item work gave; the collector is paused where large trees are built."""

from __future__ import annotations

import gc
import math
import re
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from lobsterlang.compile import compile_pipeline
from lobsterlang.interpret.errors import CommandError
from lobsterlang.interpret.pipeline.commands.filters import FILTERS, parse_filter
from lobsterlang.interpret.pipeline.commands.template import PLACEHOLDER, compile_template, show, split_pipes
from lobsterlang.interpret.pipeline.commands.transform import identity, identity_key
from lobsterlang.interpret.pipeline.paths import get_path
from lobsterlang.interpret.pipeline.runtime import RunContext, run_pipeline
from lobsterlang.interpret.values import UNDEFINED


def rescanned(text: str, item: Any, *, filters: bool = True) -> str:
    """The former per-item renderer: a regex substitution with a callback, every filter parsed per use.

    As in the reference, a path's empty segments are skipped, so a path with none (`{{ }}`, `{{.}}`, `{{..}}`) is the
    item itself and `{{a.}}`, `{{.a}}` and `{{a..b}}` read `a` and `a.b`."""

    def replace(match: re.Match[str]) -> str:
        parts = split_pipes(match.group(1)) if filters else [match.group(1).strip()]
        segments = [segment for segment in parts[0].split(".") if segment]
        value = item if parts[0] == "this" or not segments else get_path(item, ".".join(segments))
        for expression in parts[1:]:
            name, args = parse_filter(expression)
            handler = FILTERS.get(name)
            if handler is None:
                raise CommandError(f"Unknown template filter: {name}")
            value = handler(value, args)
        return show(value)

    return PLACEHOLDER.sub(replace, text)


_PIECES = ["{{", "}}", " ", "a", "b", "a.b", ".", "this", "|", "upper", "default 'x|y'", "truncate 2", "lower", "trim", "nope", "x", "'", "\n"]
_TEMPLATES = st.lists(st.sampled_from(_PIECES), max_size=14).map("".join)
_SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**60), 2**60), st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(["", "1", "null", "true", "a", "é", "\ud800", "1.0", "0"]), st.text(max_size=3),
)
_VALUES = st.recursive(_SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from("ab"), inner, max_size=2), max_leaves=6)
_ITEMS = st.one_of(_VALUES, st.fixed_dictionaries({"a": _VALUES, "b": _VALUES}))


def _outcome(render: Any) -> tuple[str, str]:
    try:
        return "ok", render()
    except CommandError as exc:
        return "error", exc.message


@settings(max_examples=500, deadline=None)
@given(text=_TEMPLATES, item=_ITEMS, filters=st.booleans())
@example(text="{{ }}", item=[], filters=True)  # issue 30 item 4: the scan printed "" where the reference prints []
@example(text="{{\n}}", item=[], filters=False)
@example(text="{{a.}}{{.a}}{{a..b}}", item={"a": {"b": 1}}, filters=True)
def test_a_compiled_template_renders_as_the_per_item_scan_did(text: str, item: Any, filters: bool) -> None:
    compiled = compile_template(text, filters=filters)
    assert _outcome(lambda: compiled(item)) == _outcome(lambda: rescanned(text, item, filters=filters))


REFERENCE_ITEMS = [{"a": {"b": 1}}, {"a": 1}, [], {}, {"": 5}]
"""Items the templates below were rendered on by the reference (2026.9.13, `template --text`)."""


@pytest.mark.parametrize(
    ("text", "rendered"),
    [
        ("<{{ }}>", ['<{"a":{"b":1}}>', '<{"a":1}>', "<[]>", "<{}>", '<{"":5}>']),
        ("<{{\n}}>", ['<{"a":{"b":1}}>', '<{"a":1}>', "<[]>", "<{}>", '<{"":5}>']),
        ("<{{..}}>", ['<{"a":{"b":1}}>', '<{"a":1}>', "<[]>", "<{}>", '<{"":5}>']),
        ("<{{a.}}>", ['<{"b":1}>', "<1>", "<>", "<>", "<>"]),
        ("<{{.a}}>", ['<{"b":1}>', "<1>", "<>", "<>", "<>"]),
        ("<{{a..b}}>", ["<1>", "<>", "<>", "<>", "<>"]),
        ("<{{ | upper}}>", ["<[OBJECT OBJECT]>", "<[OBJECT OBJECT]>", "<>", "<[OBJECT OBJECT]>", "<[OBJECT OBJECT]>"]),
    ],
)
def test_empty_path_segments_render_as_the_reference_does(text: str, rendered: list[str]) -> None:
    """A path without segments is the item itself; the compiled template and the per-item scan both say so."""
    assert [compile_template(text)(item) for item in REFERENCE_ITEMS] == rendered
    assert [rescanned(text, item) for item in REFERENCE_ITEMS] == rendered


def test_keys_that_look_like_code_are_read_as_keys() -> None:
    item = {"a\\b": "x", "it's": "y", 'c"\\n': 1.5, "__import__('os')": None, "key0": "k"}
    compiled = compile_template("{{a\\b | upper}}|{{it's}}|{{c\"\\n}}|{{__import__('os')}}|{{key0}}|{{missing}}")
    assert compiled(item) == "X|y|1.5||k|"
    assert compiled(["not an object"]) == "|||||"


def test_templates_of_one_shape_keep_their_own_keys_literals_and_filters() -> None:
    first, second = compile_template("<{{a | upper}}:{{b}}>"), compile_template("[{{b | lower}}-{{a}}]")
    item = {"a": "Xy", "b": "Zw"}
    assert (first(item), second(item), first(item)) == ("<XY:Zw>", "[zw-Xy]", "<XY:Zw>")


@settings(max_examples=1000, deadline=None)
@given(a=_VALUES, b=_VALUES)
def test_group_keys_are_equal_exactly_when_json_identities_are(a: Any, b: Any) -> None:
    assert (identity_key(a) == identity_key(b)) == (identity(a) == identity(b))


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        (1, 1.0, True), (0.0, -0.0, True), (1, True, False), ("1", 1, False), ("null", None, False),
        (math.nan, None, True), (math.inf, None, True), (2**60, float(2**60), False), (UNDEFINED, None, False),
    ],
)
def test_group_keys_follow_json_text(a: Any, b: Any, same: bool) -> None:
    assert (identity_key(a) == identity_key(b)) is same


def test_the_collector_is_paused_while_the_pipeline_runs_and_resumed_after() -> None:
    pipeline = compile_pipeline("head --n 1").ir
    assert pipeline is not None and gc.isenabled()
    seen = run_pipeline(pipeline, (gc.isenabled() for _ in range(1)), RunContext(mode="tool"))
    assert seen.items == [False]
    assert gc.isenabled()


def test_streaming_stages_pass_items_along_and_head_stops_upstream_work() -> None:
    """where, pick, map, template and dedupe take items as they come: an endless input ends at head."""
    pulled = 0

    def endless() -> Any:
        nonlocal pulled
        while True:
            pulled += 1
            yield {"n": pulled, "name": f"item-{pulled}"}

    text = "where 'n>2' | pick n,name | map 'label={{name}}' | dedupe --key n | template --text '{{label}}' | head --n 3"
    pipeline = compile_pipeline(text).ir
    assert pipeline is not None
    result = run_pipeline(pipeline, endless(), RunContext(mode="tool"))
    assert result.items == ["item-3", "item-4", "item-5"]
    assert pulled == 5


def test_encoding_a_large_ir_runs_no_collection() -> None:
    """to_json builds a large acyclic tree: with the collector running it was rescanned again and again."""
    from lobsterlang.compile import compile_workflow
    from lobsterlang.ir_codec import to_json

    steps = "".join(f"  - id: s{n}\n    run: echo {n}\n" for n in range(2000))
    workflow = compile_workflow(f"steps:\n{steps}", "big.lobster").ir
    collections: list[str] = []

    def count(phase: str, info: dict[str, int]) -> None:
        collections.append(phase)

    gc.callbacks.append(count)
    try:
        encoded = to_json(workflow)
    finally:
        gc.callbacks.remove(count)
    assert len(encoded["steps"]) == 2000
    assert collections == []
