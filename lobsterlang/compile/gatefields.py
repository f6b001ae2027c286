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


def check_gate_fields(ctx: Context, steps: tuple[ir.Step, ...]) -> None:
    """Report every reference to a top-level gate step that reads a field the gate never has: at run time it
    is silently empty, so `when: $approve.aproved` skips the gated step even after `--approve yes`."""
    gates = {step.id: _fields(step) for step in steps if step.approval is not None or step.input is not None}
    if not gates:
        return
    for step in steps:
        for ref in _refs(step):
            known = gates.get(ref.step)
            if known is not None and ref.field not in known:
                ctx.diagnostics.append(_finding(ctx, ref, known, "approval" if "approved" in known else "input"))


def _fields(step: ir.Step) -> frozenset[str]:
    return APPROVAL_FIELDS if step.approval is not None else INPUT_FIELDS


def _finding(ctx: Context, ref: ir.StepRef, known: frozenset[str], kind: str) -> Diagnostic:
    close = closest(ref.field, known)
    message = f"`{ref.text}` is always empty: {kind} step `{ref.step}` has no field `{ref.field}`"
    if close is None:
        return Diagnostic("S121", Severity.ERROR, message, ref.span, hint=f"an {kind} step has {', '.join(sorted(known))}")
    fixed = ref.text.replace(f".{ref.field}", f".{close}", 1)
    fix = Fix(f"read `{fixed}`", (Edit(ref.span, fixed),)) if ctx.text[ref.span.start:ref.span.end] == ref.text else None
    return Diagnostic("S121", Severity.ERROR, message, ref.span, fix, f"did you mean `{fixed}`?")


def _refs(step: ir.Step) -> Iterator[ir.StepRef]:
    """The step references of a step's condition, stdin and command text, and of its loop's sub-steps."""
    if isinstance(step.when, ir.ExprCondition):
        yield from _expr_refs(step.when.expr)
    if isinstance(step.stdin, ir.StdinRef):
        yield step.stdin.ref
    elif isinstance(step.stdin, ir.StdinTemplate):
        yield from _template_refs(step.stdin.template)
    if isinstance(step.action, ir.ShellRun):
        yield from _template_refs(step.action.command)
    elif isinstance(step.action, ir.ForEach):
        if isinstance(step.action.source, ir.StdinRef):
            yield step.action.source.ref
        for sub in step.action.steps:
            yield from _refs(sub)


def _template_refs(template: ir.Template) -> Iterator[ir.StepRef]:
    return (part for part in template.parts if isinstance(part, ir.StepRef))


def _expr_refs(expr: ir.Expr) -> Iterator[ir.StepRef]:
    if isinstance(expr, ir.StepRef):
        yield expr
    elif isinstance(expr, ir.Not):
        yield from _expr_refs(expr.operand)
    elif isinstance(expr, (ir.Compare, ir.Logical)):
        yield from _expr_refs(expr.left)
        yield from _expr_refs(expr.right)
