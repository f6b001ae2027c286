"""Frozen, slotted record classes declared like dataclasses, but cheap to define at import.

`@dataclass` generates each class's methods with `exec`, about 1 ms per class; the IR has
three dozen classes and `lobster` must start in well under 150 ms. `Record` gives the same
behaviour (keyword or positional construction, defaults, value equality, hashing, repr,
immutability, `fields()`) with methods shared by every class. Type checkers see the
classes as frozen dataclasses through PEP 681 (`dataclass_transform`).
"""

from __future__ import annotations

import sys
import types
from functools import cache
from typing import TYPE_CHECKING, Any, ClassVar, cast

if TYPE_CHECKING:
    from typing_extensions import dataclass_transform
else:

    def dataclass_transform(**_: Any) -> Any:
        return lambda cls: cls


class FrozenRecordError(AttributeError):
    """Raised on an attempt to change a record."""


class _RecordMeta(type):
    def __new__(mcls, name: str, bases: tuple[type, ...], ns: dict[str, Any]) -> _RecordMeta:
        names = tuple(n for n in ns.get("__annotations__", {}) if not n.startswith("_"))
        defaults = {n: ns.pop(n) for n in names if n in ns}
        ns["__slots__"] = tuple(ns.get("__slots__", ())) + names
        ns["_fields"] = tuple(f for b in bases for f in getattr(b, "_fields", ())) + names
        ns["_defaults"] = {**{k: v for b in bases for k, v in getattr(b, "_defaults", {}).items()}, **defaults}
        cls = super().__new__(mcls, name, bases, ns)
        if names:
            cls.__init__ = _make_init(cls)  # type: ignore[misc]
        return cls


def _make_init(cls: Any) -> Any:
    """An __init__ whose parameters are the fields, storing each argument straight into its slot.

    Python binds positional and keyword arguments and fills defaults itself, and names the
    field in its error when one is missing or unknown. As in a dataclass, a field without a
    default cannot follow one with a default.
    """
    fields, defaults = cls._fields, cls._defaults
    given = [name in defaults for name in fields]
    first_default = given.index(True) if True in given else len(fields)
    if not all(given[first_default:]):
        late = fields[given.index(False, first_default)]
        raise TypeError(f"{cls.__name__}: field {late!r} without a default follows a field with one")
    code = _init_code(len(fields)).replace(co_varnames=("self", *fields))
    if sys.version_info >= (3, 11):
        code = code.replace(co_qualname=f"{cls.__qualname__}.__init__")
    setters = [getattr(cls, name).__set__ for name in fields]
    # The closure follows `co_freevars`, which Python sorts by name (`_set10_` before `_set2_`).
    cells = tuple(types.CellType(setters[int(free[4:-1])]) for free in code.co_freevars)
    argdefs = tuple(defaults[name] for name in fields[first_default:]) or None
    init = types.FunctionType(code, {}, "__init__", argdefs, cells)
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    return init


@cache
def _init_code(count: int) -> types.CodeType:
    """The code of an __init__ of `count` parameters that calls one slot setter per parameter.

    Compiled once per field count; each class gets a copy with its field names as the
    parameter names, and its own setters as the closure. Generated code is the fastest
    way to store fields, and one compilation per count (not per class) keeps the import cheap.
    """
    params = [f"a{i}" for i in range(count)]
    setters = [f"_set{i}_" for i in range(count)]
    stores = "".join(f"        {s}(self, {a})\n" for s, a in zip(setters, params, strict=True))
    source = (
        f"def factory({', '.join(setters)}):\n"
        f"    def __init__(self, {', '.join(params)}):\n"
        f"{stores}"
        "    return __init__\n"
    )
    namespace: dict[str, Any] = {}
    exec(source, namespace)  # trusted: generated from a field count only
    init = namespace["factory"](*range(count))
    return cast(types.CodeType, init.__code__)


@dataclass_transform(frozen_default=True)
class Record(metaclass=_RecordMeta):
    """Base class: annotate fields in the subclass body, optionally with defaults."""

    __slots__ = ()
    _fields: ClassVar[tuple[str, ...]]
    _defaults: ClassVar[dict[str, Any]]

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self._fields)

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and self._values() == other._values()  # type: ignore[attr-defined, unused-ignore]

    def __hash__(self) -> int:
        return hash((type(self).__name__, *self._values()))

    def __repr__(self) -> str:
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._fields)
        return f"{type(self).__name__}({inner})"

    def __setattr__(self, name: str, value: Any) -> None:
        raise FrozenRecordError(f"cannot assign to field {name!r}: {type(self).__name__} is frozen")

    def __delattr__(self, name: str) -> None:
        raise FrozenRecordError(f"cannot delete field {name!r}: {type(self).__name__} is frozen")

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), self._values())


def fields(record: type[Record] | Record) -> tuple[str, ...]:
    """The field names of a record class or instance, in declaration order."""
    return record._fields


def replace(record: Record, **changes: Any) -> Any:
    """A copy of `record` with some fields changed."""
    values = {name: getattr(record, name) for name in record._fields}
    values.update(changes)
    return type(record)(**values)
