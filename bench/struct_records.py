"""The prototype that msgspec_bench.py times: `lobsterlang.record` replaced by msgspec Structs before lobsterlang is imported."""

from __future__ import annotations

import sys
import types
from typing import Any

import msgspec  # type: ignore[import-not-found, unused-ignore]  # not a dependency: the bench alone needs it
import msgspec.structs  # type: ignore[import-not-found, unused-ignore]


class _FieldNames:
    """`Record._fields` as lobsterlang reads it: the field names, in order."""

    def __get__(self, obj: object, cls: Any) -> tuple[str, ...]:
        return tuple(cls.__struct_fields__)


Record: Any = msgspec.defstruct("Record", [], frozen=True, gc=False, tag_field="type", tag=True)
"""Frozen, untracked by the cyclic collector, encoded as an object whose `type` is the class name."""
Record._fields = _FieldNames()


def install() -> None:
    """Make `import lobsterlang.record` give this module's Record (call before anything imports lobsterlang)."""
    module = types.ModuleType("lobsterlang.record")
    module.Record = Record  # type: ignore[attr-defined]
    module.FrozenRecordError = AttributeError  # type: ignore[attr-defined]
    module.fields = lambda record: tuple(record.__struct_fields__)  # type: ignore[attr-defined]
    module.replace = msgspec.structs.replace  # type: ignore[attr-defined]
    sys.modules["lobsterlang.record"] = module
