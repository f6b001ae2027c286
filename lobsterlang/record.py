"""Frozen, slotted record classes declared like dataclasses, but cheap to define at import.

`@dataclass` generates each class's methods with `exec`, about 1 ms per class; the IR has
three dozen classes and `lobster` must start in well under 150 ms. `Record` gives the same
behaviour (keyword or positional construction, defaults, value equality, hashing, repr,
immutability, `fields()`) with methods shared by every class. Type checkers see the
classes as frozen dataclasses through PEP 681 (`dataclass_transform`).
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from typing_extensions import dataclass_transform
else:

    def dataclass_transform(**_: Any) -> Any:
        return lambda cls: cls


_MISSING = object()


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
    """An __init__ that stores all-positional arguments straight into the slots (the common case)."""
    setters = tuple(getattr(cls, name).__set__ for name in cls._fields)
    return _init_factory(len(setters))(Record.__init__, _MISSING, *setters)


@cache
def _init_factory(count: int) -> Any:
    """A factory of __init__ functions for records of `count` fields, compiled once per count.

    Generated code is the fastest way to store fields, and one factory per field count
    (not per class) keeps the import cheap.
    """
    names = [f"a{i}" for i in range(count)]
    setters = [f"s{i}" for i in range(count)]
    stores = "".join(f"        {s}(self, {a})\n" for s, a in zip(setters, names, strict=True))
    params = ", ".join(f"{a}=_MISSING" for a in names)
    given = ", ".join(names)
    source = (
        f"def factory(general, _MISSING, {', '.join(setters)}):\n"
        f"    def __init__(self, {params}, **kwargs):\n"
        f"        if kwargs or {names[-1]} is _MISSING:\n"
        f"            return general(self, *[a for a in ({given},) if a is not _MISSING], **kwargs)\n"
        f"{stores}"
        "    return __init__\n"
    )
    namespace: dict[str, Any] = {}
    exec(source, namespace)  # trusted: generated from a field count only
    return namespace["factory"]


@dataclass_transform(frozen_default=True)
class Record(metaclass=_RecordMeta):
    """Base class: annotate fields in the subclass body, optionally with defaults."""

    __slots__ = ()
    _fields: ClassVar[tuple[str, ...]]
    _defaults: ClassVar[dict[str, Any]]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        fields = self._fields
        if len(args) > len(fields):
            raise TypeError(f"{type(self).__name__} takes {len(fields)} arguments, got {len(args)}")
        setter = object.__setattr__
        for name, value in zip(fields, args, strict=False):
            setter(self, name, value)
        for name in fields[len(args) :]:
            if name in kwargs:
                setter(self, name, kwargs.pop(name))
            elif name in self._defaults:
                setter(self, name, self._defaults[name])
            else:
                raise TypeError(f"{type(self).__name__} is missing field {name!r}")
        if kwargs:
            raise TypeError(f"{type(self).__name__} has no field {next(iter(kwargs))!r}")

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
