"""Record construction: positional (the fast path), keyword, mixed, defaults, and clear errors."""

from __future__ import annotations

from typing import Any

import pytest

from lobsterlang.record import Record, fields, replace


class Point(Record):
    x: int
    y: int
    label: str | None = None


LOOSE: Any = Point
"""The class, unchecked: for calls that are wrong or untyped on purpose."""

def test_every_way_of_calling_builds_the_same_record() -> None:
    expected = Point(1, 2, "p")
    assert Point(x=1, y=2, label="p") == expected
    assert Point(1, y=2, label="p") == expected
    assert Point(1, 2, label="p") == expected
    assert (expected.x, expected.y, expected.label) == (1, 2, "p")


def test_defaults_fill_what_is_not_given() -> None:
    assert Point(1, 2).label is None
    assert Point(y=2, x=1) == Point(1, 2, None)


def test_none_is_an_ordinary_positional_value() -> None:
    point = LOOSE(None, None, None)
    assert (point.x, point.y, point.label) == (None, None, None)


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: LOOSE(1), "missing field 'y'"),
        (lambda: LOOSE(1, 2, z=3), "has no field 'z'"),
        (lambda: LOOSE(1, 2, "p", 4), "positional argument"),
    ],
)
def test_wrong_arguments_are_refused(make: object, message: str) -> None:
    with pytest.raises(TypeError, match=message):
        make()  # type: ignore[operator]


def test_fields_and_replace() -> None:
    assert fields(Point) == ("x", "y", "label")
    assert replace(Point(1, 2), label="q") == Point(1, 2, "q")
