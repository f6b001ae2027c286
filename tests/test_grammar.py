"""The generated standalone parser is current with grammar/*.lark and parses like Lark itself."""

from __future__ import annotations

from typing import Any

import pytest
from helpers import CASES, ROOT, load_json

from lobsterlang.grammar_files import grammar_dir
from lobsterlang.syntax import parser as generated
from tools.gen_parser import STARTS, combined_grammar, grammar_digest

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


@pytest.fixture(scope="module")
def fresh_parser() -> Any:
    return lark.Lark(combined_grammar(ROOT / "grammar"), parser="lalr", lexer="contextual", start=STARTS)


def test_generated_parser_matches_grammar_files() -> None:
    header = (ROOT / "lobsterlang" / "syntax" / "_parser.py").read_text(encoding="utf-8").splitlines()[:5]
    assert f"# grammar-sha256: {grammar_digest()}" in header, "stale parser: run `python tools/gen_parser.py`"


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
