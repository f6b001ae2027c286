"""The findings of per-step rules kept between versions of one document: a step that an edit did not change
(the same IR object, `compile.reuse`) keeps its findings, which move with it; only changed steps are checked."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Sequence

from lobsterlang import ir
from lobsterlang.diagnostics import Diagnostic, Edit
from lobsterlang.lint.context import LintContext
from lobsterlang.lint.registry import Check
from lobsterlang.lint.walk import UnitCache
from lobsterlang.record import Record, replace
from lobsterlang.span import Span, moving_with


class StepFindings:
    """For one document: the findings of the per-step checks (`Rule.per_step`) on each step of its last lint.

    They are reused only under the same checks, path, target, extensions and workflow-level fields (args, env: what a
    per-step check may read besides its step).
    """

    def __init__(self) -> None:
        self.units = UnitCache()
        """The units of the document's steps (`LintContext.units`), kept for the same steps too."""
        self._setting: tuple[object, ...] = ()
        self._steps: dict[int, tuple[ir.Step, tuple[Diagnostic, ...]]] = {}
        self.rechecked = 0
        """How many steps the last lint checked (for tests and benchmarks)."""

    def check(self, ctx: LintContext, checks: Sequence[Check]) -> list[Diagnostic]:
        """What `checks` find in `ctx`'s workflow, checking only the steps not seen unchanged last time."""
        assert ctx.workflow is not None
        steps = ctx.workflow.steps
        setting = (tuple(checks), ctx.path, ctx.target, ctx.extensions, _around_steps(ctx.workflow))
        known = self._steps if setting == self._setting else {}
        fresh = [step for step in steps if known.get(id(step), (None,))[0] is not step]
        if len(fresh) == len(steps):
            found, outside = _by_step(_run(checks, ctx), steps)
        else:
            found, _ = _by_step(_run(checks, _with_steps(ctx, fresh)), fresh)
            outside = _run(checks, _with_steps(ctx, ()))
        fresh_ids = {id(step) for step in fresh}
        kept = {}
        for step in steps:
            mine = tuple(_moving(step, found.get(id(step), ()))) if id(step) in fresh_ids else known[id(step)][1]
            kept[id(step)] = (step, mine)
            outside.extend(mine)
        self._setting, self._steps, self.rechecked = setting, kept, len(fresh)
        return outside


def _around_steps(workflow: ir.Workflow) -> object:
    """The workflow without its steps and comments, positions left out: what a per-step check may read besides
    its step (args, env, cwd). An edit that only moves it, or changes a comment, changes no finding of a step."""
    return _without_positions(replace(workflow, steps=(), comments=()))


def _without_positions(value: object) -> object:
    if isinstance(value, Span):
        return None
    if isinstance(value, Record):
        return (type(value), *(_without_positions(getattr(value, name)) for name in value._fields))
    if isinstance(value, tuple):
        return tuple(_without_positions(item) for item in value)
    return value


def _with_steps(ctx: LintContext, steps: Iterable[ir.Step]) -> LintContext:
    assert ctx.workflow is not None
    return LintContext(ctx.path, ctx.text, replace(ctx.workflow, steps=tuple(steps)), target=ctx.target, extensions=ctx.extensions)


def _run(checks: Sequence[Check], ctx: LintContext) -> list[Diagnostic]:
    return [diag for check in checks for diag in check(ctx)]


def _by_step(found: list[Diagnostic], steps: Sequence[ir.Step]) -> tuple[dict[int, list[Diagnostic]], list[Diagnostic]]:
    """`found` by the step (its `id`) whose span holds each finding, and the findings outside every step."""
    starts = [step.span.start for step in steps]
    by_step: dict[int, list[Diagnostic]] = {}
    outside = []
    for diag in found:
        at = bisect_right(starts, diag.span.start) - 1
        if at >= 0 and diag.span.end <= steps[at].span.end:
            by_step.setdefault(id(steps[at]), []).append(diag)
        else:
            outside.append(diag)
    return by_step, outside


def _moving(step: ir.Step, found: Iterable[Diagnostic]) -> Iterable[Diagnostic]:
    """The findings, with every span they hold made to move with the step."""
    anchor = step.span
    for diag in found:
        fix = diag.fix
        if fix is not None:
            fix = replace(fix, edits=tuple(Edit(moving_with(anchor, e.span), e.new_text) for e in fix.edits))
        yield replace(diag, span=moving_with(anchor, diag.span), fix=fix)
