"""A small JSON Schema checker for response schemas, reporting the first error as Ajv words it."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

from lobsterlang.interpret.values import UNDEFINED, is_number, stringify

Problem = tuple[str, str]
"""(instance path such as `/decision`, Ajv message such as `must be string`)."""

_TYPES: dict[str, Callable[[Any], bool]] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "number": is_number,
    "integer": lambda v: is_number(v) and float(v).is_integer(),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


class SchemaInvalid(ValueError):
    """The schema itself is not usable."""


def first_problem(schema: Any, value: Any, path: str = "") -> Problem | None:
    """The first validation error, or None when `value` matches `schema`."""
    if schema is True or schema == {}:
        return None
    if schema is False:
        return path, "boolean schema is false"
    if not isinstance(schema, dict):
        raise SchemaInvalid("schema must be an object or boolean")
    for check in _CHECKS:
        problem = check(schema, value, path)
        if problem is not None:
            return problem
    return None


def _type(schema: dict[str, Any], value: Any, path: str) -> Problem | None:
    wanted = schema.get("type")
    if wanted is None:
        return None
    names = wanted if isinstance(wanted, list) else [wanted]
    if any(name not in _TYPES for name in names):
        raise SchemaInvalid(f"unknown type {wanted!r}")
    if any(_TYPES[name](value) for name in names):
        return None
    return path, f"must be {','.join(names)}"


def _enum_const(schema: dict[str, Any], value: Any, path: str) -> Problem | None:
    if "const" in schema and stringify(schema["const"], sort_keys=True) != stringify(value, sort_keys=True):
        return path, "must be equal to constant"
    options = schema.get("enum")
    if isinstance(options, list) and all(stringify(o, sort_keys=True) != stringify(value, sort_keys=True) for o in options):
        return path, "must be equal to one of the allowed values"
    return None


def _required(schema: dict[str, Any], value: Any, path: str) -> Problem | None:
    if not isinstance(value, dict):
        return None
    for name in schema.get("required") or []:
        if name not in value:
            return path, f"must have required property '{name}'"
    return None


def _properties(schema: dict[str, Any], value: Any, path: str) -> Problem | None:
    if not isinstance(value, dict):
        return None
    known = schema.get("properties") or {}
    for name, sub in known.items():
        if name in value and value[name] is not UNDEFINED:
            problem = first_problem(sub, value[name], f"{path}/{_pointer(name)}")
            if problem:
                return problem
    extra = schema.get("additionalProperties")
    for name in value:
        if name not in known and extra is not None and extra is not True:
            if extra is False:
                return path, "must NOT have additional properties"
            problem = first_problem(extra, value[name], f"{path}/{_pointer(name)}")
            if problem:
                return problem
    return None


def _items(schema: dict[str, Any], value: Any, path: str) -> Problem | None:
    if not isinstance(value, list):
        return None
    for key, op, word in (("minItems", ">=", "fewer"), ("maxItems", "<=", "more")):
        limit = schema.get(key)
        if isinstance(limit, int) and not _holds(len(value), op, limit):
            return path, f"must NOT have {word} than {limit} items"
    sub = schema.get("items")
    if isinstance(sub, (dict, bool)):
        for index, element in enumerate(value):
            problem = first_problem(sub, element, f"{path}/{index}")
            if problem:
                return problem
    return None


def _bounds(schema: dict[str, Any], value: Any, path: str) -> Problem | None:
    if isinstance(value, str):
        for key, op, word in (("minLength", ">=", "fewer"), ("maxLength", "<=", "more")):
            limit = schema.get(key)
            if isinstance(limit, int) and not _holds(len(value), op, limit):
                return path, f"must NOT have {word} than {limit} characters"
        pattern = schema.get("pattern")
        if isinstance(pattern, str) and re.search(pattern, value) is None:
            return path, f'must match pattern "{pattern}"'
    if is_number(value) and not (isinstance(value, float) and math.isnan(value)):
        for key, op in (("minimum", ">="), ("maximum", "<="), ("exclusiveMinimum", ">"), ("exclusiveMaximum", "<")):
            limit = schema.get(key)
            if limit is not None and is_number(limit) and not _holds(value, op, limit):
                return path, f"must be {op} {stringify(limit)}"
    return None


def _holds(left: float, op: str, right: float) -> bool:
    return {">=": left >= right, "<=": left <= right, ">": left > right, "<": left < right}[op]


def _pointer(name: str) -> str:
    return name.replace("~", "~0").replace("/", "~1")


_CHECKS = (_type, _enum_const, _required, _properties, _items, _bounds)
