"""Compile workflow files and pipeline strings into IR, collecting every problem found.

This module stays light: the YAML/JSON and workflow layers (`compile.files`) load on the
first `compile_workflow`, so compiling a pipeline string never imports them.
"""

from __future__ import annotations

from typing import Generic, TypeVar

from lobsterlang import ir
from lobsterlang.diagnostics import Diagnostic, LobsterError, has_errors
from lobsterlang.record import Record
from lobsterlang.span import LineIndex
from lobsterlang.syntax.locate import TextLocator
from lobsterlang.syntax.pipeline import parse_pipeline

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


def compile_workflow(source: str | bytes, path: str = "<stdin>", *, strict: bool = False) -> CompileResult[ir.Workflow]:
    """Compile workflow file contents. `.json` paths are JSON; anything else is YAML 1.2."""
    from lobsterlang.compile.files import compile_file

    return compile_file(source, path, strict)


def compile_pipeline(text: str, *, strict: bool = False) -> CompileResult[ir.Pipeline]:
    """Compile a pipeline string, as given to `lobster run '<pipeline>'`."""
    pipeline, problems = parse_pipeline(text, TextLocator(LineIndex(text)))
    return finish(pipeline, problems, text, strict)


def finish(value: T | None, diagnostics: list[Diagnostic], text: str, strict: bool) -> CompileResult[T]:
    """The result; with `strict`, errors raise LobsterError instead."""
    if strict and has_errors(diagnostics):
        raise LobsterError(diagnostics)
    return CompileResult(value, tuple(diagnostics), text)
