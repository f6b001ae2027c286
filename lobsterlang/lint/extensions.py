"""Conditions that call the condition functions a Lobster fork or host declares (`condition-functions`)."""

from __future__ import annotations

import re

from lobsterlang import ir
from lobsterlang.diagnostics import Diagnostic
from lobsterlang.lint.context import LintContext
from lobsterlang.span import LineIndex, Span
from lobsterlang.syntax.condparse import ConditionSyntaxError, ConditionTooDeep, parse_expression
from lobsterlang.syntax.locate import TextLocator

_CALL = re.compile(r"(?<![\w$.])([A-Za-z_][A-Za-z0-9_]*)\s*\(")


def declared_functions(ctx: LintContext, diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """`diagnostics` without the X001 findings of conditions that are valid once the declared functions are
    (each call `fn(…)` of a declared function stands for a value)."""
    functions = frozenset(ctx.extensions.functions)
    accepted = [unit.when.span for unit in ctx.units
                if type(unit.when) is ir.InvalidCondition and isinstance(unit.when.value, str)
                and _valid_with(unit.when.value, functions)]
    if not accepted:
        return diagnostics
    return [d for d in diagnostics if not (d.code == "X001" and any(_inside(d.span, span) for span in accepted))]


def _inside(inner: Span, outer: Span) -> bool:
    return outer.start <= inner.start and inner.end <= outer.end


def _valid_with(text: str, functions: frozenset[str]) -> bool:
    """Whether `text` parses as a condition when each call of one of `functions` is taken as one value."""
    replaced = _without_calls(text, functions)
    if replaced is None or replaced == text:
        return False
    try:
        parse_expression(replaced, 0, len(replaced), TextLocator(LineIndex(replaced)))
    except (ConditionSyntaxError, ConditionTooDeep):
        return False
    return True


def _without_calls(text: str, functions: frozenset[str]) -> str | None:
    """`text` with each call of a declared function replaced by `0`, or None when a call of another function
    is left or a call is not closed."""
    out, at = [], 0
    for match in _CALL.finditer(text):
        if match.start() < at:
            continue
        if match.group(1) not in functions:
            return None
        end = _closing(text, match.end())
        if end is None:
            return None
        out.append(text[at : match.start()] + "0")
        at = end + 1
    out.append(text[at:])
    return "".join(out)


def _closing(text: str, start: int) -> int | None:
    """The index of the `)` that closes the call whose arguments start at `start` (quotes respected)."""
    depth, quote = 1, ""
    for index in range(start, len(text)):
        ch = text[index]
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return index
    return None
