"""Conditions that call condition functions, which a Lobster fork or host may have (`condition-functions`).

Compile reports such a condition (X001): Lobster's conditions have no functions. A condition that is valid once the
functions it calls stand for values is a fork's: with every function declared it is not reported; otherwise lint
reports it as a warning that says how to declare them, as it does for a fork's commands (L201)."""

from __future__ import annotations

import re

from lobsterlang import ir
from lobsterlang.diagnostics import Diagnostic, Severity
from lobsterlang.lint.context import LintContext
from lobsterlang.record import replace
from lobsterlang.span import LineIndex, Span
from lobsterlang.syntax.condparse import ConditionSyntaxError, ConditionTooDeep, parse_expression
from lobsterlang.syntax.locate import TextLocator

_CALL = re.compile(r"(?<![\w$.])([A-Za-z_][A-Za-z0-9_]*)\s*\(")


def declared_functions(ctx: LintContext, diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """`diagnostics` with the X001 findings of conditions that are valid once their calls stand for values: left out
    when every function called is declared, else a warning naming the functions to declare."""
    declared = frozenset(ctx.extensions.functions)
    calls: list[tuple[Span, list[str]]] = []
    for unit in ctx.units:
        when = unit.when
        if type(when) is ir.InvalidCondition and isinstance(when.value, str):
            called = _called(when.value)
            if called and _valid_with(when.value, frozenset(called)):
                calls.append((when.span, [name for name in called if name not in declared]))
    if not calls:
        return diagnostics
    out = []
    for diag in diagnostics:
        found = next((missing for span, missing in calls if _inside(diag.span, span)), None) if diag.code == "X001" else None
        if found is None:
            out.append(diag)
        elif found:
            out.append(replace(diag, severity=Severity.WARNING, hint=_declare(found)))
    return out


def _declare(names: list[str]) -> str:
    listed = ", ".join(f"`{name}()`" for name in names)
    quoted = ", ".join(f'\"{name}\"' for name in names)
    return (f"Lobster's conditions have no functions ({listed}); if a Lobster fork or host provides them, declare them in "
            f"the lint configuration: `condition-functions = [{quoted}]` under `[tool.lobster.lint]` (`[lint]` in .lobster.toml)")


def _called(text: str) -> list[str]:
    """The functions a condition calls, in order, each once."""
    return list(dict.fromkeys(match.group(1) for match in _CALL.finditer(text)))


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
