"""The hand-written condition parser and template splitter agree with Lark on grammar/expr.lark."""

from __future__ import annotations

import re
import subprocess
import sys
from functools import cache
from typing import Any

import pytest
from helpers import ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

from lobsterlang import ir
from lobsterlang.span import NO_SPAN, LineIndex
from lobsterlang.syntax._terminals import CONDITION_TERMINALS, KEYWORDS, TERMINALS
from lobsterlang.syntax.expr import parse_condition, parse_template, whole_ref
from lobsterlang.syntax.locate import Locator, TextLocator
from lobsterlang.syntax.text import js_trim_range

lark = pytest.importorskip("lark")

CONDITIONS = [
    "$a.json.count > 3",
    "!$f.json == true",
    "($s.approved && $r.response.decision == approve) && !($c.json.kind != deploy || $c.json.n != 2)",
    "'a b' == 'a b' && \"x\\\"y\" != 'x'",
    "$e.stdout == \"\" && -1 < 0.5 || null == $x.json",
    "$a.b || $c.d && $e.f || !!($g.h) == !ok",
    " \t$a.b\n==\r1 ",
]

# ── the reference: the grammar's tokens fed to Lark's LALR parser, the tree built into IR ──


@cache
def _lark() -> Any:
    grammar = (ROOT / "grammar" / "expr.lark").read_text(encoding="utf-8")
    return lark.Lark(grammar, parser="lalr", start=["condition", "template"])


@cache
def _scanner() -> re.Pattern[str]:
    """All condition terminals (whitespace too) in Lark's lexer order, as one regex."""
    return re.compile("|".join(f"(?P<{name.lstrip('_')}>{regex})" for name, regex in CONDITION_TERMINALS))


class _Unscannable(ValueError):
    """No condition terminal matches at `pos`."""

    def __init__(self, pos: int) -> None:
        super().__init__(pos)
        self.pos = pos


def _lalr_tree(text: str) -> Any:
    """Tokenize with one regex and feed the tokens to the LALR parser, as the runtime once did."""
    feeder = _lark().parse_interactive(start="condition")
    pos = 0
    for match in _scanner().finditer(text):
        start, end = match.span()
        if start != pos:
            raise _Unscannable(pos)
        pos = end
        kind = match.lastgroup or ""
        if kind == "IGNORE_0":
            continue
        kind = KEYWORDS.get(match.group(), kind) if kind == "IDENT" else kind
        feeder.feed_token(lark.Token(kind, match.group(), start, 1, start + 1, end_pos=end))
    if pos != len(text):
        raise _Unscannable(pos)
    return feeder.feed_eof()


def reference_condition(text: str, locate: Locator) -> ir.Expr | tuple[int, int]:
    """The IR of a trimmed, non-empty condition, or the bounds of the reported error."""
    try:
        tree = _lalr_tree(text)
    except _Unscannable as exc:
        return exc.pos, exc.pos + 1
    except lark.exceptions.UnexpectedInput as exc:
        pos = exc.pos_in_stream or 0
        token = getattr(exc, "token", None)
        width = max(1, len(token)) if token is not None and token.type != "$END" else 1
        return min(pos, len(text) - 1), min(pos + width, len(text))
    return _build(tree.children[0], locate)


def _build(node: Any, locate: Locator) -> ir.Expr:
    if not hasattr(node, "data"):
        return _leaf_expr(node, locate)
    kids = node.children
    span = locate.span(_leaf(node, 0).start_pos, _leaf(node, -1).end_pos)
    if node.data == "logical":
        return ir.Logical(kids[1].value, _build(kids[0], locate), _build(kids[2], locate), span)
    if node.data == "compare":
        return ir.Compare(kids[1].value, _build(kids[0], locate), _build(kids[2], locate), span)
    if node.data == "negate":
        return ir.Not(_build(kids[1], locate), span)
    return _build(kids[0], locate)  # ref, string, number, true, false, null, ident


def _leaf_expr(token: Any, locate: Locator) -> ir.Expr:
    span = locate.span(token.start_pos, token.end_pos)
    text = str(token)
    if token.type == "STEPREF":
        step, _, path = text[1:].partition(".")
        return ir.StepRef(step, tuple(path.split(".")), span)
    if token.type == "IDENT":
        return ir.Ident(text, span)
    if token.type == "STRING":
        return ir.Literal(re.sub(r"\\([\s\S])", r"\1", text[1:-1]), span)
    if token.type == "NUMBER":
        return ir.Literal(float(text) if "." in text else int(text), span)
    return ir.Literal({"TRUE": True, "FALSE": False, "NULL": None}[token.type], span)


def _leaf(node: Any, index: int) -> Any:
    while hasattr(node, "data"):
        node = node.children[index]
    return node


def _shape(node: Any) -> Any:
    if hasattr(node, "data"):
        return (str(node.data), [_shape(c) for c in node.children])
    return (node.type, str(node))


# ── generated conditions: token soup, grammar sentences, and sentences with one edit ──

