"""Compile text that is being edited: when it does not parse, the part above the first error still gives an IR."""

from __future__ import annotations

import re
from collections.abc import Iterator

from lobsterlang import ir
from lobsterlang.compile import CompileResult, compile_workflow

_ITEM_OR_TOP = re.compile(r"^(?:[ \t]*-[ \t]|\S)", re.MULTILINE)
_ATTEMPTS = 4


def compile_recovering(text: str, path: str) -> tuple[CompileResult[ir.Workflow], ir.Workflow | None]:
    """The compile result of `text`, and the best IR for navigation: the full one, else that of the text above
    the first error, cut before a list item or top-level key (its offsets are the same in `text`), else None."""
    result = compile_workflow(text, path)
    if result.ir is not None:
        return result, result.ir
    errors = [d for d in result.diagnostics if d.is_error]
    if not errors:
        return result, None
    for end in _cuts(text, errors[0].span.start):
        prefix = compile_workflow(text[:end], path)
        if prefix.ir is not None and prefix.ir.steps:
            return result, prefix.ir
    return result, None


def _cuts(text: str, error: int) -> Iterator[int]:
    """Line starts before `error` where a list item or a top-level key begins, nearest first."""
    starts = [m.start() for m in _ITEM_OR_TOP.finditer(text, 0, text.rfind("\n", 0, error) + 1)]
    yield from (s for s in reversed(starts[-_ATTEMPTS:]) if s > 0)
