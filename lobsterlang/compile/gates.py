"""Checks and IR for human gates: `approval:` and `input:`."""

from __future__ import annotations

from typing import Any

import yaml

from lobsterlang import ir
from lobsterlang.compile.context import Context, Entry, is_map, value_of
from lobsterlang.durations import HINT as DURATION_HINT
from lobsterlang.durations import parse_duration

APPROVAL_KEYS = frozenset(
    {
        "prompt", "items", "preview", "initiated_by", "initiatedBy", "required_approver",
        "requiredApprover", "require_different_approver", "requireDifferentApprover", "expires_in",
    }
)
INPUT_KEYS = frozenset({"prompt", "responseSchema", "defaults"})
_IDENTITY_CHECKS = (
    ("initiated_by", str, "a string"),
    ("initiatedBy", str, "a string"),
    ("required_approver", str, "a string"),
    ("requiredApprover", str, "a string"),
    ("require_different_approver", bool, "a boolean"),
    ("requireDifferentApprover", bool, "a boolean"),
)
_JSON_SCHEMA_TYPES = frozenset({"array", "boolean", "integer", "null", "number", "object", "string"})


def is_approval(value: Any) -> bool:
    """The reference treats `true`, a non-empty string and a mapping as an approval."""
    return value is True or (isinstance(value, str) and value != "") or isinstance(value, dict)


def check_identity(ctx: Context, step_id: str, entry: Entry | None) -> None:
    if entry is None or not is_map(entry[1]):
        return
    entries = ctx.mapping(entry[1])  # type: ignore[arg-type]
    for key, kind, rule in _IDENTITY_CHECKS:
        if key in entries and not isinstance(value_of(entries[key][1]), kind):
            ctx.error("S116", f"Workflow step {step_id} approval.{key} must be {rule}", entries[key][1])
    if "expires_in" in entries and parse_duration(value_of(entries["expires_in"][1])) is None:
        ctx.error("S116", f"Workflow step {step_id} approval.expires_in must be a duration", entries["expires_in"][1], DURATION_HINT)


def approval(ctx: Context, step_id: str, entry: Entry | None) -> ir.Approval | None:
    """Build the approval IR; effective fields follow the reference's precedence."""
    if entry is None:
        return None
    if not is_approval(value_of(entry[1])):
        _warn_not_an_approval(ctx, step_id, entry)
        return None
    node = entry[1]
    value = value_of(node)
    span = ctx.span(node)
    if not isinstance(value, dict):
        prompt = None if value is True or value == "required" else value
        return ir.Approval(value, prompt, None, None, None, None, None, span)
    entries = ctx.mapping(node)  # type: ignore[arg-type]
    ctx.unknown_keys(entries, APPROVAL_KEYS, f"approval of step {step_id}")
    _warn_ignored_types(ctx, step_id, entries, value)
    return ir.Approval(
        value,
        _typed(value.get("prompt"), str),
        value.get("items") if isinstance(value.get("items"), list) else None,
        _typed(value.get("preview"), str),
        _either(value, "initiatedBy", "initiated_by", str),
        _either(value, "requiredApprover", "required_approver", str),
        _either(value, "requireDifferentApprover", "require_different_approver", bool),
        span,
    )


def _warn_not_an_approval(ctx: Context, step_id: str, entry: Entry) -> None:
    value = value_of(entry[1])
    if value is False:
        return  # `approval: false` says "no gate" and means it
    hint = "write `approval: true`, a prompt string, or a mapping with `prompt:`"
    ctx.warning("W013", f"approval of step {step_id} is not an approval ({_describe(value)}); the runtime ignores it", entry[1], hint)


def _describe(value: Any) -> str:
    if value == "":
        return "an empty string"
    if value is None:
        return "null"
    kind = "list" if isinstance(value, list) else "number" if isinstance(value, (int, float)) else "string"
    return f"a {kind}"


def _warn_ignored_types(ctx: Context, step_id: str, entries: dict[str, Entry], value: dict[str, Any]) -> None:
    for key, kind, rule in (("prompt", str, "a string"), ("items", list, "a list"), ("preview", str, "a string")):
        if key in value and value[key] is not None and not isinstance(value[key], kind):
            message = f"approval.{key} of step {step_id} is not {rule}; the runtime ignores it"
            ctx.warning("W007", message, entries[key][1])


def _typed(value: Any, kind: type) -> Any:
    return value if isinstance(value, kind) else None


def _either(value: dict[str, Any], camel: str, snake: str, kind: type) -> Any:
    """camelCase wins when both spellings are present."""
    found = _typed(value.get(camel), kind)
    return found if found is not None else _typed(value.get(snake), kind)


def check_input(ctx: Context, step_id: str, entry: Entry | None) -> None:
    """The reference's `input:` checks, in order."""
    if entry is None:
        return
    node = entry[1]
    if not is_map(node):
        ctx.error("S115", f"Workflow step {step_id} input must be an object", node, "write `input: {prompt: ..., responseSchema: {...}}`")
        return
    entries = ctx.mapping(node)  # type: ignore[arg-type]
    ctx.unknown_keys(entries, INPUT_KEYS, f"input of step {step_id}")
    if not isinstance(_get(entries, "prompt"), str):
        ctx.error("S115", f"Workflow step {step_id} input.prompt must be a string", _where(entries, "prompt", node))
    schema_entry = entries.get("responseSchema")
    schema = _get(entries, "responseSchema")
    if schema_entry is None or not (schema is None or isinstance(schema, (dict, list))):
        ctx.error("S115", f"Workflow step {step_id} input.responseSchema must be an object", _where(entries, "responseSchema", node))
        return
    problem = schema_problem(schema)
    if problem:
        ctx.error("S115", f"Workflow step {step_id} input.responseSchema is invalid: {problem}", schema_entry[1])


def _get(entries: dict[str, Entry], key: str) -> Any:
    return value_of(entries[key][1]) if key in entries else None


def _where(entries: dict[str, Entry], key: str, node: yaml.Node) -> yaml.Node:
    return entries[key][1] if key in entries else node


def schema_problem(schema: Any) -> str | None:
    """The structural problems of a JSON Schema that make the reference's Ajv refuse it."""
    if not isinstance(schema, dict):
        return "schema is invalid: data must be object,boolean"
    kind = schema.get("type")
    names = kind if isinstance(kind, list) else [kind]
    if "type" in schema and not all(isinstance(n, str) and n in _JSON_SCHEMA_TYPES for n in names):
        return "schema is invalid: data/type must be equal to one of the allowed values"
    for key in ("properties", "definitions", "$defs"):
        if key in schema and not isinstance(schema[key], dict):
            return f"schema is invalid: data/{key} must be object"
    if "required" in schema and not (isinstance(schema["required"], list) and all(isinstance(r, str) for r in schema["required"])):
        return "schema is invalid: data/required must be array"
    return None


def input_request(ctx: Context, entry: Entry | None) -> ir.InputRequest | None:
    if entry is None or not is_map(entry[1]):
        return None
    value = value_of(entry[1])
    prompt = value.get("prompt")
    return ir.InputRequest(
        value,
        prompt if isinstance(prompt, str) else None,
        value.get("responseSchema"),
        value.get("defaults"),
        "defaults" in value,
        ctx.span(entry[1]),
    )
