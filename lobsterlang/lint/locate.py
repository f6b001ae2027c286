"""Name where a finding sits in layout-independent terms (step id and field) for stable fingerprints."""

from __future__ import annotations

import hashlib

from lobsterlang import ir
from lobsterlang.diagnostics import Diagnostic
from lobsterlang.lint.walk import Action, Unit, units
from lobsterlang.span import Span


def _inside(span: Span | None, offset: int) -> bool:
    return span is not None and span.start <= offset < max(span.end, span.start + 1)


def _env_field(env: tuple[ir.EnvVar, ...] | None, offset: int) -> str | None:
    return next((f"env.{e.name}" for e in env or () if _inside(e.span, offset) or _inside(e.name_span, offset)), None)


def anchor(workflow: ir.Workflow | None, span: Span) -> str:
    """`step-id/field` (innermost step, branch or sub-step) of a span; `args.NAME` or `file` elsewhere."""
    if workflow is None:
        return "pipeline"
    offset = span.start
    for arg in workflow.args or ():
        if _inside(arg.span, offset) or _inside(arg.name_span, offset):
            return f"args.{arg.name}"
    found = "file"
    for unit in units(workflow):
        if _inside(unit.span, offset) or _inside(unit.id_span, offset):
            found = f"{unit.id}/{_unit_field(unit, offset)}"
    return found


def _unit_field(unit: Unit, offset: int) -> str:
    env = _env_field(unit.env, offset)
    if env:
        return env
    if unit.action is not None and _inside(unit.action.span, offset):
        return _action_key(unit.action)
    nodes: dict[str, ir.Node | None] = {"stdin": unit.stdin, "when": unit.when, "cwd": unit.cwd}
    if unit.kind == "step":
        nodes.update(approval=unit.step.approval, input=unit.step.input, retry=unit.step.retry)
    return next((name for name, node in nodes.items() if node is not None and _inside(node.span, offset)), "step")


def _action_key(action: Action) -> str:
    if isinstance(action, ir.ShellRun):
        return action.key
    names: dict[type, str] = {ir.PipelineRun: "pipeline", ir.WorkflowCall: "workflow", ir.Parallel: "parallel", ir.ForEach: "for_each"}
    return names[type(action)]


def fingerprint(workflow: ir.Workflow | None, diag: Diagnostic) -> str:
    """A hash of rule, step id, field and message: stable when the file is reformatted."""
    key = "\0".join((diag.code, anchor(workflow, diag.span), diag.message))
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]
