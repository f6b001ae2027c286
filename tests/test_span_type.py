"""Span: eager and lazily positioned spans are the same value; spans are frozen and unordered."""

from __future__ import annotations

import copy
import operator
import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lobsterlang.record import FrozenRecordError
from lobsterlang.span import NO_SPAN, LineIndex, Span

TEXT = "first line\nsecond\n\nfourth line\n"


def test_a_lazy_span_equals_the_eager_span_with_the_same_position() -> None:
    lazy = LineIndex(TEXT).span(11, 17)
    eager = Span(11, 17, 2, 1, 2, 7)
    assert lazy == eager and eager == lazy
    assert operator.ne(lazy, eager) is False  # `!=` must not fall back to tuple comparison
    assert hash(lazy) == hash(eager)
    assert repr(lazy) == repr(eager) == "Span(11, 17, 2, 1, 2, 7)"
    assert lazy.to_list() == eager.to_list() == [11, 17, 2, 1, 2, 7]


def test_spans_differ_by_any_field() -> None:
    base = Span(1, 2, 3, 4, 5, 6)
    for changed in ([9, 2, 3, 4, 5, 6], [1, 2, 3, 4, 5, 9]):
        other = Span.from_list(changed)
        assert base != other
        assert operator.eq(base, other) is False
    assert base != (1, 2, 3, 4, 5, 6)  # a span is not a tuple of its fields


def test_spans_pickle_and_copy_as_eager_values() -> None:
    lazy = LineIndex(TEXT).span(19, 30)
    for clone in (pickle.loads(pickle.dumps(lazy)), copy.copy(lazy), copy.deepcopy(lazy)):
        assert clone == lazy
        assert type(clone) is Span


def test_spans_are_frozen() -> None:
    with pytest.raises(FrozenRecordError):
        NO_SPAN.start = 3
    with pytest.raises(FrozenRecordError):
        LineIndex(TEXT).span(0, 1).line = 2


def test_spans_have_no_order() -> None:
    with pytest.raises(TypeError):
        _ = Span(1, 2, 1, 2, 1, 3) < Span(2, 3, 1, 3, 1, 4)


def test_offsets_outside_the_text_are_clamped() -> None:
    index = LineIndex(TEXT)
    assert index.span(-5, 3).to_list() == [0, 3, 1, 1, 1, 4]
    assert index.span(len(TEXT) - 1, len(TEXT) + 40).end == len(TEXT)


@given(st.text(alphabet="ab\n", max_size=40), st.data())
def test_lazy_positions_match_the_line_index(text: str, data: st.DataObject) -> None:
    index = LineIndex(text)
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    span = index.span(start, end)
    assert (span.line, span.col) == index.line_col(start)
    assert (span.end_line, span.end_col) == index.line_col(end)
    before = text[:start]
    assert span.line == before.count("\n") + 1
    assert span.col == len(before) - (before.rfind("\n") + 1) + 1
