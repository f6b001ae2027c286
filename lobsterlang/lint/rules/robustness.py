"""L5xx: ids that shadow each other and conditions that can never be true."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

from lobsterlang import ir
from lobsterlang.diagnostics import Diagnostic, Severity
from lobsterlang.lint.context import LintContext
from lobsterlang.lint.gates import branch_asks_first
from lobsterlang.lint.registry import rule
from lobsterlang.lint.scope import loop_vars
from lobsterlang.lint.walk import Unit

UNKNOWN: Any = object()


@rule("L501", "duplicate-step-id", Severity.WARNING, "a for_each sub-step id or loop variable that repeats a step id")
def duplicate_step_id(ctx: LintContext) -> Iterator[Diagnostic]:
    if not any(isinstance(step.action, ir.ForEach) for step in ctx.steps):
        return
    outer = {u.id for u in ctx.units if u.kind != "substep"}
    for unit in ctx.units:
        if unit.kind == "substep" and unit.id in outer:
            yield ctx.diag("L501", unit.id_span, f"for_each sub-step id `{unit.id}` repeats a step id; in the sub-steps "
                           f"after it `${unit.id}` means the sub-step, before it and outside the loop the step", "rename the sub-step")
    for step in ctx.steps:
        if isinstance(step.action, ir.ForEach):
            for name in loop_vars(step.action):
                if name in outer and _used_in_loop(ctx, step.action, name):
                    yield ctx.diag("L501", step.action.span, f"loop variable `{name}` of step `{step.id}` repeats a step id; "
                                   f"inside the loop `${name}` means the item", "set `item_var`/`index_var` to another name")


def _used_in_loop(ctx: LintContext, loop: ir.ForEach, name: str) -> bool:
    """Whether a sub-step of `loop` says `$name` (only then the loop variable hides the step)."""
    return any(ref.step == name for unit in ctx.units if unit.loop is loop for ref, _ in unit.data_refs) or any(
        type(node) is ir.StepRef and node.step == name for unit in ctx.units if unit.loop is loop for node in unit.condition_nodes
    )


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    return "string" if isinstance(value, str) else "object"


def _numeric(value: Any) -> float | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        return float(value)
    try:
        number = float(value) if isinstance(value, str) and value.strip() else math.nan
    except ValueError:
        return None
    return None if math.isnan(number) else number


def mixed_compare(expr: ir.Compare) -> str | None:
    """Why a comparison between literals is always decided by their types, or None."""
    left, right = expr.left, expr.right
    if expr.op in ("==", "!=") and isinstance(left, ir.Literal) and isinstance(right, ir.Literal):
        lt, rt = _json_type(left.value), _json_type(right.value)
        return f"a {lt} never equals a {rt}" if lt != rt else None
    if expr.op not in ("==", "!="):
        for side in (left, right):
            if isinstance(side, ir.Literal) and _numeric(side.value) is None:
                return f"`{expr.op}` against the non-numeric {_json_type(side.value)} {side.value!r} is always false"
    return None


Checked = tuple[Unit, ir.Condition, tuple[tuple[ir.Compare, str | None], ...]]


def checked_conditions(ctx: LintContext) -> tuple[Checked, ...]:
    """Each condition with its comparisons and why each is constant (shared by L502 and L503)."""
    return tuple(
        (unit, unit.when, tuple((e, mixed_compare(e)) for e in unit.condition_nodes if type(e) is ir.Compare))
        for unit in ctx.units if unit.when is not None
    )


def first_steps(ctx: LintContext) -> dict[str, Unit]:
    """The first top-level step of each id."""
    found: dict[str, Unit] = {}
    for step in ctx.steps:
        found.setdefault(step.id, step)
    return found


def first_branches(ctx: LintContext) -> dict[str, Unit]:
    """The first parallel branch of each id."""
    found: dict[str, Unit] = {}
    for unit in ctx.units:
        if unit.kind == "branch":
            found.setdefault(unit.id, unit)
    return found


@rule("L503", "mixed-type-comparison", Severity.WARNING, "a comparison whose result is fixed by the types of its literals", per_step=True)
def mixed_type_comparison(ctx: LintContext) -> Iterator[Diagnostic]:
    for _, _, checked in ctx.shared(checked_conditions):
        for expr, why in checked:
            if why:
                yield ctx.diag("L503", expr.span, f"comparison is constant: {why} (comparisons do not convert types)",
                               "compare values of the same type: quote both sides or neither")


def _truthy(value: Any) -> bool:
    return value not in (None, False, 0, "") and not (isinstance(value, float) and math.isnan(value))


class _Evaluator:
    """Evaluates a condition where it is known statically; UNKNOWN elsewhere."""

    def __init__(self, ctx: LintContext, unit: Unit) -> None:
        self.ctx, self.unit = ctx, unit
        self.steps, self.branches = ctx.shared(first_steps), ctx.shared(first_branches)

    def __call__(self, expr: ir.Expr) -> Any:
        if type(expr) is ir.StepRef:
            return self._ref(expr)
        if type(expr) is ir.Literal:
            return expr.value
        if type(expr) is ir.Compare:
            return self._compare(expr)
        if type(expr) is ir.Logical:
            return self._logical(expr)
        if type(expr) is ir.Not:
            value = self(expr.operand)
            return UNKNOWN if value is UNKNOWN else not _truthy(value)
        assert isinstance(expr, ir.Ident)
        return expr.name

    def _ref(self, ref: ir.StepRef) -> Any:
        return True if ref.path == ("approved",) and self._approved(ref.step) else UNKNOWN

    def _approved(self, name: str) -> bool:
        """Whether `$name` is, where the unit runs, an approval that always asked before it (a rejection cancels the
        run): inside a loop an earlier sub-step of that id (or a loop variable) hides the step of that id."""
        unit = self.unit
        if unit.loop is not None:
            if name in loop_vars(unit.loop):
                return False
            earlier = [sub for sub in unit.loop.steps[: unit.position] if sub.id == name]
            if earlier:
                return earlier[-1].approval is not None and earlier[-1].when is None
        gate = self.steps.get(name)
        if gate is not None:
            return gate.gate == "approval" and gate.when is None and gate.index < unit.index
        branch = self.branches.get(name)
        return branch is not None and branch.gate == "approval" and branch_asks_first(self.ctx, branch) and branch.index < unit.index

    def _logical(self, expr: ir.Logical) -> Any:
        left, right = self(expr.left), self(expr.right)
        known = [_truthy(v) for v in (left, right) if v is not UNKNOWN]
        if expr.op == "&&":
            return False if False in known else (True if len(known) == 2 else UNKNOWN)
        return True if True in known else (False if len(known) == 2 else UNKNOWN)

    def _compare(self, expr: ir.Compare) -> Any:
        left, right = self(expr.left), self(expr.right)
        if left is UNKNOWN or right is UNKNOWN:
            return UNKNOWN
        if expr.op in ("==", "!="):
            return ((left == right and type(left) is type(right)) or _same_number(left, right)) == (expr.op == "==")
        a, b = _numeric(left), _numeric(right)
        if a is None or b is None:
            return False
        return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[expr.op]


def _same_number(left: Any, right: Any) -> bool:
    return _json_type(left) == _json_type(right) == "number" and left == right


def _hint(nodes: list[ir.Expr]) -> str:
    """What to say about an always false condition (of these `walk.expr_nodes`)."""
    if any(type(e) is ir.StepRef for e in nodes):
        return "a rejected approval cancels the whole run, so `$gate.approved` is always true after the gate"
    return "the condition compares constants only; compare a step result such as `$step.json.field`"


@rule("L502", "always-false-condition", Severity.WARNING, "a condition that can never be true")
def always_false_condition(ctx: LintContext) -> Iterator[Diagnostic]:
    for unit, when, checked in ctx.shared(checked_conditions):
        if type(when) is ir.ConstCondition and not when.value:
            yield ctx.diag("L502", when.span, f"step `{unit.id}` never runs: its condition is false", "remove the step or the condition")
        elif type(when) is ir.ExprCondition and not any(why for _, why in checked):
            value = _Evaluator(ctx, unit)(when.expr)
            if value is not UNKNOWN and not _truthy(value):
                yield ctx.diag("L502", when.span, f"step `{unit.id}` never runs: `{when.text}` is always false", _hint(unit.condition_nodes))
