"""Parse templates (`${arg}`, `$step.path` inside strings) and `when:` conditions into IR."""

from __future__ import annotations

import re
from typing import Any

from lobsterlang import ir
from lobsterlang.diagnostics import Diagnostic, Severity
from lobsterlang.span import Span
from lobsterlang.syntax._terminals import TERMINALS
from lobsterlang.syntax.condparse import MAX_DEPTH, ConditionSyntaxError, ConditionTooDeep, parse_expression
from lobsterlang.syntax.locate import Locator
from lobsterlang.syntax.text import js_trim_range

UNSUPPORTED_TYPE = "Unsupported condition type"
_REFS = re.compile(f"({TERMINALS['ARGREF'][0]}|{TERMINALS['STEPREF'][0]})")
"""Splits a template into text and references (odd pieces); a `$` outside a reference is literal."""
_ARG_REFS = re.compile(f"({TERMINALS['ARGREF'][0]})")
_ARG_REF = re.compile(TERMINALS["ARGREF"][0])
WHOLE_REF = re.compile(r"\$([A-Za-z0-9_-]+)\.([A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*)")


# ── templates ──────────────────────────────────────────────────────────────────────


def parse_template(text: str, locate: Locator, *, step_refs: bool = True) -> ir.Template:
    """Split `text` into literal text and references; `step_refs=False` keeps `$a.b` literal."""
    size = len(text)
    whole = locate.span(0, size)
    pieces = (_REFS if step_refs else _ARG_REFS).split(text) if "$" in text else (text,)
    if len(pieces) == 1:  # no reference (a `$` alone is literal)
        return ir.Template(text, (ir.Text(text, whole),) if text else (), whole)
    parts: list[ir.TemplatePart] = []
    start = 0
    is_ref = False  # the pieces alternate: text, reference, text, ...
    for piece in pieces:
        if piece:  # the text before, between or after references may be empty
            end = start + len(piece)
            span = whole if end - start == size else locate.span(start, end)  # a lone reference: the whole span
            if not is_ref:
                parts.append(ir.Text(piece, span))
            elif piece[1] == "{":
                parts.append(ir.ArgRef(piece[2:-1], span))
            else:
                parts.append(_step_ref(piece, span))
            start = end
        is_ref = not is_ref
    return ir.Template(text, tuple(parts), whole)


def _step_ref(text: str, span: Span) -> ir.StepRef:
    step, _, path = text[1:].partition(".")
    return ir.StepRef(step, tuple(path.split(".")), span)


def whole_ref(text: str, locate: Locator) -> ir.StepRef | None:
    """The reference if `text`, trimmed, is exactly one `$step.path`, else None."""
    lo, hi = js_trim_range(text)
    match = WHOLE_REF.fullmatch(text, lo, hi)
    if match is None:
        return None
    return ir.StepRef(match.group(1), tuple(match.group(2).split(".")), locate.span(lo, hi))


# ── conditions ─────────────────────────────────────────────────────────────────────


def parse_condition(
    value: Any, span: Span, locate: Locator | None
) -> tuple[ir.Condition, list[Diagnostic]]:
    """Compile a `when:`/`condition:` value as the reference evaluates it."""
    if isinstance(value, bool):
        return ir.ConstCondition(value, span), []
    if not isinstance(value, str) or locate is None:
        hint = "write a boolean or a string expression such as `$check.json.ok == true`"
        return _invalid(value, UNSUPPORTED_TYPE, span, "X002", hint)
    lo, hi = js_trim_range(value)
    text = value[lo:hi]
    if text in ("true", "false"):
        return ir.ConstCondition(text == "true", span), []
    if not text:
        return _invalid(value, "Unsupported condition: ", span, "X001", "write an expression, or remove the key")
    try:
        expr = parse_expression(value, lo, hi, locate)
    except ConditionSyntaxError as exc:
        where = locate.span(exc.start, _error_end(value, exc.start, exc.end))
        return _invalid(value, f"Unsupported condition: {text}", where, "X001", _condition_hint(text))
    except ConditionTooDeep as exc:
        message = f"Condition nests deeper than {MAX_DEPTH} levels"
        hint = "split it: compute part of it in an earlier step and test that step's result, such as `$check.json.ok`"
        return _invalid(value, message, locate.span(exc.start, exc.end), "X003", hint)
    return ir.ExprCondition(value, expr, span), []


def _invalid(
    value: Any, message: str, span: Span, code: str, hint: str
) -> tuple[ir.Condition, list[Diagnostic]]:
    diag = Diagnostic(code, Severity.ERROR, message, span, hint=hint)
    return ir.InvalidCondition(value, message, span), [diag]


def _error_end(value: str, start: int, end: int) -> int:
    """Where the underline of a syntax error ends: a `${arg}` that starts there is underlined whole."""
    reference = _ARG_REF.match(value, start)
    return reference.end() if reference else end


def _condition_hint(text: str) -> str:
    if "${" in text:
        return "conditions cannot use ${arg}; compare a step result such as `$step.json.x` instead"
    if text in ("yes", "no", "on", "off", "y", "n"):
        return f"`{text}` is a string in YAML 1.2; write true or false"
    return (
        "conditions use $step.field refs, quoted strings, numbers, true/false/null, "
        "! == != < <= > >= && || and parentheses; a bare word is allowed only right of a comparison"
    )
