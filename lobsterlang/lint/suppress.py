"""`# lobster: ignore[CODE,…]` comments: on a finding's line, or on a step's first line (or the line above it)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from lobsterlang import ir
from lobsterlang.diagnostics import Diagnostic
from lobsterlang.lint.context import LintContext
from lobsterlang.lint.registry import all_rules
from lobsterlang.record import Record
from lobsterlang.span import Span

_IGNORE_RE = re.compile(r"#\s*lobster:\s*ignore(?:\[([^\]]*)\])?")


class Suppression(Record):
    """One ignore comment: the codes it names (None: all) and what it covers: its line, and the offsets of
    the step it stands on. Holds no IR: findings are suppressed after shellcheck's, in another process."""

    codes: tuple[str, ...] | None
    span: Span
    line: int
    ranges: tuple[tuple[int, int], ...] = ()

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
            yield Suppression(_codes(found), comment.span, comment.span.line, _step_ranges(ctx, comment.span))


def _own_line(ctx: LintContext, span: Span) -> bool:
    line_start = ctx.textmap.index.line_start(span.line)
    return not ctx.text[line_start : span.start].strip()


def _step_ranges(ctx: LintContext, span: Span) -> tuple[tuple[int, int], ...]:
    """A comment on a step's first line, or alone on the line above it, covers the whole step."""
    above = _own_line(ctx, span)
    return tuple(
        (u.span.start, u.span.end) for u in ctx.units
        if u.span.line == span.line or (above and u.span.line == span.line + 1)
    )


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


def suppressions(ctx: LintContext) -> tuple[Suppression, ...]:
    return (*_yaml_comments(ctx), *_script_comments(ctx))


def apply_suppressions(found: tuple[Suppression, ...], diagnostics: list[Diagnostic], report_unused: bool,
                       inactive: tuple[str, ...] = ()) -> list[Diagnostic]:
    """Drop the diagnostics a comment of `found` covers; add an L001 finding for each comment that
    suppressed nothing.

    A comment naming only `inactive` codes (rules off for the file's target runtime) is not reported.
    """
    if not found:
        return diagnostics
    kept = []
    used: set[int] = set()
    for diag in diagnostics:
        covering = [number for number, suppression in enumerate(found) if suppression.covers(diag)]
        used.update(covering)
        if not covering:
            kept.append(diag)
    if report_unused:
        kept.extend(_unused(s) for number, s in enumerate(found)
                    if number not in used and not (s.codes and all(c in inactive for c in s.codes)))
    return kept


def _unused(suppression: Suppression) -> Diagnostic:
    rule = all_rules()["L001"]
    return Diagnostic(rule.code, rule.severity, f"`{suppression.label}` suppresses nothing here", suppression.span, None, "remove the comment")
