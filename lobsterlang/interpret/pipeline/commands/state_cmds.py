"""State commands: `state.get`, `state.set` and `diff.last` (values kept in the state directory)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from lobsterlang.interpret.errors import CommandError
from lobsterlang.interpret.pipeline.args import StageArgs
from lobsterlang.interpret.pipeline.runtime import RunContext, StageOutput
from lobsterlang.interpret.pipeline.streams import drain
from lobsterlang.interpret.statefiles import CorruptState
from lobsterlang.interpret.values import stringify, to_json_data


def _collected(items: list[Any]) -> Any:
    return items[0] if len(items) == 1 else items


def run_state_get(input: Iterator[Any], args: StageArgs, ctx: RunContext) -> StageOutput:
    key = args.first()
    if not key:
        raise CommandError("state.get requires a key")
    try:
        value = ctx.store.read(key)
    except CorruptState as exc:
        raise CommandError(str(exc)) from None
    return StageOutput([value])


def run_state_set(input: Iterator[Any], args: StageArgs, ctx: RunContext) -> StageOutput:
    key = args.first()
    if not key:
        raise CommandError("state.set requires a key")
    value = to_json_data(_collected(drain(input)))
    ctx.store.write(key, value)
    return StageOutput([value])


def run_diff_last(input: Iterator[Any], args: StageArgs, ctx: RunContext) -> StageOutput:
    key = args.text("key") or args.first()
    if not key:
        raise CommandError("diff.last requires --key")
    after = to_json_data(_collected(drain(input)))
    try:
        before = ctx.store.read(key)
    except CorruptState:  # as the reference: a snapshot that is not JSON is no snapshot, and is replaced
        before = None
    changed = stringify(before, sort_keys=True) != stringify(after, sort_keys=True)
    ctx.store.write(key, after)
    return StageOutput([{"kind": "diff.last", "key": key, "changed": changed, "before": before, "after": after}])
