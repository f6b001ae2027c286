"""The generated terminals are current with grammar/*.lark, and the scanners agree with Lark itself."""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest
from helpers import CASES, ROOT, load_json
from hypothesis import given, settings
from hypothesis import strategies as st

from lobsterlang.grammar_files import grammar_dir
from lobsterlang.syntax.pipeline import _parts, _scan_words
from tools.gen_terminals import STARTS, combined_grammar, generate_terminals

lark = pytest.importorskip("lark")



@cache
def _fresh_lark() -> Any:
    """Lark itself, built from grammar/*.lark: the oracle for the scanners and the condition parser."""
    return lark.Lark(combined_grammar(ROOT / "grammar"), parser="lalr", lexer="contextual", start=STARTS)


@pytest.fixture(scope="module")
def fresh_parser() -> Any:
    return _fresh_lark()


def test_generated_terminals_match_grammar_files() -> None:
    current = (ROOT / "lobsterlang" / "syntax" / "_terminals.py").read_text(encoding="utf-8")
    assert current == generate_terminals(), "stale terminals: run `python tools/gen_terminals.py`"


def test_grammar_dir_is_found() -> None:
    assert (grammar_dir() / "pipeline.lark").is_file() and (grammar_dir() / "expr.lark").is_file()


def _lark_stages(tree: Any) -> list[list[list[tuple[str, int, int]]]]:
    """Stages → words → parts (type, start, end) from a Lark `pipeline` parse tree."""
    stages = []
    for child in tree.children:
        if hasattr(child, "data"):
            stages.append([[(t.type, t.start_pos, t.end_pos) for t in word.children] for word in child.children])
    return stages


def scan_stages(text: str) -> tuple[list[tuple[int, int, list[list[Any]]]], list[int]] | int:
    """What the pipeline scanner finds, shaped as the grammar's tokens: stages, words, parts."""
    scanned = _scan_words(text)
    if isinstance(scanned, int):
        return scanned
    groups, pipes = scanned
    return [(start, end, [_parts(raw, a) for raw, a, _, _ in words]) for start, end, words, _ in groups], pipes


@pytest.mark.parametrize("case", load_json(CASES / "pipelines.json"), ids=lambda c: c["name"])
def test_pipeline_scanner_agrees_with_the_lalr_parse(case: dict[str, Any], fresh_parser: Any) -> None:
    scanned = scan_stages(case["input"])
    try:
        tree = fresh_parser.parse(case["input"], start="pipeline")
    except lark.exceptions.UnexpectedInput as exc:
        assert isinstance(scanned, int) and scanned == exc.pos_in_stream
        return
    assert not isinstance(scanned, int)
    groups, pipes = scanned
    assert [words for _, _, words in groups] == _lark_stages(tree)
    assert pipes == [t.start_pos for t in tree.children if not hasattr(t, "data")]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab |'\"\\\t\n-=$")), max_size=30))
def test_pipeline_scanner_agrees_on_any_text(text: str) -> None:
    parser = _fresh_lark()
    scanned = scan_stages(text)
    try:
        tree = parser.parse(text, start="pipeline")
    except lark.exceptions.UnexpectedInput:
        assert isinstance(scanned, int)
        return
    assert not isinstance(scanned, int) and [w for _, _, w in scanned[0]] == _lark_stages(tree)
