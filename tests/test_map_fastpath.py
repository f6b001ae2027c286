"""`map`'s inlined path for object items gives what `_reshape` gives (assignments see earlier ones)."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from lobsterlang.interpret.pipeline.commands.template import _assigned, _reshape, compile_template, keyed_template

_VALUES = st.none() | st.booleans() | st.integers(-5, 5) | st.text("ab", max_size=2) | st.lists(st.integers(0, 2), max_size=2)
_ITEMS = st.dictionaries(st.sampled_from(["a", "b", "c"]), _VALUES, max_size=3) | _VALUES
_ASSIGNMENTS = st.lists(
    st.tuples(st.sampled_from(["a", "c", "d"]), st.sampled_from(["{{a}}", "{{a}}/{{b}}", "x{{ c }}y", "{{a.0}}", "{{.}}", "lit", "{{a | upper}}", "{{d}}{{a}}", "{{a}}{{b}}/{{c}}-", ""])),
    min_size=1, max_size=3,
)


@settings(max_examples=400, deadline=None)
@given(items=st.lists(_ITEMS, max_size=4), assignments=_ASSIGNMENTS)
def test_inlined_assignments_give_what_reshape_gives(items: list[Any], assignments: list[tuple[str, str]]) -> None:
    compiled = [(key, compile_template(text, filters=False)) for key, text in assignments]
    expected = [_reshape(json.loads(json.dumps(item)), None, compiled) for item in items]
    keyed = [keyed_template(text, filters=False) for _, text in assignments]
    assert list(_assigned(iter(items), compiled, keyed)) == expected
