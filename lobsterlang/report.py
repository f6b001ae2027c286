"""Render diagnostics for people (text with a caret snippet) and for programs (JSON)."""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import PurePath
from typing import Any, Protocol
from urllib.parse import quote

from lobsterlang.diagnostics import Diagnostic, Severity
from lobsterlang.record import Record
from lobsterlang.span import Span
from lobsterlang.terminal import visible

_COLORS = {Severity.ERROR: "31", Severity.WARNING: "33", Severity.INFO: "36"}


class Report(Record):
    """The diagnostics of one source: its display path and text (for snippets)."""

    path: str
    text: str
    diagnostics: tuple[Diagnostic, ...]


def sorted_diagnostics(diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    return sorted(diagnostics, key=lambda d: (d.span.line, d.span.col, d.code))


EXCERPT_COLUMNS = 120
"""The most of a source line a snippet shows: a longer line is cut around the finding (`…` marks the cuts), so that
many findings on one long line print in proportion to their number, not to it times the line."""
_CONTEXT_COLUMNS = 40
"""Columns kept before the finding when a line is cut."""


def render_text(reports: Iterable[Report], *, color: bool = False, rule_names: Mapping[str, str] | None = None) -> str:
    """`path:line:col: CODE message` (`CODE [rule-name]` for codes in `rule_names`), the source line
    with a caret, then a hint. Control characters from the file, its name or a message are shown escaped."""
    paint = _Painter(color)
    blocks = []
    for report in reports:
        lines = _Lines(report.text)
        path = visible(report.path)
        for diag in sorted_diagnostics(report.diagnostics):
            blocks.append(_render_one(path, lines, diag, paint, (rule_names or {}).get(diag.code)))
    return "".join(blocks)


class _Lines:
    """A text's lines, each made ready to show (tabs as spaces, no `\\r`) once, however many findings it has."""

    def __init__(self, text: str) -> None:
        self._raw = text.splitlines()
        self._shown: dict[int, str] = {}

    def __len__(self) -> int:
        return len(self._raw)

    def length(self, number: int) -> int:
        return len(self._raw[number - 1])

    def shown(self, number: int) -> str:
        found = self._shown.get(number)
        if found is None:
            found = self._shown[number] = self._raw[number - 1].replace("\t", " ").rstrip("\r")
        return found


def _render_one(path: str, lines: _Lines, diag: Diagnostic, paint: _Painter, name: str | None = None) -> str:
    span = diag.span
    label = f" [{name}]" if name else ""
    head = f"{paint.bold(f'{path}:{span.line}:{span.col}:')} {paint.severity(diag.code, diag.severity)}{label} {visible(diag.message, lines=True)}\n"
    out = [head]
    if 0 < span.line <= len(lines):
        out.append(_snippet(lines.shown(span.line), span.line, span.col, _caret_len(diag, lines), paint, diag.severity))
    if diag.hint:
        gutter = " " * (len(str(span.line)) + 2)  # `=` under the `|` of the snippet's gutter
        out.append(f"{gutter}{paint.dim('= hint:')} {visible(diag.hint, lines=True)}\n")
    return "".join(out)


def _caret_len(diag: Diagnostic, lines: _Lines) -> int:
    span = diag.span
    if span.end_line == span.line:
        return max(1, span.end_col - span.col)
    return max(1, lines.length(span.line) - span.col + 1)


def _snippet(line: str, number: int, col: int, length: int, paint: _Painter, severity: Severity) -> str:
    gutter = " " * len(str(number))
    first = col - 1
    start, end = _window(len(line), first, length)
    cut = min(first + length, end)
    left, right = ("…" if start > 0 else ""), ("…" if end < len(line) else "")
    before, marked, after = (visible(line[a:b]) for a, b in ((start, first), (first, cut), (cut, end)))
    caret = paint.color(" " * _width(left + before) + "^" * max(1, _width(marked)), severity)
    shown = left + before + marked + after + right
    return f" {gutter} {paint.dim('|')}\n {number} {paint.dim('|')} {shown}\n {gutter} {paint.dim('|')} {caret}\n"


def _window(size: int, first: int, length: int) -> tuple[int, int]:
    """The part of a line of `size` characters to show for a finding at index `first`: all of a short line, else
    EXCERPT_COLUMNS around it (from a little before it)."""
    if size <= EXCERPT_COLUMNS:
        return 0, size
    start = max(0, min(first - _CONTEXT_COLUMNS, size - EXCERPT_COLUMNS))
    return start, start + EXCERPT_COLUMNS


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
    """`Found 2 errors and 1 warning.` (`, 1 note` for info findings; empty when there is nothing to say)."""
    items = list(diagnostics)
    errors = sum(1 for d in items if d.severity is Severity.ERROR)
    warnings = sum(1 for d in items if d.severity is Severity.WARNING)
    notes = sum(1 for d in items if d.severity is Severity.INFO)
    parts = [_count(errors, "error"), _count(warnings, "warning"), _count(notes, "note")]
    said = [p for p in parts if p]
    listed = ", ".join(said[:-1]) + " and " + said[-1] if len(said) > 1 else "".join(said)
    return f"Found {listed}.\n" if said else ""


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'s' if n != 1 else ''}" if n else ""


