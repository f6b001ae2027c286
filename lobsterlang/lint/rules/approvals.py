"""L4xx: side effects that a human approval does not really gate."""

from __future__ import annotations

import re
from collections.abc import Iterator

from lobsterlang import ir
from lobsterlang.diagnostics import Diagnostic, Severity
from lobsterlang.lint.children import calls_approval, child_gate_before, children
from lobsterlang.lint.context import LintContext
from lobsterlang.lint.effects import (
    MODEL_COMMANDS,
    is_model_stage,
    is_model_unit,
    pipeline_dispatch,
    reads_only,
    shell_dispatch,
    shell_effect,
    stage_side_effect,
    temporary_args,
)
from lobsterlang.lint.gates import (
    approved_in_pipeline,
    asks,
    branch_asks_first,
    gating_steps,
    loop_gate_before,
    nearest_gate,
    nested_approvals,
    nested_gates,
    node,
    own_approval,
    ungated_note,
)
from lobsterlang.lint.registry import rule
from lobsterlang.lint.rules.shell import SAFE_FIELDS
from lobsterlang.lint.scope import loop_vars
from lobsterlang.lint.walk import Unit, stages
from lobsterlang.span import Span

GENERIC_PROMPT_RE = re.compile(
    r"^\s*(approve|approve\s+\S+|continue|proceed|ok|okay|confirm|are you sure|go|go ahead|yes or no|y/n)\s*[?.!]*\s*$", re.I
)


def _temporary(ctx: LintContext) -> frozenset[str]:
    return temporary_args(ctx.workflow)


def effect_site(ctx: LintContext, unit: Unit) -> Span:
    """Where the side effect of `unit` is written: the acting command in its shell text (its first line), or the stage."""
    action = unit.action
    if isinstance(action, ir.ShellRun):
        found = shell_effect(action.command.text, ctx.shared(_temporary))
        if found:
            text = action.command.text
            line_end = text.find("\n", found.start, found.end)
            return ctx.textmap.span(action.command, found.start, found.end if line_end < 0 else line_end)
    for stage in stages(unit):
        if stage_side_effect(stage):
            return stage.span
    return unit.id_span


@rule("L401", "unapproved-side-effect", Severity.WARNING, "a side-effecting step with no approval step before it")
def unapproved_side_effect(ctx: LintContext) -> Iterator[Diagnostic]:
    if ctx.workflow is None:
        return
    for unit, why in ctx.side_effects.items():
        if approved_in_pipeline(unit) or nearest_gate(ctx, unit) is not None or child_gate_before(ctx, unit) is not None:
            continue
        message = f"step `{unit.id}` {why} with no approval step before it"
        if unit.gate == "approval":
            message += "; its own `approval:` is asked only after the command has run"
        yield ctx.diag("L401", effect_site(ctx, unit), message + ungated_note(ctx, unit),
                       f"add a step before it with `approval:` and `stdin:` showing what `{unit.id}` will act on")


def _hands_on(gate: Unit) -> bool:
    """Whether an approval step passes reviewed data on: its stdin, items or command output is the run's output,
    which the caller receives only once it is approved (a final review gate)."""
    approval = own_approval(gate)
    return gate.stdin is not None or gate.action is not None or bool(approval and (approval.items or approval.preview))


@rule("L402", "approval-gates-nothing", Severity.WARNING, "an approval step with nothing after it to gate")
def approval_gates_nothing(ctx: LintContext) -> Iterator[Diagnostic]:
    """A last approval that shows data is a final review gate: the caller gets the output only once approved.
    An approval gates nothing when no step runs after it and it hands no data on."""
    gates = ctx.approval_steps
    last_action = max((u.index for u in ctx.steps if u.action is not None), default=-1) if gates else -1
    for gate in gates:
        assert gate.step.approval is not None
        if last_action <= gate.index and not _hands_on(gate):
            yield ctx.diag("L402", gate.step.approval.span, f"approval step `{gate.id}` gates nothing: no step runs after it, and it passes no data on to approve",
                           "put the approval before the step that acts, or remove it")
        elif last_action > gate.index and _gates_only_reads(ctx, gate):
            yield ctx.diag("L402", gate.step.approval.span,
                           f"approval step `{gate.id}` gates nothing: only steps that read run after it, and none of them tests `${gate.id}.approved`",
                           "put the approval before the step that acts, or remove it")
    yield from _nested_gates_nothing(ctx)


