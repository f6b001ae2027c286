"""Read-only views of a document: semantic tokens of embedded languages, links, inlay hints, dry-run and graph text."""

from __future__ import annotations

import os
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path

from lsprotocol import types

from lobsterlang import ir
from lobsterlang.commands.specs import BY_NAME
from lobsterlang.query.at import actions, pipeline_stages
from lobsterlang.query.names import called_path
from lobsterlang.query.rename import templates
from lobsterlang_lsp.documents import Analysis, uri_of

TOKEN_TYPES = ("function", "parameter", "string", "operator", "variable", "property")
_INDEX = {name: number for number, name in enumerate(TOKEN_TYPES)}
GRAPH_FORMATS = ("mermaid", "dot")

Token = tuple[int, int, str]


def tokens(analysis: Analysis) -> list[Token]:
    """Tokens (start, end, type) of pipelines, references and condition operators, sorted and non-overlapping."""
    workflow = analysis.workflow
    if workflow is None:
        return []
    found = sorted(set(_pipeline_tokens(workflow, analysis.text)) | set(_ref_tokens(workflow)) | set(_condition_tokens(workflow, analysis.text)))
    kept: list[Token] = []
    for token in found:
        if not kept or token[0] >= kept[-1][1]:
            kept.append(token)
    return kept


def encoded_tokens(analysis: Analysis) -> list[int]:
    """LSP's relative encoding; tokens that span lines are left out."""
    data: list[int] = []
    last_line = last_char = 0
    for start, end, kind in tokens(analysis):
        begin, finish = analysis.positions.position(start), analysis.positions.position(end)
        if begin.line != finish.line or finish.character == begin.character:
            continue
        delta_line = begin.line - last_line
        delta_char = begin.character - (last_char if delta_line == 0 else 0)
        data += [delta_line, delta_char, finish.character - begin.character, _INDEX[kind], 0]
        last_line, last_char = begin.line, begin.character
    return data


def _pipeline_tokens(workflow: ir.Workflow, text: str) -> Iterator[Token]:
    for action in actions(workflow):
        if isinstance(action, ir.PipelineRun) and action.pipeline is not None:
            stages = action.pipeline.stages
            for before, after in pairwise(stages):
                bar = text.find("|", before.span.end, after.span.start)
                if bar != -1:
                    yield (bar, bar + 1, "operator")
    for stage in pipeline_stages(workflow):
        yield (stage.name.span.start, stage.name.span.end, "function")
        for arg in stage.args:
            if isinstance(arg, ir.Flag):
                yield (arg.name_span.start, arg.name_span.end, "parameter")
            word = arg.value
            if word is not None and word.template is None and text[word.span.start : word.span.start + 1] in ("'", '"'):
                yield (word.span.start, word.span.end, "string")


def _ref_tokens(workflow: ir.Workflow) -> Iterator[Token]:
    for template in templates(workflow):
        for part in template.refs:
            yield (part.span.start, part.span.end, "variable" if isinstance(part, ir.ArgRef) else "property")
    for step in _all_steps(workflow):
        sources = [step.stdin, step.action.source if isinstance(step.action, ir.ForEach) else None]
        sources += [b.stdin for b in step.action.branches] if isinstance(step.action, ir.Parallel) else []
        for source in sources:
            if isinstance(source, ir.StdinRef):
                yield (source.ref.span.start, source.ref.span.end, "property")


def _condition_tokens(workflow: ir.Workflow, text: str) -> Iterator[Token]:
    pending: list[ir.Expr] = [s.when.expr for s in _all_steps(workflow) if isinstance(s.when, ir.ExprCondition)]
    while pending:
        node = pending.pop()
        if isinstance(node, ir.StepRef):
            yield (node.span.start, node.span.end, "property")
        elif isinstance(node, ir.Not):
            yield (node.span.start, node.span.start + 1, "operator")
            pending.append(node.operand)
        elif isinstance(node, (ir.Compare, ir.Logical)):
            where = text.find(node.op, node.left.span.end, node.right.span.start)
            if where != -1:
                yield (where, where + len(node.op), "operator")
            pending += (node.left, node.right)


def _all_steps(workflow: ir.Workflow) -> Iterator[ir.Step]:
    for step in workflow.steps:
        yield step
        if isinstance(step.action, ir.ForEach):
            yield from step.action.steps


