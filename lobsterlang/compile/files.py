"""Compile a workflow file: decode, compose YAML or JSON with positions, guard the node graph, build the IR."""

from __future__ import annotations

from pathlib import PurePath

from lobsterlang import ir
from lobsterlang.compile import CompileResult, finish
from lobsterlang.compile.context import Context
from lobsterlang.compile.workflow import compile_document
from lobsterlang.gcpause import collector_paused
from lobsterlang.span import LineIndex
from lobsterlang.syntax.jsonload import compose_json
from lobsterlang.syntax.nodes import NestingError, check_graph, needs_graph_check, nesting_diagnostic
from lobsterlang.syntax.source import decode_source
from lobsterlang.syntax.yamlload import compose_yaml


def compile_file(source: str | bytes, path: str, strict: bool) -> CompileResult[ir.Workflow]:
    with collector_paused():
        return _compile(source, path, strict)


def _compile(source: str | bytes, path: str, strict: bool) -> CompileResult[ir.Workflow]:
    if isinstance(source, bytes):
        decoded, problems = decode_source(source)
        if problems:
            return finish(None, problems, decoded.text, strict)
        text, index = decoded.text, decoded.index
    else:
        text, index = source, LineIndex(source)
    is_json = PurePath(path).suffix.lower() == ".json"
    root, problems = (compose_json if is_json else compose_yaml)(text, index)
    if problems:
        return finish(None, problems, text, strict)
    if root is not None and needs_graph_check(text):
        problems = check_graph(root, index)
        if any(p.is_error for p in problems):
            return finish(None, problems, text, strict)
    ctx = Context(text, index, path, is_json)
    ctx.extend(problems)
    try:
        workflow = compile_document(ctx, root)
    except NestingError as exc:
        return finish(None, [nesting_diagnostic(exc, index)], text, strict)
    return finish(workflow, ctx.diagnostics, text, strict)