def _nested_gates_nothing(ctx: LintContext) -> Iterator[Diagnostic]:
    """L402 for approval sub-steps and branches: what runs after one is the later steps and, in a loop, the loop's
    other sub-steps (the item's later ones, the next item's earlier ones); a branch's siblings run meanwhile. Under
    the reference a nested gate does not work at all: L403 says so, and nothing here."""
    if ctx.target == "reference":
        return
    for gate in ctx.shared(nested_approvals):
        approval = own_approval(gate)
        assert approval is not None
        after = [u for u in ctx.units if _runs_after(gate, u)]
        what = f"approval {'sub-step' if gate.kind == 'substep' else 'branch'} `{gate.id}`"
        if not any(u.action is not None for u in after) and not _hands_on(gate):
            yield ctx.diag("L402", approval.span, f"{what} gates nothing: {_nothing_after(gate)}; it passes no data on to approve",
                           "put the approval before the step that acts, or remove it")
        elif any(u.action is not None for u in after) and all(map(reads_only, after)) and gate.id not in ctx.shared(_referenced_steps):
            yield ctx.diag("L402", approval.span,
                           f"{what} gates nothing: only steps that read run after it, and none of them tests `${gate.id}.approved`",
                           "put the approval before the step that acts, or remove it")


def _runs_after(gate: Unit, unit: Unit) -> bool:
    """Whether `unit` runs after the nested `gate` was answered (`_nested_gates_nothing`)."""
    if unit.index > gate.index:
        return True
    return gate.kind == "substep" and unit.kind == "substep" and unit.loop is gate.loop and unit.position != gate.position


def _nothing_after(gate: Unit) -> str:
    if gate.kind == "substep":
        return f"no other sub-step of loop `{gate.step.id}` and no step after it runs"
    return f"its sibling branches run at the same time and no step runs after `{gate.step.id}`"


def _gates_only_reads(ctx: LintContext, gate: Unit) -> bool:
    """Every step after the gate only reads (`effects.reads_only`), and nothing reads the gate's decision."""
    return ctx.shared(_last_acting_index) <= gate.index and gate.id not in ctx.shared(_referenced_steps)


def _last_acting_index(ctx: LintContext) -> int:
    """The index of the last step with a unit that does more than read (-1 when none does): worked out once per
    lint, from the end, not once per approval step."""
    return next((unit.index for unit in reversed(ctx.units) if not reads_only(unit)), -1)


def _referenced_steps(ctx: LintContext) -> frozenset[str]:
    return frozenset(ref.step for _, ref, _ in ctx.step_refs)


def _approve_stages(ctx: LintContext) -> Iterator[tuple[Unit, ir.Stage]]:
    """`approve` stages in the pipelines of a workflow's sub-steps and branches (a step's own: L206)."""
    if "approve" not in ctx.stages_by_name:
        return
    for pipeline, unit in ctx.pipelines:
        if unit is not None and unit.kind != "step":
            yield from ((unit, s) for s in pipeline.stages if s.name.value == "approve")


@rule("L403", "nested-approval", Severity.ERROR,
      "a gate inside a loop's sub-step, a parallel branch or a sub-workflow, where the reference cannot halt the run "
      "(target `reference`)")
