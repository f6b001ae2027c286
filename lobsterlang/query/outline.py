"""The outline of a workflow: its args, and its steps with their parallel branches and for_each sub-steps."""

from __future__ import annotations

from typing import Literal

from lobsterlang import ir
from lobsterlang.commands.specs import stage_gate
from lobsterlang.record import Record

SymbolKind = Literal["args", "arg", "step", "branch", "substep"]


class Symbol(Record):
    """One entry: `name` spanning `start`..`end`, its name at `name_start`..`name_end`, and its children."""

    name: str
    kind: SymbolKind
    detail: str
    start: int
    end: int
    name_start: int
    name_end: int
    children: tuple[Symbol, ...] = ()


def symbols(workflow: ir.Workflow) -> list[Symbol]:
    """The args (grouped under one `args` entry) and every step, in source order."""
    found = [_step(step, "step") for step in workflow.steps]
    args = workflow.args or ()
    if args:
        start, end = min(a.span.start for a in args), max(a.span.end for a in args)
        children = tuple(_arg(a) for a in args)
        found.insert(0, Symbol("args", "args", f"{len(args)} declared", start, end, start, start, children))
    return found


def flat_symbols(workflow: ir.Workflow) -> list[Symbol]:
    """Every arg and step symbol, nested ones included, without the `args` group."""
    pending = symbols(workflow)
    out = []
    while pending:
        symbol = pending.pop(0)
        if symbol.kind != "args":
            out.append(symbol)
        pending[:0] = symbol.children
    return out


def _arg(arg: ir.ArgDecl) -> Symbol:
    detail = f"default {arg.default!r}" if arg.has_default else "required" if arg.required else ""
    return Symbol(arg.name, "arg", detail, arg.span.start, arg.span.end, arg.name_span.start, arg.name_span.end)


def _step(node: ir.Step | ir.Branch, kind: SymbolKind) -> Symbol:
    action = node.action
    children: tuple[Symbol, ...] = ()
    if isinstance(action, ir.Parallel):
        children = tuple(_step(b, "branch") for b in action.branches)
    elif isinstance(action, ir.ForEach):
        children = tuple(_step(s, "substep") for s in action.steps)
    span, id_span = node.span, node.id_span
    return Symbol(node.id, kind, describe(node, kind == "step"), span.start, span.end, id_span.start, id_span.end, children)


def describe(node: ir.Step | ir.Branch, top_level: bool = True) -> str:
    """A short description of what a step does: `run`, `pipeline: exec | pick`, `approval`… A top-level `pipeline:`
    step whose pipeline requests input (`ask`) or approval (`approve`) is an `(input gate)` or `(approval gate)`:
    the run waits there for the answer."""
    action = node.action
    if isinstance(action, ir.ShellRun):
        return action.key
    if isinstance(action, ir.PipelineRun):
        names = [s.name.value for s in action.pipeline.stages] if action.pipeline else []
        text = "pipeline: " + " | ".join(names) if names else "pipeline"
        gate = stage_gate(action.pipeline) if top_level else None
        return f"{text} ({gate[2]} gate)" if gate else text
    if isinstance(action, ir.WorkflowCall):
        return "workflow: " + action.path.text
    if isinstance(action, ir.Parallel):
        return f"parallel ({len(action.branches)} branches)"
    if isinstance(action, ir.ForEach):
        return "for_each"
    if isinstance(node, ir.Step) and node.approval is not None:
        return "approval"
    return "input" if isinstance(node, ir.Step) and node.input is not None else "step"
