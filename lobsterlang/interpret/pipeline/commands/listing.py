"""`commands.list`: every command with its description, argument schema, examples and side effects."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from lobsterlang.commands.specs import COMMANDS, CommandSpec, FlagSpec
from lobsterlang.interpret.pipeline.args import StageArgs
from lobsterlang.interpret.pipeline.runtime import RunContext, StageOutput
from lobsterlang.interpret.pipeline.streams import drain

_JSON_TYPES = {"bool": "boolean", "string": "string", "number": "number", "json": "string", "enum": "string"}


def flag_schema(flag: FlagSpec) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": _JSON_TYPES[flag.kind], "description": flag.help}
    if flag.choices:
        schema["enum"] = list(flag.choices)
    if flag.default is not None:
        schema["default"] = flag.default
    return schema


def args_schema(spec: CommandSpec) -> dict[str, Any]:
    """A JSON Schema of the reference's args object (`_` holds the positionals)."""
    properties = {flag.name: flag_schema(flag) for flag in spec.flags}
    properties["_"] = {"type": "array", "items": {"type": "string"}, "description": _positional_help(spec)}
    required = [flag.name for flag in spec.flags if flag.required]
    return {"type": "object", "properties": properties, "required": required}


def _positional_help(spec: CommandSpec) -> str:
    return "; ".join(f"{p.name}: {p.help}" for p in spec.positionals) or "unused"


def describe(spec: CommandSpec) -> dict[str, Any]:
    return {
        "name": spec.name,
        "description": spec.summary,
        "argsSchema": args_schema(spec),
        "examples": list(spec.examples) or None,
        "sideEffects": list(spec.side_effects),
    }


def run_commands_list(input: Iterator[Any], args: StageArgs, ctx: RunContext) -> StageOutput:
    drain(input)
    return StageOutput([describe(spec) for spec in sorted(COMMANDS, key=lambda s: s.name)])