def nested_approval(ctx: LintContext) -> Iterator[Diagnostic]:
    if ctx.target != "reference":  # lobsterlang halts the run at a gate anywhere
        return
    yield from _nested_gate_steps(ctx)
    hint = ("the reference fails there: end the pipeline before `approve` and put an `approval:` step after the "
            "step that holds it, or run the file with lobsterlang, where the stage halts the run")
    for unit, stage in _approve_stages(ctx):
        where = "parallel branch" if unit.kind == "branch" else "for_each sub-step"
        yield ctx.diag("L403", stage.name.span, f"`approve` in the pipeline of {where} `{unit.id}` cannot halt the run under "
                       "the reference: outside a terminal the step fails", hint)
    for unit, call, child in ctx.shared(children):
        if not child.approves:
            continue
        yield ctx.diag("L403", call.path.span, f"sub-workflow `{call.path.text}` has pipeline step `{child.approves[0]}` with an "
                       f"`approve` stage, which cannot halt the run under the reference: outside a terminal step `{unit.id}` fails",
                       hint)


_LATER = "or run the file with lobsterlang, where the gate halts the run there"


def _nested_gate_steps(ctx: LintContext) -> Iterator[Diagnostic]:
    """`approval:` and `input:` gates the reference does not halt at (tests/cases/workflow_runs 32, 121 and 122)."""
    for unit in ctx.units:
        if unit.gate is None or unit.kind == "step":
            continue
        gate = node(unit)
        span = gate.approval.span if unit.gate == "approval" and gate.approval is not None else unit.id_span
        if unit.kind == "branch" and unit.gate == "approval":
            yield ctx.diag("L403", span, f"the reference ignores `approval:` on parallel branch `{unit.id}`: the branch runs, "
                           "and its result is used, without asking", f"put an `approval:` step before the parallel step, {_LATER}")
        elif unit.kind == "branch":
            yield ctx.diag("L403", span, f"the reference refuses parallel branch `{unit.id}`: a branch needs `run`, `command` or "
                           "`pipeline` there, and `input:` is not one", f"ask with an `input:` step before the parallel step, {_LATER}")
        elif unit.position == _first_gate(unit):
            yield ctx.diag("L403", span, f"the reference refuses for_each `{unit.step.id}`: its sub-step `{unit.id}` is an "
                           f"{unit.gate} step (the run fails when it reaches the loop)",
                           f"ask once before the loop, with the items it will act on, {_LATER}")
    for unit, call, child in ctx.shared(children):
        if child.asks:
            yield ctx.diag("L403", call.path.span, f"sub-workflow `{call.path.text}` halts at its approval step `{child.asks}`: "
                           f"the reference fails step `{unit.id}` there", f"approve before calling it, {_LATER}")


def _first_gate(unit: Unit) -> int:
    """The position of the first gate among the sub-steps of `unit`'s loop (the reference names the loop once)."""
    assert unit.loop is not None
    return next(i for i, sub in enumerate(unit.loop.steps) if sub.approval is not None or sub.input is not None)


def _retries(retry: ir.Retry | None) -> bool:
    return retry is not None and isinstance(retry.max, int) and not isinstance(retry.max, bool) and retry.max > 1


@rule("L404", "retry-side-effect", Severity.WARNING, "`retry` on a side-effecting step", per_step=True)
def retry_side_effect(ctx: LintContext) -> Iterator[Diagnostic]:
    """One finding per retried step, for its first effect: its own, a branch's (a retry runs again the branches that
    did not finish) or a loop sub-step's (lobsterlang runs again the sub-step that failed, the reference the whole
    loop)."""
    dispatches = ctx.shared(retried_dispatches)
    reported: set[int] = set()
    for unit, why in ctx.side_effects.items():
        retry = unit.step.retry
        if _retries(retry) and unit.index not in reported and dispatches.get(unit.index, "\0") not in why:  # L409's
            assert retry is not None
            reported.add(unit.index)
            it = "it" if unit.kind == "step" else f"its {'branch' if unit.kind == 'branch' else 'sub-step'} `{unit.id}`"
            yield ctx.diag("L404", retry.span, f"step `{unit.step.id}` is retried, but {it} {why}: a retry can repeat the effect",
                           "retry only the steps that read; make the effect idempotent or remove `retry`")


