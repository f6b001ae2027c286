"""The findings that touch a range of the text, those of them that carry a fix, and the edit a "did you mean" suggests."""

from __future__ import annotations

import re
from collections.abc import Iterable

from lobsterlang.diagnostics import Diagnostic


def findings_in_range(diagnostics: Iterable[Diagnostic], start: int, end: int) -> list[Diagnostic]:
    """Findings whose span overlaps `start`..`end` (a cursor, `start == end`, touches the findings around it)."""
    return [d for d in diagnostics if d.span.start <= end and start <= d.span.end]


def fixes_in_range(diagnostics: Iterable[Diagnostic], start: int, end: int) -> list[Diagnostic]:
    """The findings in the range that carry a fix with at least one edit."""
    return [d for d in findings_in_range(diagnostics, start, end) if d.fix is not None and d.fix.edits]


_MEANT = re.compile(r"did you mean `([^`]+)`\?")
_NAME = re.compile(r"\$\{[A-Za-z0-9_-]+\}|\$[A-Za-z0-9_-]+|--[A-Za-z0-9_-]+|[A-Za-z0-9_][A-Za-z0-9_.-]*")
"""What a "did you mean" can name: `${arg}`, `$step`, `--flag`, a command or key."""


def suggested_edit(diag: Diagnostic, text: str) -> tuple[int, int, str] | None:
    """Write the name a finding's "did you mean `X`?" suggests in place of the one the finding points at (`pikc`,
    `--kye`, `${nme}`, a key, also in quotes, and `$lst` of `$lst.json`): (start, end, X), or None when the text there
    is not such a name as written (an escaped spelling is left alone)."""
    meant = _MEANT.search(diag.hint or "")
    start, end = diag.span.start, diag.span.end
    if end - start >= 2 and text[start] in "'\"" and text[end - 1] == text[start]:
        start, end = start + 1, end - 1
    written = _NAME.match(text, start, end) if meant else None
    if meant is None or written is None or _NAME.fullmatch(meant.group(1)) is None:
        return None
    sigil = _sigil(written.group())
    whole = written.end() == end or (sigil == "$" and text[written.end()] == ".")  # `$step` of `$step.field`
    if not whole or sigil != _sigil(meant.group(1)) or written.group() == meant.group(1):
        return None
    return (written.start(), written.end(), meant.group(1))


def _sigil(name: str) -> str:
    return next((s for s in ("${", "$", "--") if name.startswith(s)), "")
