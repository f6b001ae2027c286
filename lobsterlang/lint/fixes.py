"""Apply the fixes of diagnostics to source text (`--fix`), or show them as a unified diff (`--diff`)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from lobsterlang.diagnostics import Diagnostic, Edit


def fixable(diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    return [d for d in diagnostics if d.fix is not None and d.fix.edits]


def apply_fixes(text: str, diagnostics: Iterable[Diagnostic]) -> tuple[str, int]:
    """The text with every non-overlapping fix applied, and how many fixes were applied.

    A fix is applied whole or not at all; when two fixes overlap, the one that starts first wins.
    """
    chosen: list[tuple[Edit, ...]] = []
    taken: list[tuple[int, int]] = []
    for diag in sorted(fixable(diagnostics), key=lambda d: min(e.span.start for e in d.fix.edits) if d.fix else 0):
        assert diag.fix is not None
        ranges = [(e.span.start, e.span.end) for e in diag.fix.edits]
        if any(_overlaps(r, t) for r in ranges for t in taken):
            continue
        chosen.append(diag.fix.edits)
        taken.extend(ranges)
    edits = sorted((e for group in chosen for e in group), key=lambda e: e.span.start, reverse=True)
    for edit in edits:
        text = text[: edit.span.start] + edit.new_text + text[edit.span.end :]
    return text, len(chosen)


def _overlaps(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return (a[0] < b[1] and b[0] < a[1]) or a == b


def unified_diff(path: str, before: str, after: str) -> str:
    lines = difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True), path, path)
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)
