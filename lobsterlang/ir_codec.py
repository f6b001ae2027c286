"""One generic codec between IR dataclasses and plain JSON data, driven by type hints."""

from __future__ import annotations

import types
import typing
from collections.abc import Callable
from functools import cache
from typing import Any, Union

from lobsterlang import ir
from lobsterlang.gcpause import collector_paused
from lobsterlang.record import Record
from lobsterlang.span import Span

_CLASSES: dict[str, type] = {cls.__name__: cls for cls in ir.NODE_CLASSES}

Decoder = Callable[[Any], Any]


class IRFormatError(ValueError):
    """Raised when JSON data does not describe valid IR."""


def to_json(node: Any) -> dict[str, Any]:
    """Encode an IR node as JSON data; a root Workflow or Pipeline gets `ir_version`.

    The collector is paused while the (acyclic, growing) tree is built, as when compiling:
    otherwise it rescans it again and again, quadratic on a large workflow.
    """
    with collector_paused():
        data = _encode(node)
    if isinstance(node, (ir.Workflow, ir.Pipeline)):
        return {"ir_version": ir.IR_VERSION, **data}
    if not isinstance(data, dict):
        raise TypeError(f"not an IR node: {type(node).__name__}")
    return data


def from_json(data: Any) -> Any:
    """Decode JSON data made by `to_json` back into IR nodes."""
    if not isinstance(data, dict):
        raise IRFormatError("IR must be a JSON object")
    version = data.get("ir_version", ir.IR_VERSION)
    if version != ir.IR_VERSION:
        raise IRFormatError(f"unsupported ir_version {version!r} (this version reads {ir.IR_VERSION})")
    body = {k: v for k, v in data.items() if k != "ir_version"}
    return _decode_node(body)


def _encode(value: Any) -> Any:
    if isinstance(value, Span):
        return value.to_list()
    if isinstance(value, Record):
        out: dict[str, Any] = {"type": type(value).__name__}
        for name in value._fields:
            out[name] = _encode(getattr(value, name))
        return out
    if isinstance(value, tuple):
        return [_encode(v) for v in value]
    return value


def _decode_node(data: Any) -> Any:
    if not isinstance(data, dict) or not isinstance(data.get("type"), str):
        raise IRFormatError(f"expected an IR node object with a 'type', got {_describe(data)}")
    cls = _CLASSES.get(data["type"])
    if cls is None:
        raise IRFormatError(f"unknown IR node type {data['type']!r}")
    fields = _fields(cls)
    unknown = set(data) - {"type", "ir_version"} - {name for name, _ in fields}
    if unknown:
        raise IRFormatError(f"{cls.__name__} has no field {sorted(unknown)[0]!r}")
    kwargs = {}
    for name, decode in fields:
        if name not in data and name in getattr(cls, "_defaults", {}):
            continue  # a field added later, with a default: IR written before it reads as that default
        if name not in data:
            raise IRFormatError(f"{cls.__name__} is missing field {name!r}")
        try:
            kwargs[name] = decode(data[name])
        except _WrongType as exc:
            raise IRFormatError(f"{cls.__name__}.{name} must be {exc}, got {_describe(data[name])}") from None
    return cls(**kwargs)


@cache
def _fields(cls: type) -> tuple[tuple[str, Decoder], ...]:
    hints = typing.get_type_hints(cls)
    return tuple((name, _decoder_for(hints[name])) for name in cls._fields)  # type: ignore[attr-defined]


def _decoder_for(hint: Any) -> Decoder:
    if hint is Span:
        return _decode_span
    origin = typing.get_origin(hint)
    if origin in (Union, types.UnionType):
        return _union_decoder(typing.get_args(hint))
    if origin is tuple:
        item = _decoder_for(typing.get_args(hint)[0])
        return lambda v: tuple(item(x) for x in _expect_list(v))
    if isinstance(hint, type) and hint in _CLASSES.values():
        return _decode_node
    if hint in _PRIMITIVES:
        return _checker(hint)
    if typing.get_origin(hint) is typing.Literal:
        return _literal_checker(typing.get_args(hint))
    return _identity


class _WrongType(ValueError):
    """A plain field holds a value of the wrong type (the message names the expected type)."""


_PRIMITIVES = {str: "a string", int: "an integer", bool: "a boolean"}


def _checker(kind: type) -> Decoder:
    def check(value: Any) -> Any:
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise _WrongType(_PRIMITIVES[kind])
        return value

    return check


def _literal_checker(options: tuple[Any, ...]) -> Decoder:
    def check(value: Any) -> Any:
        if value not in options:
            raise _WrongType("one of " + ", ".join(repr(o) for o in options))
        return value

    return check


def _union_decoder(options: tuple[Any, ...]) -> Decoder:
    non_none = [o for o in options if o is not type(None)]
    if all(isinstance(o, type) and o in _CLASSES.values() for o in non_none):
        return lambda v: None if v is None else _decode_node(v)
    if len(non_none) == 1:
        inner = _decoder_for(non_none[0])
        return lambda v: None if v is None else inner(v)
    return _identity


def _decode_span(value: Any) -> Span:
    if not (isinstance(value, list) and len(value) == 6 and all(isinstance(x, int) for x in value)):
        raise IRFormatError(f"a span is a list of 6 integers, got {_describe(value)}")
    return Span.from_list(value)


def _expect_list(value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise IRFormatError(f"expected a list, got {_describe(value)}")
    return value


def _identity(value: Any) -> Any:
    return value


def _describe(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
