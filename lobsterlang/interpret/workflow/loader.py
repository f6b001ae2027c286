"""Read and compile a workflow file, failing with the reference's loader message."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from lobsterlang import ir
from lobsterlang.compile import WORKFLOW_SUFFIXES, compile_workflow
from lobsterlang.diagnostics import Diagnostic
from lobsterlang.interpret.confine import outside_message
from lobsterlang.interpret.workflow.errors import WorkflowError
from lobsterlang.syntax.source import read_source

LOADER_PREFIXES = ("E", "S")
"""Diagnostic families the reference refuses at load time; X and P problems surface at run time."""


def check_path(path: str, env: Mapping[str, str] | None = None) -> None:
    """The reference's checks on a `--file` path: extension, existence, regular file; under the tool call
    (`env` names its workspace) the file must resolve inside the workspace."""
    outside = outside_message("Workflow file", path, env or {})
    if outside is not None:
        raise WorkflowError(outside)
    if Path(path).suffix.lower() not in WORKFLOW_SUFFIXES:
        raise WorkflowError("Workflow file must end in .lobster, .yaml, .yml, or .json")
    if not os.path.exists(path):
        raise WorkflowError(f"ENOENT: no such file or directory, stat '{os.path.abspath(path)}'")
    if not os.path.isfile(path):
        raise WorkflowError("Workflow path is not a file")


def load_workflow(path: str) -> tuple[ir.Workflow, bytes]:
    """Compile the file at `path`; the first loader error is raised as WorkflowError."""
    try:
        data = read_source(path)
    except OSError as exc:
        raise WorkflowError(f"cannot read {path}: {exc.strerror or exc}") from None
    return compile_bytes(data, path), data


def compile_bytes(data: bytes, path: str) -> ir.Workflow:
    """Compile workflow bytes; the first loader error is raised as WorkflowError."""
    result = compile_workflow(data, path)
    for diagnostic in result.diagnostics:
        if diagnostic.is_error and diagnostic.code.startswith(LOADER_PREFIXES):
            raise WorkflowError(_message(diagnostic))
    if result.ir is None:
        raise WorkflowError("Workflow file must be a JSON/YAML object")
    return result.ir


_OURS = frozenset({"S121"})
"""Loader errors the reference does not have: where they are and the hint go with the message."""


def _message(diagnostic: Diagnostic) -> str:
    if diagnostic.code.startswith("E") or diagnostic.code in _OURS:
        hint = f"; {diagnostic.hint}" if diagnostic.code in _OURS and diagnostic.hint else ""
        return f"{diagnostic.message} at line {diagnostic.span.line}, column {diagnostic.span.col}{hint}"
    return diagnostic.message
