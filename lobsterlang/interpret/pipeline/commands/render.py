"""Renderers: `json` (one pretty array) and `table` (aligned columns); both write to the run's render buffer."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from lobsterlang.interpret.jsorder import js_keys
from lobsterlang.interpret.pipeline.args import StageArgs
from lobsterlang.interpret.pipeline.runtime import RunContext, StageOutput
from lobsterlang.interpret.pipeline.streams import drain
from lobsterlang.interpret.values import UNDEFINED, is_number, js_string, stringify

TABLE_SAMPLE = 20


def run_json(input: Iterator[Any], args: StageArgs, ctx: RunContext) -> StageOutput:
    ctx.rendered.write(stringify(drain(input), 2) + "\n")
    return StageOutput((), rendered=True)


def run_table(input: Iterator[Any], args: StageArgs, ctx: RunContext) -> StageOutput:
    ctx.rendered.write(table_text(drain(input)))
    return StageOutput((), rendered=True)


def table_text(items: list[Any]) -> str:
    """The reference's table: columns from the first 20 items when they are all objects."""
    if not items:
        return "(no results)\n"
    sample = items[:TABLE_SAMPLE]
    if not all(isinstance(item, dict) for item in sample):
        return "".join(_line(item) + "\n" for item in items)
    columns = list(dict.fromkeys(key for item in sample for key in js_keys(item)))
    rows = [[_cell(item.get(column) if isinstance(item, dict) else None) for column in columns] for item in items]
    widths = [max(3, _units(column), *(_units(row[i]) for row in rows)) for i, column in enumerate(columns)]
    header = "  ".join(_pad(column, width) for column, width in zip(columns, widths, strict=False))
    rule = "  ".join("-" * width for width in widths)
    body = ["  ".join(_pad(cell, width) for cell, width in zip(row, widths, strict=False)) for row in rows]
    return "\n".join([header, rule, *body]) + "\n"


def _units(text: str) -> int:
    """JavaScript's `text.length`, which the reference pads by: UTF-16 code units."""
    return len(text) if text.isascii() else len(text.encode("utf-16-le", "surrogatepass")) // 2


def _pad(text: str, width: int) -> str:
    return text + " " * (width - _units(text))


def _cell(value: Any) -> str:
    if value is None or value is UNDEFINED:
        return ""
    text = value if isinstance(value, str) else js_string(value) if isinstance(value, bool) or is_number(value) else stringify(value)
    return text.replace("\n", " ")


def _line(item: Any) -> str:
    if item is None or item is UNDEFINED:
        return ""
    if isinstance(item, str):
        return item
    return js_string(item) if isinstance(item, bool) or is_number(item) else stringify(item)
