"""The generated standalone parser is current with grammar/*.lark and parses like Lark itself."""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest
from helpers import CASES, ROOT, load_json
from hypothesis import given, settings
from hypothesis import strategies as st

from lobsterlang.grammar_files import grammar_dir
from lobsterlang.syntax import parser as generated
from tools.gen_parser import STARTS, combined_grammar, generate_terminals, grammar_digest

lark = pytest.importorskip("lark")

CONDITIONS = [
    "$a.json.count > 3",
    "!$f.json == true",
    "($s.approved && $r.response.decision == approve) && !($c.json.kind != deploy || $c.json.n != 2)",
    "'a b' == 'a b' && \"x\\\"y\" != 'x'",
    "$e.stdout == \"\" && -1 < 0.5 || null == $x.json",
]
TEMPLATES = ["echo ${who} $a.stdout $ $HOME.x ${bad", "plain text", "$a.json.x.y-z ${a-b}$b.c"]


def _tree(parser: Any, text: str, start: str) -> Any:
    """A comparable form of a parse tree: (rule, children) and (token type, value)."""
    tree = parser.parse(text, start=start)
    return _shape(tree)


def _shape(node: Any) -> Any:
    if hasattr(node, "data"):
        return (str(node.data), [_shape(c) for c in node.children])
    return (node.type, str(node))


@cache
def _fresh_lark() -> Any:
    """Lark itself, built from grammar/*.lark: the oracle for the generated parser and scanners."""
    return lark.Lark(combined_grammar(ROOT / "grammar"), parser="lalr", lexer="contextual", start=STARTS)


@pytest.fixture(scope="module")
def fresh_parser() -> Any:
    return _fresh_lark()


def test_generated_parser_matches_grammar_files() -> None:
    header = (ROOT / "lobsterlang" / "syntax" / "_parser.py").read_text(encoding="utf-8").splitlines()[:5]
    assert f"# grammar-sha256: {grammar_digest()}" in header, "stale parser: run `python tools/gen_parser.py`"


def test_generated_terminals_match_grammar_files() -> None:
    current = (ROOT / "lobsterlang" / "syntax" / "_terminals.py").read_text(encoding="utf-8")
    assert current == generate_terminals(), "stale terminals: run `python tools/gen_parser.py`"


def test_pipelines_and_templates_do_not_load_the_parser() -> None:
    import subprocess
    import sys

    code = (
        "import sys; from lobsterlang.syntax.pipeline import parse_pipeline; from lobsterlang.syntax.locate import TextLocator;"
        "from lobsterlang.span import LineIndex; t='exec --json | where a=1'; parse_pipeline(t, TextLocator(LineIndex(t)), templates=True);"
        "print('lobsterlang.syntax._parser' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_grammar_dir_is_found() -> None:
    assert (grammar_dir() / "pipeline.lark").is_file() and (grammar_dir() / "expr.lark").is_file()


@pytest.mark.parametrize("case", load_json(CASES / "pipelines.json"), ids=lambda c: c["name"])
def test_pipelines_parse_as_lark_does(case: dict[str, Any], fresh_parser: Any) -> None:
    try:
        expected = _tree(fresh_parser, case["input"], "pipeline")
    except lark.exceptions.UnexpectedInput:
        with pytest.raises(generated.UnexpectedInput):
            generated.parse(case["input"], "pipeline")
        return
    assert _shape(generated.parse(case["input"], "pipeline")) == expected


@pytest.mark.parametrize("text", CONDITIONS)
def test_conditions_parse_as_lark_does(text: str, fresh_parser: Any) -> None:
    assert _shape(generated.parse(text, "condition")) == _tree(fresh_parser, text, "condition")


@pytest.mark.parametrize("text", TEMPLATES)
def test_templates_parse_as_lark_does(text: str, fresh_parser: Any) -> None:
    assert _shape(generated.parse(text, "template")) == _tree(fresh_parser, text, "template")


def _lark_stages(tree: Any) -> list[list[list[tuple[str, int, int]]]]:
    """Stages → words → parts (type, start, end) from a Lark `pipeline` parse tree."""
    stages = []
    for child in tree.children:
        if hasattr(child, "data"):
            stages.append([[(t.type, t.start_pos, t.end_pos) for t in word.children] for word in child.children])
    return stages


@pytest.mark.parametrize("case", load_json(CASES / "pipelines.json"), ids=lambda c: c["name"])
def test_pipeline_scanner_agrees_with_the_lalr_parse(case: dict[str, Any], fresh_parser: Any) -> None:
    from lobsterlang.syntax.pipeline import scan_stages

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


@pytest.mark.parametrize("text", [*TEMPLATES, "$a.b$c.d", "${x}${y}$", "a $ b $$ c"])
def test_template_scanner_agrees_with_the_lalr_parse(text: str, fresh_parser: Any) -> None:
    from lobsterlang.syntax.lexer import template_scanner

    scanned = [(m.lastgroup, m.group(0)) for m in template_scanner().finditer(text)]
    parsed = [(t.type, str(t)) for t in fresh_parser.parse(text, start="template").children]
    assert scanned == parsed


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab |'\"\\\t\n-=$")), max_size=30))
def test_pipeline_scanner_agrees_on_any_text(text: str) -> None:
    from lobsterlang.syntax.pipeline import scan_stages

    parser = _fresh_lark()
    scanned = scan_stages(text)
    try:
        tree = parser.parse(text, start="pipeline")
    except lark.exceptions.UnexpectedInput:
        assert isinstance(scanned, int)
        return
    assert not isinstance(scanned, int) and [w for _, _, w in scanned[0]] == _lark_stages(tree)
