"""Build the graph of a workflow from its IR: one node per top-level step, edges for data flow."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping
from typing import Any

from lobsterlang import ir
from lobsterlang.commands.specs import stage_gate
from lobsterlang.compile.gatepaths import nested_gates
from lobsterlang.graph.jstext import js_string
from lobsterlang.record import Record
from lobsterlang.syntax.text import is_blank, js_trim_range

REF = re.compile(r"\$([A-Za-z0-9_-]+)\.[A-Za-z0-9_]")
DETAIL_LIMIT = 80
WHEN_LIMIT = 70


class Node(Record):
    """One step: `kind` is its type (run, pipeline, approval…), `details` one line about it; `stage_gate`: a `pipeline:`
    step whose pipeline requests input or approval, so the run waits there (`input gate`, `approval gate`)."""

    id: str
    kind: str
    details: str
    diamond: bool
    stage_gate: str = ""
    gates: tuple[str, ...] = ()
    """The gates inside the step (a sub-workflow's, a loop's, a branch's): `approval gate: deploy > prod_gate`."""

    @property
    def lines(self) -> tuple[str, ...]:
        """The label as drawn, line by line: the id, the details (a multi-line command keeps its lines), `input gate`
        or `approval gate` for a pipeline that halts, and the gates inside the step."""
        details = tuple(self.details.split("\n")) if self.details else ()
        return (*self.id.split("\n"), *details, *self.own_gate, *self.gates)

    @property
    def kind_text(self) -> str:
        """The kind, with `input gate` or `approval gate` for a pipeline that halts and the gates inside (the text
        format's `[…]`)."""
        return ", ".join((self.kind, *self.own_gate, *self.gates))

    @property
    def own_gate(self) -> tuple[str, ...]:
        return (f"{self.stage_gate} gate",) if self.stage_gate else ()


class Edge(Record):
    """`source -> target`, labelled `next`, `stdin`, `for_each` or `when: <condition>`."""

    source: str
    target: str
    label: str

    @property
    def lines(self) -> tuple[str, ...]:
        """The label as drawn, line by line (a condition written over several lines keeps them)."""
        return tuple(self.label.split("\n"))


class Graph(Record):
    """Nodes in file order and de-duplicated edges."""

    nodes: tuple[Node, ...]
    edges: tuple[Edge, ...]


def truncate(text: str, limit: int) -> str:
    """Cut `text` to `limit` UTF-16 units (the last one becomes `…`), as JavaScript strings count."""
    units = text.encode("utf-16-le", "surrogatepass")
    if len(units) <= limit * 2:
        return text
    return units[: (limit - 1) * 2].decode("utf-16-le", "replace") + "…"


def build_graph(workflow: ir.Workflow, args: Mapping[str, Any]) -> Graph:
    """The graph `lobster graph` draws: the file's own text, with `${name}` filled in for the args in `args` (the
    values given with `--args-json`; a default is not filled in, as the graph is a picture of the file). A step with
    gates inside (its sub-workflows' at any depth, read from their files; its loop's; its branches') lists them."""
    directory = os.path.dirname(os.path.abspath(workflow.source))
    nodes = tuple(_node(step, args, directory) for step in workflow.steps)
    ids = {step.id for step in workflow.steps}
    edges: dict[tuple[str, str, str], Edge] = {}
    for index, step in enumerate(workflow.steps):
        for edge in _step_edges(step, workflow.steps[index - 1].id if index else None, ids):
            edges.setdefault((edge.source, edge.target, edge.label), edge)
    return Graph(nodes, tuple(edges.values()))


def _node(step: ir.Step, args: Mapping[str, Any], directory: str) -> Node:
    kind, details = _kind_and_details(step, args)
    gate = stage_gate(step.action.pipeline) if kind == "pipeline" and isinstance(step.action, ir.PipelineRun) else None
    gates = tuple(f"{g.kind} gate: {g.text}" for g in nested_gates(step, directory))
    return Node(step.id, kind, truncate(details, DETAIL_LIMIT), step.approval is not None, gate[2] if gate else "", gates)


def _kind_and_details(step: ir.Step, args: Mapping[str, Any]) -> tuple[str, str]:
    action = step.action
    if isinstance(action, ir.Parallel):
        return "parallel", f"parallel ({action.wait or 'all'})"
    if isinstance(action, ir.ForEach):
        return "for_each", "for_each: " + _source_text(action.source, args)
    if isinstance(action, ir.WorkflowCall) and not is_blank(action.path.text):
        return "workflow", "workflow: " + render_args(action.path, args)
    if isinstance(action, ir.PipelineRun) and not is_blank(action.template.text):
        return "pipeline", "pipeline: " + render_args(action.template, args)
    if isinstance(action, ir.ShellRun):
        text = action.command.text
        return "run", "" if is_blank(text) else "run: " + render_args(action.command, args)
    if step.approval is not None:
        return "approval", "approval gate"
    if step.input is not None:
        return "input", "input request"
    return "step", ""


def render_args(template: ir.Template, args: Mapping[str, Any]) -> str:
    """The template as written, with `${arg}` replaced by the text of a value in `args`."""
    out = []
    for part in template.parts:
        if isinstance(part, ir.Text):
            out.append(part.value)
        elif isinstance(part, ir.ArgRef):
            out.append(js_string(args[part.name]) if part.name in args else "${" + part.name + "}")
        else:
            out.append(part.text)
    return "".join(out)


def _source_text(source: ir.Stdin, args: Mapping[str, Any]) -> str:
    if isinstance(source, ir.StdinRef):
        return source.text
    if isinstance(source, ir.StdinTemplate):
        return render_args(source.template, args)
    return js_string(source.value)


def _step_edges(step: ir.Step, previous: str | None, ids: set[str]) -> Iterator[Edge]:
    if previous is not None:
        yield Edge(previous, step.id, "next")
    for ref in _known(_stdin_strings(step.stdin), ids):
        yield Edge(ref, step.id, "stdin")
    if isinstance(step.action, ir.ForEach):
        for ref in _known(_stdin_strings(step.action.source), ids):
            yield Edge(ref, step.id, "for_each")
    condition = _condition_text(step.when)
    if condition is not None and not is_blank(condition):
        lo, hi = js_trim_range(condition)
        label = truncate("when: " + condition[lo:hi], WHEN_LIMIT)
        for ref in _known([condition], ids):
            yield Edge(ref, step.id, label)


def _known(texts: list[str], ids: set[str]) -> list[str]:
    found: dict[str, None] = {}
    for text in texts:
        for match in REF.finditer(text):
            if match.group(1) in ids:
                found.setdefault(match.group(1))
    return list(found)


def _stdin_strings(stdin: ir.Stdin | None) -> list[str]:
    if isinstance(stdin, ir.StdinRef):
        return [stdin.text]
    if isinstance(stdin, ir.StdinTemplate):
        return [stdin.template.text]
    if isinstance(stdin, ir.StdinValue):
        return list(_strings(stdin.value))
    return []


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)


def _condition_text(condition: ir.Condition | None) -> str | None:
    if isinstance(condition, ir.ExprCondition):
        return condition.text
    if isinstance(condition, ir.InvalidCondition) and isinstance(condition.value, str):
        return condition.value
    return None
