"""Offsets (code points) ↔ LSP positions (UTF-16 code units), with characters outside the Basic Multilingual Plane."""

from __future__ import annotations

import pytest
from lobsterlang_lsp.positions import PositionMap, code_points, unit_length
from lsprotocol import types

TEXT = "a: 1\n# 🦞 lobster é\nrun: echo 🦞🦞 $x.y\n"


def test_utf16_lengths() -> None:
    assert unit_length("abc") == 3
    assert unit_length("é") == 1
    assert unit_length("🦞") == 2
    assert code_points("🦞🦞 $x", 4) == 2
    assert code_points("🦞🦞 $x", 3) == 1  # inside a surrogate pair: the character it starts
    assert code_points("abc", 99) == 3


@pytest.mark.parametrize("needle", ["a:", "🦞 lobster", "lobster", "é", "$x.y", "\n", "run"])
def test_round_trip(needle: str) -> None:
    positions = PositionMap(TEXT)
    offset = TEXT.index(needle)
    assert positions.offset(positions.position(offset)) == offset


def test_astral_characters_count_twice() -> None:
    positions = PositionMap(TEXT)
    assert positions.position(TEXT.index("$x.y")) == types.Position(2, len("run: echo ") + 4 + 1)
    assert positions.position(TEXT.index("lobster")) == types.Position(1, 5)


def test_out_of_range_positions_clamp() -> None:
    positions = PositionMap(TEXT)
    assert positions.offset(types.Position(0, 99)) == TEXT.index("\n")
    assert positions.offset(types.Position(99, 0)) == len(TEXT)
    assert positions.position(len(TEXT) + 5) == types.Position(3, 0)


@pytest.mark.parametrize(("encoding", "lobster", "e_acute"), [("utf-8", 4, 2), ("utf-16", 2, 1), ("utf-32", 1, 1)])
def test_characters_are_counted_in_the_negotiated_encoding(encoding: str, lobster: int, e_acute: int) -> None:
    positions = PositionMap(TEXT, encoding)
    line = "run: echo 🦞🦞 $x.y"
    assert positions.position(TEXT.index("$x.y")) == types.Position(2, len("run: echo ") + 2 * lobster + 1)
    assert positions.position(TEXT.index("\n", TEXT.index("é"))) == types.Position(1, 2 + lobster + len(" lobster ") + e_acute)
    for needle in ("$x.y", "🦞 $x", "é", "lobster"):
        offset = TEXT.index(needle)
        assert positions.offset(positions.position(offset)) == offset
    assert code_points(line, len("run: echo ") + lobster, encoding) == len("run: echo ") + 1
    assert code_points(line, len("run: echo ") + lobster - 1, encoding) == len("run: echo ")  # inside 🦞 or on it
