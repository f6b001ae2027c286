"""Item transformers: `where`, `pick`, `head`, `sort`, `dedupe`, `groupBy`, `map`."""

from __future__ import annotations

import functools
import math
import operator
import re
from collections import defaultdict
from collections.abc import Callable, Iterator
from typing import Any

from lobsterlang.interpret.errors import CommandError
from lobsterlang.interpret.pipeline.args import StageArgs
from lobsterlang.interpret.pipeline.paths import get_key, item_getter, path_getter
from lobsterlang.interpret.pipeline.runtime import RunContext, StageOutput
from lobsterlang.interpret.pipeline.streams import close, drain, freed_in_arrival_order, guarded, mapped
from lobsterlang.interpret.values import UNDEFINED, compare, is_number, js_string, stringify, to_number, utf16_key

_WHERE = re.compile(r"([a-zA-Z0-9_.]+)\s*(==|=|!=|<=|>=|<|>)\s*(.+)")


def where_literal(raw: str) -> Any:
    """The right-hand side of a `where`: true/false/null, a number when Number() accepts it, else the text."""
    if raw in ("true", "false"):
        return raw == "true"
    if raw == "null":
        return None
    number = to_number(raw)
    return raw if math.isnan(number) else number


def run_where(input: Iterator[Any], args: StageArgs, ctx: RunContext) -> StageOutput:
    expression = args.first()
    if not expression:
        raise CommandError("where requires an expression (e.g. field=value)")
    match = _WHERE.fullmatch(expression)
    if match is None:
        raise CommandError(f"Invalid where expression: {expression}")
    path, op, raw = match.groups()
    op, literal = ("==" if op == "=" else op), where_literal(raw)
    if "." not in path and type(literal) in (int, float):
        return StageOutput(_where_number(input, path, op, literal))
    return StageOutput(_where_tested(input, where_test(op, literal), path_getter(path)))


def _where_number(input: Iterator[Any], key: str, op: str, literal: float) -> Iterator[Any]:
    """The common `field <op> number` filter, inlined: it runs once per item. Closes `input` however it ends
    (as `guarded` would, without a second generator that every item passes through)."""
    fast = _FAST_NUMBER_OPS[op]
    try:
        for item in input:
            value = item.get(key, UNDEFINED) if type(item) is dict else get_key(item, key)
            if fast(value, literal) if type(value) in (int, float) else compare(op, value, literal):
                yield item
    finally:
        item = value = None  # let go of the last item before the stages above free theirs (in arrival order)
        close(input)


def _where_tested(input: Iterator[Any], test: Callable[[Any], bool], getter: Callable[[Any], Any]) -> Iterator[Any]:
    """The items whose value passes `test`; closes `input` however it ends."""
    try:
        for item in input:
            if test(getter(item)):
                yield item
    finally:
        item = None  # let go of the last item before the stages above free theirs (in arrival order)
        close(input)


_FAST_NUMBER_OPS: dict[str, Callable[[Any, Any], bool]] = {
    "==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
}


def where_test(op: str, literal: Any) -> Callable[[Any], bool]:
    """`value <op> literal` with JavaScript semantics; number against number and string (in)equality skip the general path."""
    if type(literal) in (int, float) or (type(literal) is str and op in ("==", "!=")):
        fast, same = _FAST_NUMBER_OPS[op], (int, float) if type(literal) is not str else (str,)
        return lambda value: fast(value, literal) if type(value) in same else compare(op, value, literal)
    return lambda value: compare(op, value, literal)


def run_pick(input: Iterator[Any], args: StageArgs, ctx: RunContext) -> StageOutput:
    spec = args.first()
    fields = [f.strip() for f in spec.split(",") if f.strip()] if spec else []
    if not fields:
        raise CommandError("pick requires a comma-separated field list")
    return StageOutput(mapped(input, functools.partial(_pick, fields)))


def _pick(fields: list[str], item: Any) -> Any:
    if type(item) is dict:
        return {field: item.get(field, UNDEFINED) for field in fields}
    if not isinstance(item, (dict, list)):
        return item
    return {field: get_key(item, field) for field in fields}


def run_head(input: Iterator[Any], args: StageArgs, ctx: RunContext) -> StageOutput:
    given = args.get("n")
    limit = 10 if given is None else to_number(given)
    if math.isnan(limit) or limit < 0:
        raise CommandError("head --n must be a non-negative number")
    return StageOutput(_head(input, limit))


def _head(input: Iterator[Any], limit: float) -> Iterator[Any]:
    count = 0
    try:
        while count < limit:
            item = next(input, UNDEFINED_END)
            if item is UNDEFINED_END:
                return
            count += 1
            yield item
    finally:
        close(input)


