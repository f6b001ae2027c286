"""`groupBy` groups as the reference does: by the JSON text of each key, groups in first-arrival order, items in arrival order."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from lobsterlang.compile import compile_pipeline
from lobsterlang.interpret.pipeline.paths import get_path
from lobsterlang.interpret.pipeline.runtime import RunContext, run_pipeline
from lobsterlang.interpret.values import UNDEFINED, stringify

_SCALARS = st.sampled_from([None, True, False, 0, -0.0, 1, 1.0, "1", "true", "null", "", "é", 2.5, 2**53, 2**53 + 1, 10**21, 1e21, float("nan"), float("inf")])
"""Values whose JSON texts collide (1 and 1.0, 0 and -0.0, null and NaN) or only look alike (1 and "1" and true)."""
_VALUES = st.recursive(_SCALARS, lambda inner: st.lists(inner, max_size=2) | st.dictionaries(st.sampled_from(["a", "b"]), inner, max_size=2), max_leaves=4)
_KEYED = st.builds(lambda value: {"k": value}, _VALUES)
_ITEMS = st.lists(
    st.one_of(_KEYED, _KEYED, _KEYED, st.builds(lambda value: {"k": {"a": value}}, _VALUES), st.just({}), _SCALARS, st.lists(_SCALARS, max_size=2)),
    max_size=25,
)


def _expected(items: list[Any], path: str) -> list[dict[str, Any]]:
    """The reference's grouping, written plainly: the first value of each JSON text (`undefined` its own) and its items."""
    groups: dict[str, tuple[Any, list[Any]]] = {}
    for item in items:
        value = get_path(item, path)
        text = "\0undefined" if value is UNDEFINED else stringify(value)
        groups.setdefault(text, (value, []))[1].append(item)
    return [{"key": value, "items": members, "count": len(members)} for value, members in groups.values()]


@settings(max_examples=300, deadline=None)
@given(items=_ITEMS, path=st.sampled_from(["k", "k.a", "0", "id"]))
def test_groups_follow_the_json_text_of_each_key(items: list[Any], path: str) -> None:
    pipeline = compile_pipeline(f"groupBy --key {path}").ir
    assert pipeline is not None
    result = run_pipeline(pipeline, list(items), RunContext()).items
    assert stringify(result) == stringify(_expected(items, path))
    assert [id(member) for group in result for member in group["items"]] == [
        id(member) for group in _expected(items, path) for member in group["items"]
    ]