_TOKENS = [
    "$a.json", "$b.approved", "$x-y.json.n", " ", "\n", "\t", "==", "!=", "<", "<=", ">", ">=", "&&", "||", "!",
    "(", ")", "1", "-2.5", "'s'", '"d\\"q"', "'", "true", "false", "null", "ident", "trueish", "=", "&", "|",
    "$", "${a}", "#", "-", ".", "\u00a0", "\v",
]  # fmt: skip
_SPACE = st.sampled_from(["", " ", "\t", "\n  "])
_ATOM = st.sampled_from(["$a.json", "$b-c.json.x_y", "'s'", '"q\\"x"', "''", "1", "-2.5", "0", "true", "false", "null"])
_IDENT = st.sampled_from(["ok", "a-b", "_x", "trueish"])
_COMPARE = st.sampled_from(["==", "!=", "<", "<=", ">", ">="])

def _seq(*parts: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.tuples(*parts).map("".join)


Node = tuple[int, str]
"""A generated expression: its level (0 unary, 1 equality, 2 and_expr, 3 or_expr) and text."""


def _at(node: Node, level: int) -> str:
    """The text of `node` where the grammar wants `level`: parenthesised if it binds looser."""
    return node[1] if node[0] <= level else f"({node[1]})"


def _operators(nodes: st.SearchStrategy[Node]) -> st.SearchStrategy[Node]:
    right = st.one_of(nodes, _IDENT.map(lambda name: (0, name)))
    return st.one_of(
        st.tuples(_SPACE, nodes).map(lambda t: (0, "!" + t[0] + _at(t[1], 0))),
        st.tuples(nodes, _SPACE, _COMPARE, _SPACE, right).map(lambda t: (1, _at(t[0], 0) + "".join(t[1:4]) + _at(t[4], 0))),
        st.lists(nodes, min_size=2, max_size=3).map(lambda ns: (2, " && ".join(_at(n, 1) for n in ns))),
        st.lists(nodes, min_size=2, max_size=3).map(lambda ns: (3, "||".join(_at(n, 2) for n in ns))),
    )


_VALID = st.recursive(_ATOM.map(lambda atom: (0, atom)), _operators, max_leaves=8).map(lambda node: node[1])
"""Sentences of the `condition` rule."""


@st.composite
def _edited(draw: st.DrawFn) -> str:
    """A valid condition with a token inserted, or some characters deleted or replaced."""
    text = draw(_VALID)
    at = draw(st.integers(0, len(text)))
    cut = at + draw(st.integers(0, 3))
    return text[:at] + draw(st.sampled_from(["", *_TOKENS])) + text[cut:]


_CONDITION_TEXT = st.one_of(
    st.lists(st.sampled_from(_TOKENS), min_size=1, max_size=9).map("".join),
    _VALID,
    _edited(),
    _seq(_SPACE, _VALID, _SPACE),
)


_ARG_REF = re.compile(TERMINALS["ARGREF"][0])


def _check_condition(value: str) -> None:
    lo, hi = js_trim_range(value)
    if value[lo:hi] in ("", "true", "false"):
        return
    index = LineIndex(value)
    cond, problems = parse_condition(value, NO_SPAN, TextLocator(index))
    expected = reference_condition(value[lo:hi], TextLocator(index, lo))
    if isinstance(expected, tuple):
        assert isinstance(cond, ir.InvalidCondition), (value, cond)
        start, end = lo + expected[0], lo + expected[1]
        reference = _ARG_REF.match(value, start)  # where the parser stops at a `${arg}`, the caret covers all of it
        assert (problems[0].span.start, problems[0].span.end) == (start, reference.end() if reference else end)
        assert cond.span == problems[0].span
    else:
        assert isinstance(cond, ir.ExprCondition) and not problems, (value, problems)
        assert cond.expr == expected


@settings(max_examples=600, deadline=None)
@given(_CONDITION_TEXT)
def test_conditions_parse_as_the_lalr_parser_does(value: str) -> None:
    _check_condition(value)


@pytest.mark.parametrize("value", CONDITIONS)
def test_valid_conditions_build_the_same_ir(value: str) -> None:
    _check_condition(value)


@pytest.mark.parametrize(
    ("value", "bad"),
    [
        ("$a.b ==", "$"),  # an early end is reported at the first character
        ("  ($a.b", "("),
        ("$a.b == 1 == 2", "=="),
        ("$a.b == x y", "y"),
        ("ident == 1", "ident"),
        ("$a.b #", "#"),
        ("$a.b == ${x}", "${x}"),
        ("$a.b\u00a0== 1", "\u00a0"),
        ("(ok == $a.b)", "ok"),
        ("!= 1", "!="),
    ],
)
def test_errors_point_where_the_lalr_parser_stops(value: str, bad: str) -> None:
    _check_condition(value)
    _, (problem,) = parse_condition(value, NO_SPAN, TextLocator(LineIndex(value)))
    assert value[problem.span.start : problem.span.end] == bad


_DEEP = st.tuples(st.integers(0, 3000), st.integers(1, 99), st.sampled_from(["", " "])).map(
    lambda t: "(" * t[0] + t[2].join(["!$a.b &&"] * (t[1] - 1) + ["$a.b"]) + ")" * t[0]
)
"""Parentheses nested far deeper than Python's recursion limit, around chains up to the depth limit (100)."""


@settings(max_examples=30, deadline=None)
@given(st.one_of(_DEEP, st.tuples(_DEEP, _SPACE, st.sampled_from(["", ")", "(", "&&", "|| ok"])).map("".join)))
def test_deep_parentheses_parse_as_the_lalr_parser_does(value: str) -> None:
    _check_condition(value)


@pytest.mark.parametrize(("value", "span"), [
    (" && ".join(["$a.b"] * 101), (0, 804)),
    ("(" * 500 + "!" * 100 + "$a.b" + ")" * 500, (500, 604)),
    ("$x.y || " + " && ".join(["($a.b == 1)"] * 100), (9, 8 + 99 * 15 + 10)),
])
def test_too_deep_conditions_are_x003_at_the_part_that_crosses_the_limit(value: str, span: tuple[int, int]) -> None:
    cond, problems = parse_condition(value, NO_SPAN, TextLocator(LineIndex(value)))
    assert isinstance(cond, ir.InvalidCondition)
    assert [(d.code, d.span.start, d.span.end) for d in problems] == [("X003", *span)]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_TOKENS), min_size=1, max_size=9).map("".join))