UNDEFINED_END = object()


def _sort_compare(a: Any, b: Any) -> int:
    a_missing, b_missing = a is None or a is UNDEFINED, b is None or b is UNDEFINED
    if a_missing or b_missing:
        return int(a_missing) - int(b_missing)
    if is_number(a) and is_number(b):
        return (a > b) - (a < b)  # type: ignore[no-any-return]
    sa, sb = utf16_key(js_string(a)), utf16_key(js_string(b))
    return (sa > sb) - (sa < sb)


def sort_keys(values: list[Any]) -> list[Any]:
    """Keys that order like the reference's comparator: nulls last, numbers numerically, else by String()."""
    if set(map(type, values)) == {str} and all(map(str.isascii, values)):
        return values  # ASCII strings order the same by code point and by UTF-16 code unit
    present = [v for v in values if v is not None and v is not UNDEFINED]
    if all(type(v) is int or (type(v) is float and v == v) for v in present):
        return [(1, 0) if v is None or v is UNDEFINED else (0, v) for v in values]
    if all(type(v) is str for v in present):
        return [(1, b"") if v is None or v is UNDEFINED else (0, utf16_key(v)) for v in values]
    return [functools.cmp_to_key(_sort_compare)(v) for v in values]


def run_sort(input: Iterator[Any], args: StageArgs, ctx: RunContext) -> StageOutput:
    key = args.get("key")
    path = key if isinstance(key, str) and key else ("true" if key is True else None)
    items = drain(input)
    getter = item_getter(path) if path else None
    values = [getter(item) for item in items] if getter else items
    numbers = all(type(v) is int or (type(v) is float and v == v) for v in values)
    keys = values if numbers else sort_keys(values)
    desc = args.truthy("desc")
    if keys is items:  # the items are their own keys: sorted as they are, twice as fast as through indices
        return StageOutput(freed_in_arrival_order(sorted(items, reverse=desc), items))
    order = sorted(range(len(items)), key=keys.__getitem__, reverse=desc)
    return StageOutput(freed_in_arrival_order([items[index] for index in order], items))


def _key_path(args: StageArgs) -> str | None:
    key = args.get("key")
    return "true" if key is True else (key or None)


def identity(value: Any) -> str:
    """A JSON identity as `JSON.stringify` gives it; `undefined` is its own identity."""
    return "\0undefined" if value is UNDEFINED else stringify(value)


_EXACT = 2**53


def identity_key(value: Any) -> Any:
    """A dict key equal for two values exactly when their `identity` texts are equal, cheaper to make.

    Strings are their own key and numbers short of 2**53 theirs (Python's `1 == 1.0` and
    `0.0 == -0.0` are JavaScript's `"1"` and `"0"`); anything else (booleans, NaN, big
    numbers, objects) is keyed by its JSON text, in a tuple so no string can equal it.
    """
    kind = type(value)
    if kind is str or ((kind is int or kind is float) and -_EXACT < value < _EXACT):
        return value
    return ("json", identity(value))


def run_dedupe(input: Iterator[Any], args: StageArgs, ctx: RunContext) -> StageOutput:
    path = _key_path(args)
    getter = item_getter(path) if path else None

    def unique() -> Iterator[Any]:
        seen: set[Any] = set()
        for item in input:
            key = identity_key(getter(item) if getter else item)
            if key not in seen:
                seen.add(key)
                yield item

    return StageOutput(guarded(input, unique()))


def run_group_by(input: Iterator[Any], args: StageArgs, ctx: RunContext) -> StageOutput:
    path = _key_path(args)
    if path is None:
        raise CommandError("groupBy requires --key")
    getter = item_getter(path)
    arrived = drain(input)
    groups = [{"key": getter(items[0]), "items": items, "count": len(items)} for items in _grouped(arrived, path, getter).values()]
    return StageOutput(freed_in_arrival_order(groups, arrived))


def _grouped(items: list[Any], path: str, getter: Callable[[Any], Any]) -> dict[Any, list[Any]]:
    """The items by the `identity_key` of their value at `path`: groups in the order their first item came,
    items in the order they came (so a group's key is its first item's value, `1` or `1.0` as it came)."""
    groups: defaultdict[Any, list[Any]] = defaultdict(list)
    one_key = "." not in path
    for item in items:
        value = item.get(path, UNDEFINED) if one_key and type(item) is dict else getter(item)
        groups[value if type(value) is str else identity_key(value)].append(item)
    return groups
