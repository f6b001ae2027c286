"""The findings that touch a range of the text, and those of them that carry a fix."""

from __future__ import annotations

from collections.abc import Iterable

from lobsterlang.diagnostics import Diagnostic


def findings_in_range(diagnostics: Iterable[Diagnostic], start: int, end: int) -> list[Diagnostic]:
    """Findings whose span overlaps `start`..`end` (a cursor, `start == end`, touches the findings around it)."""
    return [d for d in diagnostics if d.span.start <= end and start <= d.span.end]


def fixes_in_range(diagnostics: Iterable[Diagnostic], start: int, end: int) -> list[Diagnostic]:
    """The findings in the range that carry a fix with at least one edit."""
    return [d for d in findings_in_range(diagnostics, start, end) if d.fix is not None and d.fix.edits]
