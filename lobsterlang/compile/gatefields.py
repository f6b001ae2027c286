"""Check that a reference to an approval or input step reads a field such a step has (`$approve.aproved` is S121)."""

from __future__ import annotations

from collections.abc import Iterator

from lobsterlang import ir
from lobsterlang.compile.context import Context
from lobsterlang.diagnostics import Diagnostic, Edit, Fix, Severity
from lobsterlang.suggest import closest

APPROVAL_FIELDS = frozenset({"id", "stdout", "json", "approved", "approvedBy", "initiatedBy", "skipped", "error", "errorMessage"})
"""What an approval step's result holds: its output (when it has input or a command), the decision and who made it."""
INPUT_FIELDS = frozenset({"id", "subject", "response", "skipped", "error", "errorMessage"})
"""What an input step's result holds: what it asked about and the answer."""

# IR records are final classes: `type(x) is ir.X` (a failed `isinstance` on a Record costs more; lint/walk.py).
Names = dict[str, frozenset[str] | None]
"""What each step id means where a reference is read: the fields of a gate's record, or None (no gate)."""


def check_gate_fields(ctx: Context, steps: tuple[ir.Step, ...]) -> None:
    """Report every reference to a gate (a step, a parallel branch or a loop's sub-step with `approval:` or `input:`)
    that reads a field the gate never has: at run time it is silently empty, so `when: $approve.aproved` skips the
    gated step even after `--approve yes`."""
    if not any(_fields(node) for step in steps for node in (step, *_nested(step))):
        return
    names = _top_names(steps)
    for step in steps:
        _check(ctx, _refs(step), names)
        if type(step.action) is ir.Parallel:
            for branch in step.action.branches:
                _check(ctx, _refs(branch), names)
        elif type(step.action) is ir.ForEach:
            _check_loop(ctx, step.action, names)


def _nested(step: ir.Step) -> tuple[ir.Step | ir.Branch, ...]:
    if type(step.action) is ir.Parallel:
        return step.action.branches
    return step.action.steps if type(step.action) is ir.ForEach else ()


def _top_names(steps: tuple[ir.Step, ...]) -> Names:
    """The ids the run's results hold: every step's, and every parallel branch's (its record joins them)."""
    names: Names = {}
    for step in steps:
        names[step.id] = _fields(step)
        if type(step.action) is ir.Parallel:
            names.update((branch.id, _fields(branch)) for branch in step.action.branches)
    return names


def _check_loop(ctx: Context, loop: ir.ForEach, top: Names) -> None:
    """A sub-step reads the loop's item and index, then the sub-steps before it in the same item, over the run's ids."""
    inner: Names = {loop.item_var or "item": None, loop.index_var or "index": None}
    for sub in loop.steps:
        _check(ctx, _refs(sub), top, inner)
        inner[sub.id] = _fields(sub)


def _check(ctx: Context, refs: Iterator[ir.StepRef], top: Names, inner: Names | None = None) -> None:
    """`inner`: the names a loop's sub-step sees before the run's ids (`top`), which are not copied per loop."""
    for ref in refs:
        known = inner[ref.step] if inner is not None and ref.step in inner else top.get(ref.step)
        if known is not None and ref.field not in known:
            ctx.diagnostics.append(_finding(ctx, ref, known, "approval" if "approved" in known else "input"))


def _fields(node: ir.Step | ir.Branch) -> frozenset[str] | None:
    if node.approval is not None:
        return APPROVAL_FIELDS
    return INPUT_FIELDS if node.input is not None else None


def _finding(ctx: Context, ref: ir.StepRef, known: frozenset[str], kind: str) -> Diagnostic:
    close = closest(ref.field, known)
    message = f"`{ref.text}` is always empty: {kind} step `{ref.step}` has no field `{ref.field}`"
    if close is None:
        return Diagnostic("S121", Severity.ERROR, message, ref.span, hint=f"an {kind} step has {', '.join(sorted(known))}")
    fixed = ref.text.replace(f".{ref.field}", f".{close}", 1)
    fix = Fix(f"read `{fixed}`", (Edit(ref.span, fixed),)) if ctx.text[ref.span.start:ref.span.end] == ref.text else None
    return Diagnostic("S121", Severity.ERROR, message, ref.span, fix, f"did you mean `{fixed}`?")


def _refs(node: ir.Step | ir.Branch) -> Iterator[ir.StepRef]:
    """The step references of a step's (or a branch's) condition, stdin, command text and loop source."""
    if type(node) is ir.Step and type(node.when) is ir.ExprCondition:
        yield from _expr_refs(node.when.expr)
    yield from _stdin_refs(node.stdin)
    if type(node.action) is ir.ShellRun:
        yield from _template_refs(node.action.command)
    elif type(node.action) is ir.ForEach:
        yield from _stdin_refs(node.action.source)


def _stdin_refs(stdin: ir.Stdin | None) -> Iterator[ir.StepRef]:
    if type(stdin) is ir.StdinRef:
        yield stdin.ref
    elif type(stdin) is ir.StdinTemplate:
        yield from _template_refs(stdin.template)


def _template_refs(template: ir.Template) -> Iterator[ir.StepRef]:
    return (part for part in template.parts if type(part) is ir.StepRef)


def _expr_refs(expr: ir.Expr) -> Iterator[ir.StepRef]:
    if type(expr) is ir.StepRef:
        yield expr
    elif type(expr) is ir.Not:
        yield from _expr_refs(expr.operand)
    elif type(expr) is ir.Compare or type(expr) is ir.Logical:
        yield from _expr_refs(expr.left)
        yield from _expr_refs(expr.right)