def test_the_reference_feed_parses_as_lark_does(text: str) -> None:
    """The token feed of the reference gives Lark's own parse tree, or fails where Lark fails."""
    try:
        expected = _shape(_lark().parse(text, start="condition"))
    except lark.exceptions.UnexpectedInput:
        with pytest.raises((lark.exceptions.UnexpectedInput, _Unscannable)):
            _lalr_tree(text)
        return
    assert _shape(_lalr_tree(text)) == expected


# ── templates ──────────────────────────────────────────────────────────────────────


def reference_template(text: str, locate: Locator, step_refs: bool) -> ir.Template:
    """Lark's template tokens; runs of text, `$` and (without `step_refs`) `$step.path` are one Text."""
    parts: list[ir.TemplatePart] = []
    pending = -1
    for token in _lark().parse(text, start="template").children if text else []:
        start, end = token.start_pos, token.end_pos
        if token.type == "ARGREF":
            ref: ir.ArgRef | ir.StepRef = ir.ArgRef(text[start + 2 : end - 1], locate.span(start, end))
        elif token.type == "STEPREF" and step_refs:
            step, _, path = text[start + 1 : end].partition(".")
            ref = ir.StepRef(step, tuple(path.split(".")), locate.span(start, end))
        else:
            pending = start if pending < 0 else pending
            continue
        if pending >= 0:
            parts.append(ir.Text(text[pending:start], locate.span(pending, start)))
            pending = -1
        parts.append(ref)
    if pending >= 0:
        parts.append(ir.Text(text[pending:], locate.span(pending, len(text))))
    return ir.Template(text, tuple(parts), locate.span(0, len(text)))


_TEMPLATE_TEXT = st.lists(
    st.sampled_from(["$", "{", "}", ".", "a", "b-c", "_1", " ", "\n", "${x}", "${a-b}", "$a.b", "$s-1.json.x", "text "]),
    max_size=8,
).map("".join)


@settings(max_examples=400, deadline=None)
@given(_TEMPLATE_TEXT, st.booleans())
def test_templates_split_as_lark_does(text: str, step_refs: bool) -> None:
    locate = TextLocator(LineIndex("pad\n" + text), 4)
    assert parse_template(text, locate, step_refs=step_refs) == reference_template(text, locate, step_refs)


@settings(max_examples=200, deadline=None)
@given(_seq(st.sampled_from(["", " ", "\n", "\u00a0"]), _TEMPLATE_TEXT, st.sampled_from(["", " ", "\t"])))
def test_whole_ref_is_one_trimmed_step_reference(text: str) -> None:
    locate = TextLocator(LineIndex(text))
    lo, hi = js_trim_range(text)
    ref = whole_ref(text, locate)
    if re.fullmatch(TERMINALS["STEPREF"][0], text[lo:hi]) is None:
        assert ref is None
    else:
        assert ref == parse_template(text[lo:hi], TextLocator(LineIndex(text), lo)).parts[0]
        assert ref is not None and ref.span == locate.span(lo, hi)


def test_compiling_conditions_does_not_load_lark() -> None:
    code = (
        "import sys; from lobsterlang.compile import compile_workflow;"
        "r = compile_workflow('steps:\\n  - id: a\\n    run: echo\\n    when: \"!($a.json.n > 1)\"\\n', 'x.lobster');"
        "assert not r.diagnostics, r.diagnostics;"
        "print(sorted(m for m in ('lark',) if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
