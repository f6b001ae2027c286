"""`# lobster: ignore[CODE,…]` comments: on a finding's line, or on a step's first line (or the line above it)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from lobsterlang import ir
from lobsterlang.diagnostics import Diagnostic
from lobsterlang.lint.context import LintContext
from lobsterlang.span import Span

_IGNORE_RE = re.compile(r"#\s*lobster:\s*ignore(?:\[([^\]]*)\])?")


class Suppression:
    """One ignore comment: the codes it names (None: all) and the offsets it covers."""

    def __init__(self, codes: tuple[str, ...] | None, span: Span, line: int) -> None:
        self.codes = codes
        self.span = span
        self.line = line
        self.ranges: list[tuple[int, int]] = []
        self.used = False

    def covers(self, diag: Diagnostic) -> bool:
        if self.codes is not None and not any(diag.code.startswith(c) for c in self.codes):
            return False
        return diag.span.line == self.line or any(a <= diag.span.start < b for a, b in self.ranges)

    @property
    def label(self) -> str:
        return "lobster: ignore" + (f"[{','.join(self.codes)}]" if self.codes is not None else "")


def _parse(text: str) -> re.Match[str] | None:
    return _IGNORE_RE.search(text)


def _codes(found: re.Match[str]) -> tuple[str, ...] | None:
    if found.group(1) is None:
        return None
    return tuple(c.strip().upper() for c in found.group(1).split(",") if c.strip())


def _yaml_comments(ctx: LintContext) -> Iterator[Suppression]:
    for comment in ctx.workflow.comments if ctx.workflow else ():
        found = _parse(comment.text)
        if found:
            suppression = Suppression(_codes(found), comment.span, comment.span.line)
            suppression.ranges = _step_ranges(ctx, comment.span)
            yield suppression


def _own_line(ctx: LintContext, span: Span) -> bool:
    line_start = ctx.textmap.index.line_start(span.line)
    return not ctx.text[line_start : span.start].strip()


def _step_ranges(ctx: LintContext, span: Span) -> list[tuple[int, int]]:
    """A comment on a step's first line, or alone on the line above it, covers the whole step."""
    above = _own_line(ctx, span)
    return [
        (u.span.start, u.span.end) for u in ctx.units
        if u.span.line == span.line or (above and u.span.line == span.line + 1)
    ]


def _script_comments(ctx: LintContext) -> Iterator[Suppression]:
    """Ignore comments written as shell comments inside `run:` scripts (block scalars)."""
    for _, run in ctx.shell_runs:
        template = run.command
        if "lobster:" not in template.text:
            continue
        for start, part in ctx.offsets(template):
            if isinstance(part, ir.Text):
                for found in _IGNORE_RE.finditer(part.value):
                    span = ctx.textmap.span(template, start + found.start(), start + found.end())
                    yield Suppression(_codes(found), span, span.line)


def suppressions(ctx: LintContext) -> list[Suppression]:
    return [*_yaml_comments(ctx), *_script_comments(ctx)]


def apply_suppressions(ctx: LintContext, diagnostics: list[Diagnostic], report_unused: bool, inactive: tuple[str, ...] = ()) -> list[Diagnostic]:
    """Drop suppressed diagnostics; add an L001 finding for each comment that suppressed nothing.

    A comment naming only `inactive` codes (rules off for the file's target runtime) is not reported.
    """
    found = suppressions(ctx)
    if not found:
        return diagnostics
    kept = []
    for diag in diagnostics:
        covering = [s for s in found if s.covers(diag)]
        for suppression in covering:
            suppression.used = True
        if not covering:
            kept.append(diag)
    if report_unused:
        kept.extend(ctx.diag("L001", s.span, f"`{s.label}` suppresses nothing here", "remove the comment") for s in found
                    if not s.used and not (s.codes and all(c in inactive for c in s.codes)))
    return kept
