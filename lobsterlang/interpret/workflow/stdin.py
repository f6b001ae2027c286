"""A step's `stdin`: a whole reference passes the value itself, text is a template, other data is JSON."""

from __future__ import annotations

from typing import Any

from lobsterlang import ir
from lobsterlang.interpret.values import UNDEFINED, stringify
from lobsterlang.interpret.workflow.refs import lookup
from lobsterlang.interpret.workflow.templates import Scope, render


def stdin_value(stdin: ir.Stdin | None, scope: Scope) -> Any:
    """The value fed to the step (UNDEFINED when there is none); unknown whole refs raise UnknownStep."""
    if stdin is None:
        return UNDEFINED
    if isinstance(stdin, ir.StdinRef):
        return lookup(scope.results, stdin.ref)
    if isinstance(stdin, ir.StdinTemplate):
        return render(stdin.template, scope)
    return stdin.value


def stdin_bytes(value: Any) -> bytes | None:
    """What the child reads: a string as is, other values as JSON; None (closed) for null/undefined."""
    if value is None or value is UNDEFINED:
        return None
    text = value if isinstance(value, str) else stringify(value)
    return text.encode("utf-8", "surrogatepass")


def stdin_items(value: Any) -> list[Any]:
    """Pipeline input items: an array's elements, another value as one item, nothing as none."""
    if value is None or value is UNDEFINED:
        return []
    return list(value) if isinstance(value, list) else [value]
