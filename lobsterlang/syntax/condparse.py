"""A parser for `when:` conditions (the `condition` rule of grammar/expr.lark) with its own stack, never recursing."""

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
Parsed = tuple[ir.Expr, int, int, int]
"""An expression, the bounds of its first and last token (parentheses are not tokens of the tree), its depth."""
MAX_DEPTH = 100
"""The deepest condition tree accepted: every consumer walks it, and the walks must stay shallow."""


class ConditionSyntaxError(ValueError):
    """The condition leaves the grammar at `start`..`end` (offsets in the condition text)."""

    def __init__(self, start: int, end: int) -> None:
        super().__init__(start, end)
        self.start = start
        self.end = end


class ConditionTooDeep(ValueError):
    """The condition's tree would be deeper than MAX_DEPTH; `start`..`end` is the part that crosses it."""

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
    Raises ConditionTooDeep for a tree deeper than MAX_DEPTH. The parser keeps its own stack,
    so no nesting of parentheses reaches Python's recursion limit.
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


class _Level:
    """One open `( or_expr )` (or the whole condition): the operands parsed so far inside it."""

    __slots__ = ("compare", "either", "left", "nots", "right")

    def __init__(self) -> None:
        self.either: Parsed | None = None  # the `||` operands so far
        self.left: Parsed | None = None  # the `&&` operands so far (the current and_expr)
        self.compare: tuple[Any, Parsed] | None = None  # a comparison waiting for its right operand
        self.nots: list[int] = []  # where the `!`s before the pending unary start
        self.right = False  # the pending unary is right of a comparison (IDENT allowed)


class _Parser:
    """One pass over the tokens with an explicit stack of open parentheses (no recursion)."""

    __slots__ = ("_levels", "_next", "_span", "_start", "_text", "_tokens")

    def __init__(self, text: str, start: int, tokens: list[Token], locate: Locator) -> None:
        self._text = text
        self._start = start
        self._tokens = tokens
        self._next = 0
        self._span = locate.span
        self._levels: list[_Level] = [_Level()]

    def condition(self) -> ir.Expr:
        """condition: or_expr, then the end of the text."""
        while True:
            done = self._or_expr_step(self._unary())
            if done is not None:
                self._expect("END")
                return done[0]

    def _unary(self) -> Parsed:
        """unary: NOT unary | primary; `(` opens a level and parses on inside it until its `)`."""
        level = self._levels[-1]
        while True:
            token = self._tokens[self._next]
            kind = token.lastgroup or ""
            if kind == "LPAR":
                self._next += 1
                level = _Level()
                self._levels.append(level)
                continue
            if kind == "NOT":
                level.nots.append(token.start(kind))
                self._next += 1
                continue
            start, end = token.span(kind)
            expr = self._operand(kind, start, end, level.right)
            if expr is None:
                raise self._error(token)
            self._next += 1
            return self._negated(level, (expr, start, end, 1))

    def _negated(self, level: _Level, operand: Parsed) -> Parsed:
        """The operand under the `!`s written before it, innermost first."""
        while level.nots:
            start = level.nots.pop()
            operand = self._node(ir.Not(operand[0], self._span(start, operand[2])), start, operand[2], operand[3])
        return operand

    def _or_expr_step(self, unary: Parsed) -> Parsed | None:
        """Take a finished unary into the innermost level; None while the condition goes on.

        equality: unary (COMPARE unary_r)?; and_expr: equality (AND equality)*;
        or_expr: and_expr (OR and_expr)*; both group to the left. A `)` closes the level and
        its or_expr becomes a unary of the level around it.
        """
        while True:
            level = self._levels[-1]
            equality = self._equality(level, unary)
            if equality is None:
                return None
            level.left = equality if level.left is None else self._logical("&&", level.left, equality)
            kind = self._tokens[self._next].lastgroup
            if kind in ("AND", "OR"):
                self._next += 1
                if kind == "OR":
                    level.either = level.left if level.either is None else self._logical("||", level.either, level.left)
                    level.left = None
                return None
            done = level.left if level.either is None else self._logical("||", level.either, level.left)
            if len(self._levels) == 1:
                return done
            self._expect("RPAR")
            self._levels.pop()
            unary = self._negated(self._levels[-1], done)

    def _equality(self, level: _Level, unary: Parsed) -> Parsed | None:
        """The finished equality, or None when `unary` is the left of a comparison (then read on)."""
        if level.compare is not None:
            op, left = level.compare
            level.compare, level.right = None, False
            compare = ir.Compare(op, left[0], unary[0], self._span(left[1], unary[2]))
            return self._node(compare, left[1], unary[2], max(left[3], unary[3]))
        token = self._tokens[self._next]
        if token.lastgroup != "COMPARE":
            return unary
        self._next += 1
        level.compare, level.right = (token["COMPARE"], unary), True
        return None

    def _logical(self, op: Any, left: Parsed, right: Parsed) -> Parsed:
        start, end = left[1], right[2]
        return self._node(ir.Logical(op, left[0], right[0], self._span(start, end)), start, end, max(left[3], right[3]))

    @staticmethod
    def _node(expr: ir.Expr, start: int, end: int, below: int) -> Parsed:
        if below >= MAX_DEPTH:
            raise ConditionTooDeep(start, end)
        return expr, start, end, below + 1

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
