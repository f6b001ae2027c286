"""Parse templates (`${arg}`, `$step.path` inside strings) and `when:` conditions into IR."""

from __future__ import annotations

import re
from typing import Any

from lobsterlang import ir
from lobsterlang.diagnostics import Diagnostic, Severity
from lobsterlang.span import Span
from lobsterlang.syntax._terminals import KEYWORDS
from lobsterlang.syntax.lexer import condition_scanner, template_scanner
from lobsterlang.syntax.locate import Locator
from lobsterlang.syntax.text import js_trim_range

UNSUPPORTED_TYPE = "Unsupported condition type"
_STRING_ESCAPE = re.compile(r"\\([\s\S])")
WHOLE_REF = re.compile(r"\$([A-Za-z0-9_-]+)\.([A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*)")


# ── templates ──────────────────────────────────────────────────────────────────────


def parse_template(text: str, locate: Locator, *, step_refs: bool = True) -> ir.Template:
    """Split `text` into literal text and references; `step_refs=False` keeps `$a.b` literal."""
    whole = locate.span(0, len(text))
    if "$" not in text:
        return ir.Template(text, (ir.Text(text, whole),) if text else (), whole)
    parts: list[ir.TemplatePart] = []
    pending = -1  # start of a run of literal text not yet emitted
    for match in template_scanner().finditer(text):
        kind, start, end = match.lastgroup, match.start(), match.end()
        if kind == "ARGREF":
            ref: ir.ArgRef | ir.StepRef = ir.ArgRef(text[start + 2 : end - 1], locate.span(start, end))
        elif kind == "STEPREF" and step_refs:
            ref = _step_ref(text[start:end], locate.span(start, end))
        else:
            pending = start if pending < 0 else pending
            continue
        if pending >= 0:
            parts.append(ir.Text(text[pending:start], locate.span(pending, start)))
            pending = -1
        parts.append(ref)
    if pending >= 0:
        parts.append(ir.Text(text[pending:], locate.span(pending, len(text))))
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
    return _step_ref(match.group(0), locate.span(lo, hi))


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
    message = f"Unsupported condition: {text}"
    if not text:
        return _invalid(value, message, span, "X001", "write an expression, or remove the key")
    from lobsterlang.syntax import parser as lark  # the LALR parser is loaded only for conditions

    try:
        tree = _condition_tree(text, lark)
    except _Unscannable as exc:
        where = locate.span(lo + exc.pos, lo + exc.pos + 1)
        return _invalid(value, message, where, "X001", _condition_hint(text))
    except lark.UnexpectedInput as exc:
        pos = lo + (exc.pos_in_stream or 0)
        token = getattr(exc, "token", None)
        width = max(1, len(token)) if token is not None and token.type != "$END" else 1
        where = locate.span(min(pos, hi - 1), min(pos + width, hi))
        return _invalid(value, message, where, "X001", _condition_hint(text))
    expr = _Builder(locate, lo).build(tree.children[0])
    return ir.ExprCondition(value, expr, span), []


class _Unscannable(ValueError):
    """No condition terminal matches at `pos`."""

    def __init__(self, pos: int) -> None:
        super().__init__(pos)
        self.pos = pos


def _condition_tree(text: str, lark: Any) -> Any:
    """Tokenize with the grammar's terminals (one regex) and feed the tokens to the LALR parser.

    This is what `lark.parse(text, "condition")` does, without Lark's per-token lexer overhead;
    tests/test_grammar.py checks both give the same tree or both fail.
    """
    feeder = lark.parser().parse_interactive(start="condition")
    pos = 0
    for match in condition_scanner().finditer(text):
        start, end = match.span()
        if start != pos:
            raise _Unscannable(pos)
        pos = end
        kind = match.lastgroup or ""
        if kind == "IGNORE_0":
            continue
        word = match.group()
        kind = KEYWORDS.get(word, kind) if kind == "IDENT" else kind
        feeder.feed_token(lark.Token(kind, word, start, 1, start + 1, end_pos=end))
    if pos != len(text):
        raise _Unscannable(pos)
    return feeder.feed_eof()


def _invalid(
    value: Any, message: str, span: Span, code: str, hint: str
) -> tuple[ir.Condition, list[Diagnostic]]:
    diag = Diagnostic(code, Severity.ERROR, message, span, hint=hint)
    return ir.InvalidCondition(value, message, span), [diag]


def _condition_hint(text: str) -> str:
    if "${" in text:
        return "conditions cannot use ${arg}; compare a step result such as `$step.json.x` instead"
    if text in ("yes", "no", "on", "off", "y", "n"):
        return f"`{text}` is a string in YAML 1.2; write true or false"
    return (
        "conditions use $step.field refs, quoted strings, numbers, true/false/null, "
        "! == != < <= > >= && || and parentheses; a bare word is allowed only right of a comparison"
    )


class _Builder:
    """Turns a condition parse tree into IR expressions with file spans."""

    def __init__(self, locate: Locator, base: int) -> None:
        self._locate = locate
        self._base = base

    def span(self, node: Any) -> Span:
        first, last = _leaf(node, 0), _leaf(node, -1)
        return self._locate.span(self._base + first.start_pos, self._base + last.end_pos)

    def build(self, node: Any) -> ir.Expr:
        if _is_token(node):
            return self._token(node)
        kind = node.data
        kids = node.children
        if kind == "logical":
            return ir.Logical(kids[1].value, self.build(kids[0]), self.build(kids[2]), self.span(node))
        if kind == "compare":
            return ir.Compare(kids[1].value, self.build(kids[0]), self.build(kids[2]), self.span(node))
        if kind == "negate":
            return ir.Not(self.build(kids[1]), self.span(node))
        if kind in ("ref", "string", "number", "true", "false", "null", "ident"):
            return self._token(kids[0])
        return self.build(kids[0])  # parenthesised or_expr

    def _token(self, tok: Any) -> ir.Expr:
        span = self._locate.span(self._base + tok.start_pos, self._base + tok.end_pos)
        kind, text = tok.type, tok.value
        if kind == "STEPREF":
            return _step_ref(text, span)
        if kind == "IDENT":
            return ir.Ident(text, span)
        return ir.Literal(_literal_value(kind, text), span)


def _literal_value(kind: str, text: str) -> Any:
    if kind == "STRING":
        return _STRING_ESCAPE.sub(r"\1", text[1:-1])
    if kind == "NUMBER":
        return float(text) if "." in text else int(text)
    return {"TRUE": True, "FALSE": False, "NULL": None}[kind]


def _leaf(node: Any, index: int) -> Any:
    while not _is_token(node):
        node = node.children[index]
    return node


def _is_token(node: Any) -> bool:
    """Lark tokens are strings; tree nodes have a `data` rule name."""
    return not hasattr(node, "data")
