"""Compile a workflow file: decode, compose YAML or JSON with positions, guard the node graph, build the IR."""

from __future__ import annotations

from pathlib import PurePath

import yaml

from lobsterlang import ir
from lobsterlang.compile import CompileResult, finish
from lobsterlang.compile.context import Context
from lobsterlang.compile.recompose import LeftOutStepChanged, compose_leaving_out
from lobsterlang.compile.reuse import active_cache
from lobsterlang.compile.workflow import compile_document
from lobsterlang.diagnostics import Diagnostic
from lobsterlang.gcpause import collector_paused
from lobsterlang.span import LineIndex, line_index
from lobsterlang.syntax.jsonload import compose_json
from lobsterlang.syntax.nodes import NestingError, check_graph, needs_graph_check, nesting_diagnostic
from lobsterlang.syntax.source import decode_source, text_problems
from lobsterlang.syntax.yamlload import compose_yaml

Composed = tuple[yaml.Node | None, LineIndex]
"""The composed document and the line index of its text."""


def compile_file(source: str | bytes, path: str, strict: bool) -> CompileResult[ir.Workflow]:
    with collector_paused():
        return _compile(source, path, strict, keeps_tree=False)[0]


def compile_composed(source: str | bytes, path: str) -> tuple[CompileResult[ir.Workflow], Composed | None]:
    """Compile, and also give the composed document (None when the text did not compose), so that a
    formatter can survey its layout without composing it again."""
    with collector_paused():
        return _compile(source, path, False, keeps_tree=True)


def _compile(source: str | bytes, path: str, strict: bool, *, keeps_tree: bool) -> tuple[CompileResult[ir.Workflow], Composed | None]:
    """With `keeps_tree` False, the steps' nodes are released as they compile and no document is given back."""
    if isinstance(source, bytes):
        decoded, problems = decode_source(source)
        if problems:
            return finish(None, problems, decoded.text, strict), None
        text, index = decoded.text, decoded.index
    else:
        problems = text_problems(source)
        if problems:
            return finish(None, problems, source, strict), None
        text, index = source, line_index(source)
    is_json = PurePath(path).suffix.lower() == ".json"
    has_aliases_or_tags = needs_graph_check(text)
    cache = active_cache(path)
    if cache is not None:
        cache.left_out = {}
        if not (is_json or keeps_tree or has_aliases_or_tags):
            try:
                root = compose_leaving_out(text, index, cache)
                if root is not None:
                    return _compile_root(root, [], text, index, path, strict, is_json, keeps_tree, False)
            except LeftOutStepChanged:
                cache.left_out = {}
    root, problems = (compose_json if is_json else compose_yaml)(text, index)
    if problems:
        return finish(None, problems, text, strict), None
    if root is not None and has_aliases_or_tags:
        problems = check_graph(root, index)
        if any(p.is_error for p in problems):
            return finish(None, problems, text, strict), None
    return _compile_root(root, problems, text, index, path, strict, is_json, keeps_tree, has_aliases_or_tags)


def _compile_root(root: yaml.Node | None, problems: list[Diagnostic], text: str, index: LineIndex, path: str, strict: bool,
                  is_json: bool, keeps_tree: bool, has_aliases_or_tags: bool) -> tuple[CompileResult[ir.Workflow], Composed | None]:
    ctx = Context(text, index, path, is_json, releases_steps=not keeps_tree and not has_aliases_or_tags)
    ctx.extend(problems)
    try:
        workflow = compile_document(ctx, root)
    except NestingError as exc:
        return finish(None, [nesting_diagnostic(exc, index)], text, strict), None
    return finish(workflow, ctx.diagnostics, text, strict), (root, index) if keeps_tree else None