def links(analysis: Analysis, tooltip: bool) -> list[types.DocumentLink]:
    """`workflow:` paths that name an existing file."""
    found = []
    for step in analysis.workflow.steps if analysis.workflow else ():
        call = step.action
        if isinstance(call, ir.WorkflowCall) and not call.path.refs:
            target = called_path(analysis.path, call.path.text)
            if target.is_file():
                where = analysis.positions.range(call.path.span.start, call.path.span.end)
                found.append(types.DocumentLink(where, uri_of(target), tooltip=f"open {target.name}" if tooltip else None))
    return found


def inlay_hints(analysis: Analysis, start: int, end: int) -> list[types.InlayHint]:
    """The defaults of omitted pipeline flags, after each stage; an arg's default after `${arg}`."""
    workflow = analysis.workflow
    if workflow is None:
        return []
    hints = []
    for stage in pipeline_stages(workflow):
        spec = BY_NAME.get(stage.name.value)
        given = {a.name for a in stage.args if isinstance(a, ir.Flag)}
        omitted = [f"--{f.name} {f.default}" for f in spec.flags if f.default and given.isdisjoint((f.name, *f.aliases))] if spec else []
        if omitted and start <= stage.span.end <= end:
            label = " ".join(omitted)
            hints.append(types.InlayHint(analysis.positions.position(stage.span.end), f" {label}", padding_left=True,
                                         tooltip="defaults of the flags left out"))
    hints += gate_hints(analysis, workflow, start, end)
    defaults = {a.name: a.default for a in workflow.args or () if a.has_default}
    for template in templates(workflow):
        for part in template.refs:
            if isinstance(part, ir.ArgRef) and part.name in defaults and start <= part.span.end <= end:
                hints.append(types.InlayHint(analysis.positions.position(part.span.end), f"={defaults[part.name]!r}",
                                             kind=types.InlayHintKind.Parameter, tooltip="the arg's default"))
    return sorted({(h.position.line, h.position.character, str(h.label)): h for h in hints}.values(),
                  key=lambda h: (h.position.line, h.position.character))


def gate_hints(analysis: Analysis, workflow: ir.Workflow, start: int, end: int) -> list[types.InlayHint]:
    """After a step's id: the gates inside it (its sub-workflows', its loop's, its branches'), with the path the run's
    envelope names when it halts there."""
    from lobsterlang.compile.gatepaths import nested_gates

    directory = os.path.dirname(os.path.abspath(analysis.path))
    return [types.InlayHint(analysis.positions.position(step.id_span.end), f" {gate.kind} gate: {gate.text}",
                            padding_left=True, tooltip="the whole run halts there; resume continues inside")
            for step in workflow.steps if start <= step.id_span.end <= end for gate in nested_gates(step, directory)]


def dry_run_text(analysis: Analysis) -> str:
    """What `lobster run --dry-run FILE` prints for the document (its current text, args at their defaults)."""

    from lobsterlang.interpret.errors import LobsterRunError
    from lobsterlang.interpret.process import Cancellation
    from lobsterlang.interpret.workflow.context import Frame, resolve_args
    from lobsterlang.interpret.workflow.errors import WorkflowError
    from lobsterlang.interpret.workflow.plan import describe_plan

    workflow = analysis.result.ir
    if workflow is None or not analysis.result.ok:
        errors = [d for d in analysis.result.diagnostics if d.is_error]
        return f"Error: {errors[0].message}" if errors else "Error: not a workflow"
    path = os.path.abspath(analysis.path)
    frame = Frame(workflow, path, resolve_args(workflow, {}), dict(os.environ), str(Path(path).parent), Cancellation(),
                  (os.path.realpath(path),))
    try:
        return describe_plan(frame, 0)
    except WorkflowError as exc:
        return f"Error: {exc}"
    except LobsterRunError as exc:
        return f"Error: {exc.message}"


def graph(analysis: Analysis, fmt: str) -> dict[str, str]:
    """`{"format", "text"}`: the document's graph as `lobster graph` draws it."""
    from pygls.exceptions import JsonRpcInvalidParams

    from lobsterlang.graph import render_graph

    if fmt not in GRAPH_FORMATS:
        raise JsonRpcInvalidParams(f"format must be one of {', '.join(GRAPH_FORMATS)}, not {fmt!r}")
    workflow = analysis.result.ir if analysis.result.ir is not None else analysis.workflow
    if workflow is None:
        raise JsonRpcInvalidParams("the document is not a workflow that compiles")
    return {"format": fmt, "text": render_graph(workflow, fmt)}
