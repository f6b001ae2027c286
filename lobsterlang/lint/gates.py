"""Which approval gates a unit: an approval step before it, an approval sub-step before it in its loop, or an
approval branch of a `wait: all` parallel step before it (an `approve` stage in a pipeline asks there too)."""

from __future__ import annotations

from bisect import bisect_left

from lobsterlang import ir
from lobsterlang.lint.context import LintContext
from lobsterlang.lint.effects import stage_side_effect
from lobsterlang.lint.walk import Unit, stages


def node(unit: Unit) -> ir.Step | ir.Branch:
    """What a unit runs: its step, sub-step or branch (`unit.step` of a sub-step or branch is the step that holds it)."""
    if unit.kind == "substep":
        assert unit.loop is not None
        return unit.loop.steps[unit.position]
    if unit.kind == "branch":
        assert type(unit.step.action) is ir.Parallel
        return unit.step.action.branches[unit.position]
    return unit.step


def own_approval(unit: Unit) -> ir.Approval | None:
    """The unit's own `approval:`, not the one of the step that holds it."""
    return node(unit).approval if unit.gate == "approval" else None


def asks(ctx: LintContext, unit: Unit) -> bool:
    """Whether a unit asks for approval before it ends: its `approval:` (after its command), or (target lobsterlang)
    an `approve` stage in its pipeline, where the run halts (the reference fails the step there: L206, L403)."""
    return unit.gate == "approval" or (ctx.target != "reference" and approve_stage(unit) is not None)


def approve_stage(unit: Unit) -> int | None:
    """The position of the first `approve` stage of a unit's pipeline (None without one)."""
    names = [stage.name.value for stage in stages(unit)]
    return names.index("approve") if "approve" in names else None


def approved_in_pipeline(unit: Unit) -> bool:
    """Whether an `approve` stage comes before every side-effecting stage of a unit's pipeline: the stages after it
    run only once it is approved (the reference fails the step there, on a terminal it asks)."""
    first = approve_stage(unit)
    return first is not None and not any(stage_side_effect(stage) for stage in stages(unit)[:first])


def gating_steps(ctx: LintContext) -> tuple[Unit, ...]:
    """The top-level steps that ask for approval (`asks`), in order."""
    return tuple(u for u in ctx.steps if asks(ctx, u))


def gate_before(ctx: LintContext, unit: Unit) -> Unit | None:
    """The nearest step that runs (and asks) before `unit` (a binary search: top-level steps are in order)."""
    before = bisect_left(ctx.shared(_gate_indices), unit.index)
    return ctx.shared(gating_steps)[before - 1] if before else None


def _gate_indices(ctx: LintContext) -> list[int]:
    return [gate.index for gate in ctx.shared(gating_steps)]


def nested_approvals(ctx: LintContext) -> tuple[Unit, ...]:
    """The approval sub-steps and approval branches (`approval:`), in order."""
    return tuple(u for u in ctx.units if u.kind != "step" and u.gate == "approval")


def nested_gates(ctx: LintContext) -> tuple[Unit, ...]:
    """The sub-steps and branches that ask for approval (`asks`), in order."""
    return tuple(u for u in ctx.units if u.kind != "step" and asks(ctx, u))


def branch_asks_first(ctx: LintContext, unit: Unit) -> bool:
    """Whether a branch's gate is always answered before its parallel step ends: under `wait: all` (the default)
    the step waits for every branch. Under `wait: any` a branch that finishes first wins and the gated ones are
    stopped unasked; the reference ignores `approval:` on a branch."""
    block = unit.step.action
    return ctx.target != "reference" and type(block) is ir.Parallel and block.wait in (None, "all")


def loop_gate_before(ctx: LintContext, unit: Unit) -> Unit | None:
    """The last approval sub-step before `unit` in its loop: it asks (or halts the run) for each item before the
    item's later sub-steps run."""
    if unit.kind != "substep" or not ctx.shared(nested_gates):
        return None
    found = [g for g in ctx.shared(nested_gates) if g.loop is unit.loop and g.position < unit.position]
    return found[-1] if found else None


def branch_gate_before(ctx: LintContext, unit: Unit) -> Unit | None:
    """The last approval branch of a `wait: all` parallel step before `unit`'s step: the step ends only once every
    branch's gate was answered. (Its sibling branches run meanwhile: it does not gate them.)"""
    found = [g for g in ctx.shared(nested_gates) if g.kind == "branch" and g.index < unit.index and branch_asks_first(ctx, g)]
    return found[-1] if found else None


def nearest_gate(ctx: LintContext, unit: Unit) -> Unit | None:
    """The approval that asks last before `unit` runs, on every run: an approval sub-step before it in its loop,
    else the later of an approval step and a `wait: all` approval branch before its step. An approval sub-step
    of an earlier loop does not count: a loop over an empty list asks nothing."""
    found = loop_gate_before(ctx, unit)
    if found is not None:
        return found
    step, branch = gate_before(ctx, unit), branch_gate_before(ctx, unit)
    if step is None or branch is None:
        return step or branch
    return branch if branch.index > step.index else step


def ungated_note(ctx: LintContext, unit: Unit) -> str:
    """Why an approval sub-step or branch near `unit` does not gate it (empty when there is none)."""
    for gate in reversed(ctx.shared(nested_gates)):
        if gate.index > unit.index or gate is unit:
            continue
        if gate.kind == "substep" and gate.loop is unit.loop:
            return f"; {named(gate)} comes after it in the loop" if gate.position > unit.position else ""
        if gate.kind == "branch" and gate.index == unit.index and unit.kind == "branch":
            return f"; {named(gate)} runs at the same time"
        if gate.kind == "substep" and gate.index < unit.index:
            return f"; {named(gate)} of loop `{gate.step.id}` asks once per item: not at all for an empty list"
        if gate.kind == "branch" and gate.index < unit.index and not branch_asks_first(ctx, gate):
            return f"; {named(gate)} of `{gate.step.id}` may never ask: {_why_unasked(ctx)}"
    return ""


def named(gate: Unit) -> str:
    """How a finding names a nested gate: approval sub-step `ok`, branch `eu` (`approve` stage)."""
    kind = "sub-step" if gate.kind == "substep" else "branch"
    return f"approval {kind} `{gate.id}`" if gate.gate == "approval" else f"{kind} `{gate.id}` (`approve` stage)"


def _why_unasked(ctx: LintContext) -> str:
    if ctx.target == "reference":
        return "the reference ignores `approval:` on a branch"
    return "under `wait: any` another branch can win"
