"""The quick pipeline scanners find exactly what the grammar's own terminal patterns find."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lobsterlang.syntax._terminals import TERMINALS
from lobsterlang.syntax.lexer import QUOTED_FAST
from lobsterlang.syntax.pipeline import _scan_words, _split_stages, _stage_words, _stages
from lobsterlang.syntax.text import JS_WHITESPACE

_QUOTED_TEXT = st.text(alphabet=st.sampled_from(list("ab '\"\\|\n")), max_size=12)
_PRINTABLE_PIPELINE = st.lists(
    st.sampled_from(
        ["a", "b", " ", "  ", "|", "'", '"', "\\", "--k", "=", "$", "${x}", "$s.p", "'a b'", '"c d"', "''", '""', "é"]
    ),
    max_size=14,
).map("".join)


@pytest.mark.parametrize("name", sorted(QUOTED_FAST))
@settings(max_examples=400, deadline=None)
@given(text=_QUOTED_TEXT)
def test_unrolled_quoted_patterns_match_the_grammar(name: str, text: str) -> None:
    grammar, fast = re.compile(TERMINALS[name][0]), re.compile(QUOTED_FAST[name])
    for quote in "'\"":
        subject = quote + text
        expected, got = grammar.match(subject), fast.match(subject)
        assert (got and got.group()) == (expected and expected.group())


def test_the_split_path_sees_only_spaces_as_whitespace() -> None:
    """`_split_stages` runs on printable text, so no other whitespace can be in it."""
    every_character = "".join(map(chr, range(0x110000)))
    spaces = set(JS_WHITESPACE) | set("".join(re.findall(TERMINALS["_WS"][0], every_character)))
    assert [ch for ch in spaces if ch.isprintable()] == [" "]


def _normal(stages: Any) -> Any:
    """Stages with word offsets as lists (a range and a list of the same offsets are alike)."""
    if isinstance(stages, int):
        return stages
    staged, pipes = stages
    words = [[(v, a, b, None if o is None else list(o)) for v, a, b, o in stage[4]] for stage in staged]
    return [(*stage[:4], ws) for stage, ws in zip(staged, words, strict=True)], pipes


def _by_regex(text: str) -> Any:
    scanned = _scan_words(text)
    if isinstance(scanned, int):
        return scanned
    groups, pipes = scanned
    return [_stage_words(text, *group) for group in groups], pipes


@settings(max_examples=1500, deadline=None)
@given(_PRINTABLE_PIPELINE)
def test_splitting_at_pipes_agrees_with_the_word_regex(text: str) -> None:
    assert _normal(_stages(text)) == _normal(_by_regex(text))


@pytest.mark.parametrize(
    "text",
    ["a 'b|c' d", 'a "b|c" d', "a 'b", 'a "b | c', "x 'a\\'|' y", "a | 'b", "a'b | c'd"],
)
def test_splitting_declines_when_a_quote_is_open_at_a_pipe(text: str) -> None:
    assert _split_stages(text) is None
    assert _normal(_stages(text)) == _normal(_by_regex(text))


@pytest.mark.parametrize(
    "text",
    ["exec --json --shell \"a b ${c}\" | where 'x>1' | head --n 3", "a '' b", "a'b c'd e", "x --k=\"a b\" 'c\\'d'"],
)
def test_splitting_takes_quoted_words_whole(text: str) -> None:
    assert _split_stages(text) is not None
    assert _normal(_stages(text)) == _normal(_by_regex(text))
