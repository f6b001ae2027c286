"""Step result records and `$step.path` lookups: records are plain dicts, a missing key is `undefined`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lobsterlang import ir
from lobsterlang.interpret.values import UNDEFINED, js_string, stringify
from lobsterlang.interpret.workflow.errors import WorkflowError
from lobsterlang.interpret.workflow.jsjson import try_parse

Record = dict[str, Any]
Results = Mapping[str, Record]


class UnknownStep(WorkflowError):
    """A reference to a step that has no record (not yet run, later, or outside the loop)."""

    def __init__(self, ref: ir.StepRef) -> None:
        super().__init__(f"Unknown step reference: {ref.step}.{'.'.join(ref.path)}")


def walk(value: Any, path: tuple[str, ...]) -> Any:
    """Follow `path` into JSON data: list indexes in range, own object keys; anything else is undefined."""
    for segment in path:
        if isinstance(value, list):
            if not (segment.isascii() and segment.isdigit()) or int(segment) >= len(value):
                return UNDEFINED
            value = value[int(segment)]
        elif isinstance(value, dict):
            value = value.get(segment, UNDEFINED)
        else:
            return UNDEFINED
    return value


def lookup(results: Results, ref: ir.StepRef) -> Any:
    """The referenced value; `UnknownStep` when the step has no record."""
    record = results.get(ref.step)
    if record is None:
        raise UnknownStep(ref)
    return walk(record.get(ref.field, UNDEFINED), ref.path[1:])


def render_value(value: Any, ref: ir.StepRef) -> str:
    """A looked-up value as template text: strings as is, objects as compact JSON, nothing as ``."""
    if value is UNDEFINED:
        return "false" if ref.path in (("approved",), ("skipped",)) else ""
    if value is None:
        return ""
    if isinstance(value, (dict, list)):
        return stringify(value)
    return js_string(value)


def render_ref(results: Results, ref: ir.StepRef) -> str:
    """A reference inside a template: its text when the step has no record, else its rendered value."""
    if ref.step not in results:
        return ref.text
    return render_value(lookup(results, ref), ref)


def json_of(stdout: str) -> Any:
    """`JSON.parse(stdout.trim())`, or undefined when empty or not JSON."""
    return try_parse(stdout)


def make_record(step_id: str, stdout: str, json_value: Any = UNDEFINED) -> Record:
    """A record `{id, stdout, json}`; `json` is parsed from stdout unless given, and left out when undefined."""
    record: Record = {"id": step_id, "stdout": stdout}
    value = json_of(stdout) if json_value is UNDEFINED else json_value
    if value is not UNDEFINED:
        record["json"] = value
    return record