def retried_dispatches(ctx: LintContext) -> dict[int, str]:
    """The retried top-level steps (by index) with the first call of theirs that the runtime notes as dispatched:
    a pipeline's dispatching command, or (target lobsterlang) an installed program their shell runs."""
    found: dict[int, str] = {}
    for unit in ctx.units:
        if unit.index in found or not _retries(unit.step.retry):
            continue
        call = pipeline_dispatch(unit) or (shell_dispatch(unit) if ctx.target == "lobsterlang" else None)
        if call:
            found[unit.index] = call
    return found


@rule("L409", "retry-after-dispatch", Severity.WARNING,
      "`retry` on a step that dispatches a call (`openclaw.invoke`, `gog.gmail.send`…), which it does not repeat", per_step=True)
def retry_after_dispatch(ctx: LintContext) -> Iterator[Diagnostic]:
    for index, call in ctx.shared(retried_dispatches).items():
        step = ctx.workflow.steps[index] if ctx.workflow else None
        if step is None or step.retry is None:
            continue
        yield ctx.diag(
            "L409", step.retry.span,
            f"step `{step.id}` is retried, but it calls `{call}`: once that call went out the step is not retried "
            "(it may have taken effect), so `retry` covers only failures before it",
            "a dispatched call is never repeated on its own (the dispatch guarantee): make it safe to repeat with an "
            "idempotency key (`$LOBSTER_IDEMPOTENCY_KEY`) and run it again with `lobster resume --run ID --retry-step`, "
            "or handle its failure with `on_error: continue`",
        )


def shown_steps(gate: Unit) -> set[str]:
    """The step ids whose data an approval step shows to the approver: its stdin, and whatever its own command
    reads (`kubectl diff -f $MANIFEST` with `env: {MANIFEST: $render.json}`: the diff shown is of `$render`). An
    approval sub-step that shows the item shows the loop's source (one item of it on each ask)."""
    shown = {gate.id} if gate.action is not None else set()
    shown |= {ref.step for ref, _ in gate.data_refs}
    loop = gate.loop
    if loop is not None and type(loop.source) is ir.StdinRef and not shown.isdisjoint(loop_vars(loop)):
        shown.add(loop.source.ref.step)
    return shown


def consumed(ctx: LintContext, unit: Unit) -> list[ir.StepRef]:
    """Data refs of a unit (loop sources included for sub-steps), without boolean fields."""
    refs = [ref for ref, _ in unit.data_refs]
    if unit.loop is not None and isinstance(unit.loop.source, ir.StdinRef):
        refs.append(unit.loop.source.ref)
    skip = set(loop_vars(unit.loop)) if unit.loop else set()
    return [r for r in refs if r.field not in SAFE_FIELDS and r.step not in skip]


@rule("L405", "approved-not-executed", Severity.WARNING, "the side-effecting step acts on data the approver was not shown")
def approved_not_executed(ctx: LintContext) -> Iterator[Diagnostic]:
    if not ctx.shared(gating_steps) and not ctx.shared(nested_gates):
        return
    index = {u.id: u.index for u in ctx.steps}
    for unit in ctx.side_effects:
        gate = nearest_gate(ctx, unit)
        shown = shown_steps(gate) if gate else set()
        if gate is None or not shown:
            continue
        for ref in consumed(ctx, unit):
            if ref.step not in shown and ref.step != gate.id and index.get(ref.step, gate.index) < gate.index:
                what = ", ".join(f"${s}" for s in sorted(shown))
                yield ctx.diag("L405", ref.span, f"approval `{gate.id}` showed {what}, but `{unit.id}` acts on `{ref.text}`",
                               f"show the same data: `stdin: {ref.text}` on `{gate.id}`, or make `{unit.id}` read `${gate.id}.json`")


def _blind(gate: Unit) -> bool:
    approval = own_approval(gate)
    assert approval is not None
    if gate.stdin is not None or gate.action is not None or approval.items or approval.preview:
        return False
    return approval.prompt is None or bool(GENERIC_PROMPT_RE.match(approval.prompt))


