"""Records of steps that run no command, and a run's final output items."""

from __future__ import annotations

from typing import Any

from lobsterlang.interpret.values import UNDEFINED, stringify
from lobsterlang.interpret.workflow.refs import Record, make_record


def synthetic_record(step_id: str, stdin: Any) -> Record:
    """An approval-only or no-op step: its stdin becomes its output (`{id}` without stdin)."""
    if stdin is None or stdin is UNDEFINED:
        return {"id": step_id}
    if isinstance(stdin, str):
        return make_record(step_id, stdin)
    return make_record(step_id, stringify(stdin), stdin)


def output_items(record: Record | None) -> list[Any]:
    """The run's output from its last step: json (an array spread), else response, else stdout."""
    if record is None:
        return []
    for key in ("json", "response"):
        if key in record and record[key] is not UNDEFINED:
            value = record[key]
            return list(value) if isinstance(value, list) else [value]
    stdout = record.get("stdout")
    return [stdout] if isinstance(stdout, str) and stdout else []