def diagnostic_json(path: str, diag: Diagnostic) -> dict[str, Any]:
    span = diag.span
    fix = None
    if diag.fix is not None:
        edits = [{"span": span_json(e.span), "new_text": e.new_text} for e in diag.fix.edits]
        fix = {"message": diag.fix.message, "edits": edits, "applicability": diag.fix.applicability}
    return {
        "path": path,
        "code": diag.code,
        "severity": diag.severity.value,
        "message": diag.message,
        "hint": diag.hint,
        "span": span_json(span),
        "fix": fix,
    }


def span_json(span: Span) -> dict[str, int]:
    """A span as the JSON reports write it (the diagnostic's `span` and each fix edit's)."""
    return {
        "start": span.start, "end": span.end, "line": span.line, "col": span.col,
        "end_line": span.end_line, "end_col": span.end_col,
    }


def render_json(reports: Iterable[Report]) -> str:
    """A JSON array of diagnostics, sorted by file then position."""
    items = [diagnostic_json(r.path, d) for r in reports for d in sorted_diagnostics(r.diagnostics)]
    return json.dumps(items, indent=2, ensure_ascii=False) + "\n"


_GITHUB_LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}
_SARIF_LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def _github_data(text: str) -> str:
    return visible(text, lines=True).replace("%", "%25").replace("\n", "%0A")


def _github_property(text: str) -> str:
    return _github_data(text).replace(":", "%3A").replace(",", "%2C")


def render_github(reports: Iterable[Report], rule_names: Mapping[str, str] | None = None) -> str:
    """GitHub Actions workflow commands: one `::error file=…,line=…::message` line per diagnostic."""
    lines = []
    for report in reports:
        for diag in sorted_diagnostics(report.diagnostics):
            s = diag.span
            name = (rule_names or {}).get(diag.code)
            title = f"{diag.code} [{name}]" if name else diag.code
            props = f"file={_github_property(report.path)},line={s.line},col={s.col},endLine={s.end_line},endColumn={s.end_col}"
            message = diag.message + (f" (hint: {diag.hint})" if diag.hint else "")
            lines.append(f"::{_GITHUB_LEVELS[diag.severity]} {props},title={_github_property(title)}::{_github_data(message)}\n")
    return "".join(lines)


class RuleInfo(Protocol):
    """What SARIF needs to know about a rule."""

    @property
    def code(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def summary(self) -> str: ...
    @property
    def severity(self) -> Severity: ...
    @property
    def docs_path(self) -> str: ...


Fingerprint = Callable[[Report, Diagnostic], str]


def render_sarif(reports: Sequence[Report], rules: Sequence[RuleInfo], fingerprint: Fingerprint, version: str) -> str:
    """A SARIF 2.1.0 log with one run; `fingerprint` gives each result's stable partial fingerprint."""
    index = {rule.code: i for i, rule in enumerate(rules)}
    results = [
        _sarif_result(report, diag, index, fingerprint(report, diag))
        for report in reports for diag in sorted_diagnostics(report.diagnostics)
    ]
    driver = {"name": "lobster-lint", "version": version, "semanticVersion": version, "rules": [_sarif_rule(r) for r in rules]}
    log = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{"tool": {"driver": driver}, "columnKind": "unicodeCodePoints", "results": results}],
    }
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"


def _sarif_rule(rule: RuleInfo) -> dict[str, Any]:
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "help": {"text": f"{rule.summary}. Docs: {rule.docs_path}", "markdown": f"{rule.summary}. See [{rule.docs_path}]({rule.docs_path})."},
        "defaultConfiguration": {"level": _SARIF_LEVELS[rule.severity]},
        "properties": {"tags": ["lobster"]},
    }


def _sarif_result(report: Report, diag: Diagnostic, index: Mapping[str, int], fingerprint: str) -> dict[str, Any]:
    s = diag.span
    region = {"startLine": s.line, "startColumn": s.col, "endLine": s.end_line, "endColumn": max(s.end_col, s.col + 1) if s.end_line == s.line else s.end_col}
    result: dict[str, Any] = {
        "ruleId": diag.code,
        "level": _SARIF_LEVELS[diag.severity],
        "message": {"text": diag.message + (f" Hint: {diag.hint}" if diag.hint else "")},
        "locations": [{"physicalLocation": {"artifactLocation": {"uri": _uri(report.path)}, "region": region}}],
        "partialFingerprints": {"lobsterFinding/v1": fingerprint},
    }
    if diag.code in index:
        result["ruleIndex"] = index[diag.code]
    return result


def _uri(path: str) -> str:
    return quote(PurePath(path).as_posix().removeprefix("./"))
