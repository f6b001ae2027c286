"""Compile workflow files and pipeline strings into IR, collecting every problem found."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import PurePath
from typing import Generic, TypeVar

from lobsterlang import ir
from lobsterlang.compile.context import Context
from lobsterlang.compile.workflow import compile_document
from lobsterlang.diagnostics import Diagnostic, LobsterError, has_errors
from lobsterlang.record import Record
from lobsterlang.span import LineIndex
from lobsterlang.syntax.jsonload import compose_json
from lobsterlang.syntax.locate import TextLocator
from lobsterlang.syntax.nodes import NestingError, check_graph, needs_graph_check, nesting_diagnostic
from lobsterlang.syntax.pipeline import parse_pipeline
from lobsterlang.syntax.source import decode_source
from lobsterlang.syntax.yamlload import compose_yaml

WORKFLOW_SUFFIXES = (".lobster", ".yaml", ".yml", ".json")

T = TypeVar("T")


class CompileResult(Record, Generic[T]):
    """The IR (None when the input is unusable), every diagnostic, and the source text.

    Diagnostics are in the reference's check order: the first error is the one the
    reference CLI would report. Sort by span to display them.
    """

    ir: T | None
    diagnostics: tuple[Diagnostic, ...]
    text: str

    @property
    def ok(self) -> bool:
        return self.ir is not None and not has_errors(self.diagnostics)


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while compiling.

    Compiling allocates many small acyclic objects; the collector would rescan the growing
    heap again and again (quadratic on large files). Reference counting frees them anyway.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def compile_workflow(source: str | bytes, path: str = "<stdin>", *, strict: bool = False) -> CompileResult[ir.Workflow]:
    """Compile workflow file contents. `.json` paths are JSON; anything else is YAML 1.2."""
    with _collector_paused():
        return _compile_workflow(source, path, strict)


def _compile_workflow(source: str | bytes, path: str, strict: bool) -> CompileResult[ir.Workflow]:
    if isinstance(source, bytes):
        decoded, problems = decode_source(source)
        if problems:
            return _finish(None, problems, decoded.text, strict)
        text, index = decoded.text, decoded.index
    else:
        text, index = source, LineIndex(source)
    is_json = PurePath(path).suffix.lower() == ".json"
    root, problems = (compose_json if is_json else compose_yaml)(text, index)
    if problems:
        return _finish(None, problems, text, strict)
    if root is not None and needs_graph_check(text):
        problems = check_graph(root, index)
        if any(p.is_error for p in problems):
            return _finish(None, problems, text, strict)
    ctx = Context(text, index, path, is_json)
    ctx.extend(problems)
    try:
        workflow = compile_document(ctx, root)
    except NestingError as exc:
        return _finish(None, [nesting_diagnostic(exc, index)], text, strict)
    return _finish(workflow, ctx.diagnostics, text, strict)


def compile_pipeline(text: str, *, strict: bool = False) -> CompileResult[ir.Pipeline]:
    """Compile a pipeline string, as given to `lobster run '<pipeline>'`."""
    pipeline, problems = parse_pipeline(text, TextLocator(LineIndex(text)))
    return _finish(pipeline, problems, text, strict)


def _finish(value: T | None, diagnostics: list[Diagnostic], text: str, strict: bool) -> CompileResult[T]:
    if strict and has_errors(diagnostics):
        raise LobsterError(diagnostics)
    return CompileResult(value, tuple(diagnostics), text)
