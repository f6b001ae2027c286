"""Interactive gates (human mode on a terminal): `<prompt> [y/N] ` and `Enter JSON response: `."""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from typing import Any, TextIO

from lobsterlang import ir
from lobsterlang.interpret.workflow.context import Options
from lobsterlang.interpret.workflow.errors import WorkflowError
from lobsterlang.interpret.workflow.gates import approver_of, check_approver, check_response
from lobsterlang.interpret.workflow.refs import Record


def _read_line(opts: Options) -> str:
    stream: TextIO = opts.prompt_in or sys.stdin
    return stream.readline().rstrip("\r\n")


def _write(opts: Options, text: str) -> None:
    out: TextIO = opts.prompt_out or sys.stdout
    out.write(text)
    out.flush()


def ask_approval(
    step: ir.Step, request: Mapping[str, Any], identity: Mapping[str, Any], record: Record,
    env: Mapping[str, str], opts: Options,
) -> None:
    """Show what is approved (the request's preview or items), ask `<prompt> [y/N] `; only y/yes approves,
    anything else fails with `Not approved`."""
    from lobsterlang.interpret.pipeline.commands.gates import request_preview

    _write(opts, f"{request_preview(dict(request))}{request['prompt']} [y/N] ")
    answer = _read_line(opts).strip().lower()
    if answer not in ("y", "yes"):
        raise WorkflowError("Not approved")
    approver = approver_of(env)
    check_approver(step.id, identity, approver)
    record["approved"] = True
    if approver:
        record["approvedBy"] = approver


def ask_input(step: ir.Step, opts: Options) -> Any:
    """Print the prompt, read one line of JSON and check it against the response schema."""
    assert step.input is not None
    _write(opts, f"{step.input.prompt}\nEnter JSON response: ")
    try:
        response = json.loads(_read_line(opts))
    except ValueError:
        raise WorkflowError("Input response must be valid JSON") from None
    check_response(step.id, step.input.response_schema, response)
    return response
