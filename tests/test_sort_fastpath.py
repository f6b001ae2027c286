"""`sort` gives the reference comparator's stable order, whichever fast path it takes."""

from __future__ import annotations

import functools
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from lobsterlang.compile import compile_pipeline
from lobsterlang.interpret.pipeline.commands.transform import _sort_compare
from lobsterlang.interpret.pipeline.runtime import RunContext, run_pipeline

_VALUES = st.one_of(
    st.lists(st.integers(-3, 3) | st.floats(-3, 3, allow_nan=False)),
    st.lists(st.text("aBz ~", max_size=3)),
    st.lists(st.text("aé\U0001f600\uffff", max_size=2)),
    st.lists(st.none() | st.integers(-2, 2) | st.text("ab", max_size=1) | st.booleans()),
)


@settings(max_examples=400, deadline=None)
@given(values=_VALUES, desc=st.booleans(), keyed=st.booleans())
def test_sort_orders_as_the_comparator_does(values: list[Any], desc: bool, keyed: bool) -> None:
    """Equal keys keep their input order (`1` before `1.0` if it came first), ascending and descending."""
    items = [{"k": v, "at": i} for i, v in enumerate(values)] if keyed else values
    pipeline = compile_pipeline("sort" + (" --key k" if keyed else "") + (" --desc" if desc else "")).ir
    assert pipeline is not None
    got = run_pipeline(pipeline, list(items), RunContext(mode="tool")).items
    order = sorted(range(len(values)), key=lambda i: functools.cmp_to_key(_sort_compare)(values[i]), reverse=desc)
    assert repr(got) == repr([items[i] for i in order])
