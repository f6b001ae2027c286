"""Render diagnostics for people (text with a caret snippet) and for programs (JSON)."""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Iterable
from typing import Any

from lobsterlang.diagnostics import Diagnostic, Severity
from lobsterlang.record import Record

_COLORS = {Severity.ERROR: "31", Severity.WARNING: "33", Severity.INFO: "36"}


class Report(Record):
    """The diagnostics of one source: its display path and text (for snippets)."""

    path: str
    text: str
    diagnostics: tuple[Diagnostic, ...]


def sorted_diagnostics(diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    return sorted(diagnostics, key=lambda d: (d.span.line, d.span.col, d.code))


def render_text(reports: Iterable[Report], *, color: bool = False) -> str:
    """`path:line:col: CODE message`, the source line with a caret, then a hint."""
    paint = _Painter(color)
    blocks = []
    for report in reports:
        lines = report.text.splitlines()
        for diag in sorted_diagnostics(report.diagnostics):
            blocks.append(_render_one(report.path, lines, diag, paint))
    return "".join(blocks)


def _render_one(path: str, lines: list[str], diag: Diagnostic, paint: _Painter) -> str:
    span = diag.span
    head = f"{paint.bold(f'{path}:{span.line}:{span.col}:')} {paint.severity(diag.code, diag.severity)} {diag.message}\n"
    out = [head]
    if 0 < span.line <= len(lines):
        out.append(_snippet(lines[span.line - 1], span.line, span.col, _caret_len(diag, lines), paint, diag.severity))
    if diag.hint:
        out.append(f"   {paint.dim('= hint:')} {diag.hint}\n")
    return "".join(out)


def _caret_len(diag: Diagnostic, lines: list[str]) -> int:
    span = diag.span
    if span.end_line == span.line:
        return max(1, span.end_col - span.col)
    return max(1, len(lines[span.line - 1]) - span.col + 1)


def _snippet(line: str, number: int, col: int, length: int, paint: _Painter, severity: Severity) -> str:
    gutter = " " * len(str(number))
    shown = line.replace("\t", " ").rstrip("\r")
    before = _width(shown[: col - 1])
    under = max(1, _width(shown[col - 1 : col - 1 + length]))
    caret = paint.color(" " * before + "^" * under, severity)
    return f" {gutter} {paint.dim('|')}\n {number} {paint.dim('|')} {shown}\n {gutter} {paint.dim('|')} {caret}\n"


def _width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


class _Painter:
    """ANSI styling that collapses to plain text when colour is off."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled

    def _wrap(self, text: str, code: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.enabled else text

    def bold(self, text: str) -> str:
        return self._wrap(text, "1")

    def dim(self, text: str) -> str:
        return self._wrap(text, "2")

    def color(self, text: str, severity: Severity) -> str:
        return self._wrap(text, _COLORS[severity])

    def severity(self, text: str, severity: Severity) -> str:
        return self._wrap(text, "1;" + _COLORS[severity])


def summary(diagnostics: Iterable[Diagnostic]) -> str:
    """`Found 2 errors and 1 warning.` (empty when there is nothing to say)."""
    items = list(diagnostics)
    errors = sum(1 for d in items if d.severity is Severity.ERROR)
    warnings = sum(1 for d in items if d.severity is Severity.WARNING)
    parts = [_count(errors, "error"), _count(warnings, "warning")]
    said = [p for p in parts if p]
    return f"Found {' and '.join(said)}.\n" if said else ""


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'s' if n != 1 else ''}" if n else ""


def diagnostic_json(path: str, diag: Diagnostic) -> dict[str, Any]:
    span = diag.span
    fix = None
    if diag.fix is not None:
        edits = [{"span": e.span.to_list(), "new_text": e.new_text} for e in diag.fix.edits]
        fix = {"message": diag.fix.message, "edits": edits}
    return {
        "path": path,
        "code": diag.code,
        "severity": diag.severity.value,
        "message": diag.message,
        "hint": diag.hint,
        "span": {
            "start": span.start, "end": span.end, "line": span.line, "col": span.col,
            "end_line": span.end_line, "end_col": span.end_col,
        },
        "fix": fix,
    }


def render_json(reports: Iterable[Report]) -> str:
    """A JSON array of diagnostics, sorted by file then position."""
    items = [diagnostic_json(r.path, d) for r in reports for d in sorted_diagnostics(r.diagnostics)]
    return json.dumps(items, indent=2, ensure_ascii=False) + "\n"
