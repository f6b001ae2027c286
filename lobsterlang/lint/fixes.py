"""Apply the fixes of diagnostics to source text (`--fix`), or show them as a unified diff (`--diff`)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from lobsterlang.diagnostics import Diagnostic


def fixable(diagnostics: Iterable[Diagnostic], unsafe: bool = False) -> list[Diagnostic]:
    """The diagnostics with a fix to apply: safe fixes, and unsafe ones too when `unsafe` is set."""
    return [d for d in diagnostics if d.fix is not None and d.fix.edits and (unsafe or d.fix.is_safe)]


def chosen_fixes(diagnostics: Iterable[Diagnostic], unsafe: bool = False) -> list[Diagnostic]:
    """The diagnostics whose fixes `apply_fixes` applies: when two fixes overlap, the one that starts first wins."""
    chosen: list[Diagnostic] = []
    taken: list[tuple[int, int]] = []
    for diag in sorted(fixable(diagnostics, unsafe), key=lambda d: min(e.span.start for e in d.fix.edits) if d.fix else 0):
        assert diag.fix is not None
        ranges = [(e.span.start, e.span.end) for e in diag.fix.edits]
        if any(_overlaps(r, t) for r in ranges for t in taken):
            continue
        chosen.append(diag)
        taken.extend(ranges)
    return chosen


def apply_fixes(text: str, diagnostics: Iterable[Diagnostic], unsafe: bool = False) -> tuple[str, int]:
    """The text with every non-overlapping fix applied, and how many fixes were applied.

    Unsafe fixes (they can change what runs) are applied only when `unsafe` is set. A fix is
    applied whole or not at all (`chosen_fixes`).
    """
    chosen = chosen_fixes(diagnostics, unsafe)
    edits = sorted((e for diag in chosen if diag.fix for e in diag.fix.edits), key=lambda e: e.span.start, reverse=True)
    for edit in edits:
        text = text[: edit.span.start] + edit.new_text + text[edit.span.end :]
    return text, len(chosen)


def _overlaps(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return (a[0] < b[1] and b[0] < a[1]) or a == b


def unified_diff(path: str, before: str, after: str) -> str:
    lines = difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True), path, path)
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)
