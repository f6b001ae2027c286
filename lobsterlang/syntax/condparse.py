"""A recursive-descent parser for `when:` conditions: the `condition` rule of grammar/expr.lark."""

from __future__ import annotations

import re
from typing import Any

from lobsterlang import ir
from lobsterlang.syntax._terminals import CONDITION_TERMINALS, KEYWORDS
from lobsterlang.syntax.locate import Locator

_IGNORE = "__IGNORE_0"
_SPACE = dict(CONDITION_TERMINALS)[_IGNORE]
_TOKEN = re.compile(
    f"(?:{_SPACE})?(?:"
    + "|".join(f"(?P<{name}>{regex})" for name, regex in CONDITION_TERMINALS if name != _IGNORE)
    + ")"
)
"""One token with the whitespace before it; the group named after its terminal holds the token."""
_TAIL = re.compile(rf"(?:{_SPACE})?(?:(?P<UNSCANNABLE>[\s\S])|(?P<END>\Z))")
"""What stops the tokens: a character no terminal matches, or the end of the text (Lark's `$END`)."""
_STRING_ESCAPE = re.compile(r"\\([\s\S])")
_CONSTANTS = {"TRUE": True, "FALSE": False, "NULL": None}

Token = re.Match[str]
"""A match whose `lastgroup` is the terminal and whose span of that group is the token."""
Parsed = tuple[ir.Expr, int, int]
"""An expression and the bounds of its first and last token (parentheses are not tokens of the tree)."""


class ConditionSyntaxError(ValueError):
    """The condition leaves the grammar at `start`..`end` (offsets in the condition text)."""

    def __init__(self, start: int, end: int) -> None:
        super().__init__(start, end)
        self.start = start
        self.end = end


def parse_expression(text: str, start: int, end: int, locate: Locator) -> ir.Expr:
    """The IR of the condition `text[start:end]`, with spans of `locate` (offsets in `text`).

    Raises ConditionSyntaxError at the first token that no valid condition continues with,
    or at the first character for an early end of the text, as Lark's LALR parser does: the
    grammar is LL(1), so both parsers stop at the same token. The tokens are the grammar's
    terminals in Lark's lexer order. tests/test_condition_parser.py checks that both agree.
    """
    return _Parser(text, start, scan(text, start, end), locate).condition()


def scan(text: str, start: int, end: int) -> list[Token]:
    """The tokens of `text[start:end]` (whitespace skipped) up to the end or the first unscannable character.

    The last token is END or UNSCANNABLE; identifiers are not yet told from keywords.
    """
    # Each scanner match starts where the previous one ended (as in re.Scanner): it stops at a gap.
    tokens = list(iter(_TOKEN.scanner(text, start, end).match, None))  # type: ignore[attr-defined]
    tail = _TAIL.match(text, tokens[-1].end() if tokens else start, end)
    assert tail is not None  # one of its alternatives matches the empty string
    tokens.append(tail)
    return tokens


class _Parser:
    """One pass over the tokens; each method parses one rule and returns its IR and bounds."""

    __slots__ = ("_next", "_span", "_start", "_text", "_tokens")

    def __init__(self, text: str, start: int, tokens: list[Token], locate: Locator) -> None:
        self._text = text
        self._start = start
        self._tokens = tokens
        self._next = 0
        self._span = locate.span

    def condition(self) -> ir.Expr:
        """condition: or_expr, then the end of the text."""
        expr = self._or_expr()[0]
        self._expect("END")
        return expr

    def _or_expr(self) -> Parsed:
        """or_expr: and_expr (OR and_expr)*, where and_expr: equality (AND equality)*; both group to the left."""
        tokens = self._tokens
        either = None  # the `||` operands so far, while `left` is the current and_expr
        left = self._equality()
        while True:
            kind = tokens[self._next].lastgroup
            if kind == "AND":
                self._next += 1
                left = self._logical("&&", left, self._equality())
            elif kind == "OR":
                self._next += 1
                either = left if either is None else self._logical("||", either, left)
                left = self._equality()
            else:
                return left if either is None else self._logical("||", either, left)

    def _logical(self, op: Any, left: Parsed, right: Parsed) -> Parsed:
        start, end = left[1], right[2]
        return ir.Logical(op, left[0], right[0], self._span(start, end)), start, end

    def _equality(self) -> Parsed:
        """equality: unary (COMPARE unary_r)?"""
        left = self._unary(False)
        token = self._tokens[self._next]
        if token.lastgroup != "COMPARE":
            return left
        self._next += 1
        op: Any = token["COMPARE"]
        right = self._unary(True)
        start, end = left[1], right[2]
        return ir.Compare(op, left[0], right[0], self._span(start, end)), start, end

    def _unary(self, right: bool) -> Parsed:
        """unary: NOT unary | primary; on the right of a comparison (unary_r) also IDENT."""
        token = self._tokens[self._next]
        kind = token.lastgroup or ""
        if kind == "LPAR":
            self._next += 1
            inner = self._or_expr()
            self._expect("RPAR")
            return inner
        start, end = token.span(kind)
        if kind == "NOT":
            self._next += 1
            operand = self._unary(right)
            return ir.Not(operand[0], self._span(start, operand[2])), start, operand[2]
        expr = self._operand(kind, start, end, right)
        if expr is None:
            raise self._error(token)
        self._next += 1
        return expr, start, end

    def _operand(self, kind: str, start: int, end: int, right: bool) -> ir.Expr | None:
        """A primary other than `( or_expr )`, or IDENT right of a comparison; None for another token."""
        text = self._text[start:end]
        if kind == "STEPREF":
            step, _, path = text[1:].partition(".")
            return ir.StepRef(step, tuple(path.split(".")), self._span(start, end))
        if kind == "NUMBER":
            return ir.Literal(float(text) if "." in text else int(text), self._span(start, end))
        if kind == "STRING":
            return ir.Literal(_STRING_ESCAPE.sub(r"\1", text[1:-1]), self._span(start, end))
        if kind != "IDENT":
            return None
        keyword = KEYWORDS.get(text)
        if keyword is not None:
            return ir.Literal(_CONSTANTS[keyword], self._span(start, end))
        return ir.Ident(text, self._span(start, end)) if right else None

    def _expect(self, kind: str) -> None:
        token = self._tokens[self._next]
        if token.lastgroup != kind:
            raise self._error(token)
        self._next += 1

    def _error(self, token: Token) -> ConditionSyntaxError:
        kind = token.lastgroup or ""
        if kind == "END":
            return ConditionSyntaxError(self._start, self._start + 1)
        return ConditionSyntaxError(*token.span(kind))
