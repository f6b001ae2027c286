"""Check that a reference to an approval or input step reads a field such a step has (`$approve.aproved` is S121)."""

from __future__ import annotations

from collections.abc import Iterable

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


def check_gate_fields(ctx: Context, steps: tuple[ir.Step, ...], env: tuple[ir.EnvVar, ...] | None = None) -> None:
    """Report every reference to a gate (a step, a parallel branch or a loop's sub-step with `approval:` or `input:`)
    that reads a field the gate never has, wherever the run renders it against the run's results (`env` is the
    workflow's own): at run time it is silently empty, so `when: $approve.aproved` skips the gated step even after
    `--approve yes`. Approval and input prompts are shown as written, and `cwd:` sees only args: neither is read."""
    if not any(_fields(node) for step in steps for node in (step, *_nested(step))):
        return
    names = _top_names(steps)
    for step in steps:
        _check(ctx, _refs(step), names)
        if type(step.action) is ir.Parallel:
            for branch in step.action.branches:
                _check(ctx, _refs(branch), names)
        elif type(step.action) is ir.ForEach:
            _check_everywhere(ctx, _env_refs(step.env), names, (step.action,))
            _check_loop(ctx, step.action, names)
    if env:
        _check_everywhere(ctx, _env_refs(env), names, tuple(s.action for s in steps if type(s.action) is ir.ForEach))


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


def _check(ctx: Context, refs: list[ir.StepRef], top: Names, inner: Names | None = None) -> None:
    """`inner`: the names a loop's sub-step sees before the run's ids (`top`), which are not copied per loop."""
    for ref in refs:
        known = inner[ref.step] if inner is not None and ref.step in inner else top.get(ref.step)
        if known is not None and ref.field not in known:
            ctx.diagnostics.append(_finding(ctx, ref, known))


def _check_everywhere(ctx: Context, refs: list[ir.StepRef], top: Names, loops: Iterable[ir.ForEach]) -> None:
    """References rendered for the run's steps and again for every sub-step of `loops` (a loop step's `env:` is
    its sub-steps' too, the workflow's `env:` every step's): a finding only where no sub-step reads another value."""
    for ref in refs:
        known = top.get(ref.step)
        if known is not None and ref.field not in known and all(_missing_in(loop, ref) for loop in loops):
            ctx.diagnostics.append(_finding(ctx, ref, known))


def _missing_in(loop: ir.ForEach, ref: ir.StepRef) -> bool:
    """Whether every sub-step of `loop` reads `ref` as a gate without its field (a loop variable or another step of
    the same id may have it)."""
    if ref.step in (loop.item_var or "item", loop.index_var or "index"):
        return False
    for sub in loop.steps:
        if sub.id == ref.step:
            known = _fields(sub)
            if known is None or ref.field in known:
                return False
    return True


def _fields(node: ir.Step | ir.Branch) -> frozenset[str] | None:
    if node.approval is not None:
        return APPROVAL_FIELDS
    return INPUT_FIELDS if node.input is not None else None


def _finding(ctx: Context, ref: ir.StepRef, known: frozenset[str]) -> Diagnostic:
    kind = "approval" if "approved" in known else "input"
    close = closest(ref.field, known)
    message = f"`{ref.text}` is always empty: {kind} step `{ref.step}` has no field `{ref.field}`"
    if close is None:
        return Diagnostic("S121", Severity.ERROR, message, ref.span, hint=f"an {kind} step has {', '.join(sorted(known))}")
    fixed = ref.text.replace(f".{ref.field}", f".{close}", 1)
    fix = Fix(f"read `{fixed}`", (Edit(ref.span, fixed),)) if ctx.text[ref.span.start:ref.span.end] == ref.text else None
    return Diagnostic("S121", Severity.ERROR, message, ref.span, fix, f"did you mean `{fixed}`?")


def _refs(node: ir.Step | ir.Branch) -> list[ir.StepRef]:
    """The step references the run renders for a step (or a branch): its condition, stdin, command, pipeline or
    sub-workflow text, `workflow_args`, loop source and `env:` (a loop's own env: `_check_everywhere`)."""
    found = _expr_refs(node.when.expr) if type(node) is ir.Step and type(node.when) is ir.ExprCondition else []
    _add_stdin(found, node.stdin)
    action = node.action
    if type(action) is ir.ShellRun:
        _add(found, action.command)
    elif type(action) is ir.PipelineRun:
        _add(found, action.template)
    elif type(action) is ir.WorkflowCall:
        _add(found, action.path)
        for arg in action.args or ():
            if arg.template is not None:
                _add(found, arg.template)
    elif type(action) is ir.ForEach:
        _add_stdin(found, action.source)
        return found
    _add_env(found, node.env)
    return found


def _env_refs(env: tuple[ir.EnvVar, ...] | None) -> list[ir.StepRef]:
    found: list[ir.StepRef] = []
    _add_env(found, env)
    return found


def _add_env(found: list[ir.StepRef], env: tuple[ir.EnvVar, ...] | None) -> None:
    for var in env or ():
        if var.template is not None:
            _add(found, var.template)


def _add_stdin(found: list[ir.StepRef], stdin: ir.Stdin | None) -> None:
    if type(stdin) is ir.StdinRef:
        found.append(stdin.ref)
    elif type(stdin) is ir.StdinTemplate:
        _add(found, stdin.template)


def _add(found: list[ir.StepRef], template: ir.Template) -> None:
    found += [part for part in template.parts if type(part) is ir.StepRef]


def _expr_refs(expr: ir.Expr) -> list[ir.StepRef]:
    if type(expr) is ir.StepRef:
        return [expr]
    if type(expr) is ir.Not:
        return _expr_refs(expr.operand)
    if type(expr) is ir.Compare or type(expr) is ir.Logical:
        return _expr_refs(expr.left) + _expr_refs(expr.right)
    return []
