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
        (lambda: LOOSE(1), r"Point.__init__\(\) missing 1 required positional argument: 'y'"),
        (lambda: LOOSE(1, 2, z=3), "unexpected keyword argument 'z'"),
        (lambda: LOOSE(1, 2, "p", 4), "positional arguments but 5 were given"),
        (lambda: LOOSE(1, x=1), "multiple values for argument 'x'"),
    ],
)
def test_wrong_arguments_are_refused(make: object, message: str) -> None:
    with pytest.raises(TypeError, match=message):
        make()  # type: ignore[operator]


def test_a_field_without_default_cannot_follow_one_with_a_default() -> None:
    with pytest.raises(TypeError, match="field 'y' without a default follows a field with one"):

        class Bad(Record):
            x: int = 0
            y: int  # type: ignore[misc]


class Wide(Record):
    """More fields than ten: the setters' closure must not follow the names' sort order."""

    f0: int
    f1: int
    f2: int
    f3: int
    f4: int
    f5: int
    f6: int
    f7: int
    f8: int
    f9: int
    f10: int
    f11: int = 11


def test_every_field_of_a_wide_record_lands_in_its_own_slot() -> None:
    wide = Wide(*range(11))
    assert [getattr(wide, name) for name in fields(Wide)] == list(range(12))


def test_a_subclass_takes_the_fields_of_its_base_first() -> None:
    class Labelled(Point):
        colour: str = "red"

    assert Labelled(1, 2) == Labelled(x=1, y=2, label=None, colour="red")
    assert Labelled(1, 2, "p", "blue").colour == "blue"


def test_fields_and_replace() -> None:
    assert fields(Point) == ("x", "y", "label")
    assert replace(Point(1, 2), label="q") == Point(1, 2, "q")