@rule("L406", "blind-approval", Severity.WARNING, "an approval that shows the approver nothing to judge", per_step=True)
def blind_approval(ctx: LintContext) -> Iterator[Diagnostic]:
    for gate in ctx.units:
        approval = own_approval(gate)
        if approval is not None and _blind(gate) and (gate.kind == "step" or ctx.target != "reference"):  # else L403
            yield ctx.diag("L406", approval.span,
                           f"approval `{gate.id}` has no stdin, no preview and a generic prompt: the approver cannot see what they approve",
                           "add `stdin: $step.json` with the data to act on, and a prompt that says what will happen")


@rule("L407", "effect-before-approve", Severity.ERROR, "a side effect before `approve` in the same pipeline", per_step=True)
def effect_before_approve(ctx: LintContext) -> Iterator[Diagnostic]:
    if "approve" not in ctx.stages_by_name:
        return
    for pipeline, _ in ctx.pipelines:
        names = [s.name.value for s in pipeline.stages]
        if "approve" not in names:
            continue
        last_gate = len(names) - 1 - names[::-1].index("approve")
        for stage in pipeline.stages[:last_gate]:
            why = stage_side_effect(stage)
            if why:
                yield ctx.diag("L407", stage.span, f"{why} before the `approve` stage: the effect happens before anyone approves",
                               "move the side effect after `approve` (or into a step after an approval step)")


def _pipeline_model_flows(ctx: LintContext) -> Iterator[Diagnostic]:
    for pipeline, _ in ctx.pipelines:
        model = None
        for stage in pipeline.stages:
            if stage.name.value == "approve":
                model = None
            elif is_model_stage(stage):
                model = stage.name.value
            elif model and stage_side_effect(stage):
                yield ctx.diag("L408", stage.span, f"output of `{model}` flows into `{stage.name.value}` without an `approve` between",
                               "add `| approve --preview-from-stdin --prompt '…'` before the side effect")


def _step_model_flows(ctx: LintContext) -> Iterator[Diagnostic]:
    """Model output is tainted until an approval that asks before the later steps clears it (an approval step, an
    approval branch of a `wait: all` parallel step, a sub-workflow's approval step); an approval sub-step covers
    the sub-steps after it in its loop."""
    tainted: dict[str, str] = {}
    cleared_after = -1
    for unit in ctx.units:
        if 0 <= cleared_after < unit.index:
            tainted.clear()
            cleared_after = -1
        refs = [r for r in consumed(ctx, unit) if r.step in tainted]
        if refs and loop_gate_before(ctx, unit) is None:
            yield from _tainted_use(ctx, unit, refs, tainted)
        if is_model_unit(unit):
            tainted[unit.id] = unit.id
        if unit.kind == "step" and (asks(ctx, unit) or (tainted and calls_approval(ctx, unit))):
            tainted.clear()
        elif unit.kind == "branch" and asks(ctx, unit) and branch_asks_first(ctx, unit):
            cleared_after = unit.index


def _tainted_use(ctx: LintContext, unit: Unit, refs: list[ir.StepRef], tainted: dict[str, str]) -> Iterator[Diagnostic]:
    ref = refs[0]
    origin = tainted[ref.step]
    in_shell = isinstance(unit.action, ir.ShellRun) and any(r in unit.action.command.parts for r in refs)
    if in_shell:
        yield ctx.diag("L408", ref.span, f"model output from `{origin}` is pasted into shell text of `{unit.id}` without approval",
                       "never run model output as code; pass it as data (stdin) after an approval step")
    elif unit in ctx.side_effects:
        yield ctx.diag("L408", ref.span, f"`{unit.id}` acts on model output from `{origin}` that nobody approved",
                       f"add an approval step with `stdin: {ref.text}` before `{unit.id}`")
    else:
        tainted[unit.id] = origin


@rule("L408", "unreviewed-model-output", Severity.WARNING, "model output flows into shell text or a side effect without approval")
def unreviewed_model_output(ctx: LintContext) -> Iterator[Diagnostic]:
    if MODEL_COMMANDS.isdisjoint(ctx.stages_by_name):
        return
    yield from _pipeline_model_flows(ctx)
    yield from _step_model_flows(ctx)
