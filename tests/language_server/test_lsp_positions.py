"""Offsets (code points) ↔ LSP positions (UTF-16 code units), with characters outside the Basic Multilingual Plane."""

from __future__ import annotations

import pytest
from lsprotocol import types

from lsp.positions import PositionMap, code_points, utf16_length

TEXT = "a: 1\n# 🦞 lobster é\nrun: echo 🦞🦞 $x.y\n"


def test_utf16_lengths() -> None:
    assert utf16_length("abc") == 3
    assert utf16_length("é") == 1
    assert utf16_length("🦞") == 2
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
