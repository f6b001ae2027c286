"""Checks and IR for `for_each:` steps and their sub-steps."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import yaml

from lobsterlang import ir
from lobsterlang.compile import fields
from lobsterlang.compile.branches import exec_keys
from lobsterlang.compile.context import Context, Entry, is_map, is_seq, is_str, value_of
from lobsterlang.compile.gates import is_approval
from lobsterlang.compile.recovery import is_finite_non_negative, is_int

LOOP_KEYS: frozenset[str] = frozenset({"for_each", "steps", "item_var", "index_var", "batch_size", "pause_ms"})
SUB_STEP_KEYS = frozenset({"id", "run", "command", "pipeline", "env", "cwd", "stdin", "when", "condition", "approval", "input"})
_SUB_EXEC = ("run", "command", "pipeline")
_IGNORED_IN_SUB_STEPS = frozenset({"retry", "timeout_ms", "on_error"})

BuildStep = Callable[[Context, yaml.MappingNode, dict[str, Entry], str], ir.Step]


def check_loop(ctx: Context, step_id: str, entries: dict[str, Entry], node: yaml.Node) -> None:
    """The loop-level checks of the reference, in its order."""
    label = f"Workflow step {step_id}"
    steps_node = entries.get("steps", (node, node))[1]
    if not (is_seq(steps_node) and steps_node.value):
        ctx.error("S108", f"{label} for_each requires a non-empty steps array", steps_node, "add `steps:` to run for each item")
    _check_number(ctx, entries, "batch_size", lambda v: is_int(v) and v >= 1, f"{label} batch_size must be a positive integer")
    _check_number(ctx, entries, "pause_ms", is_finite_non_negative, f"{label} pause_ms must be a finite non-negative number")
    if "approval" in entries and is_approval(value_of(entries["approval"][1])):
        ctx.error("S108", f"{label} for_each steps cannot define approval (use a separate step after the loop)", entries["approval"][0])
    if "input" in entries:
        ctx.error("S108", f"{label} for_each steps cannot define input (use a separate step after the loop)", entries["input"][0])
    if "stdin" in entries and value_of(entries["stdin"][1]) is not None:
        ctx.error("S108", f"{label} for_each steps cannot define stdin (loop input comes from the for_each expression)", entries["stdin"][0])
    clash = [k for k in ("run", "command", "pipeline", "workflow", "parallel") if k in entries]
    if clash:
        ctx.error("S108", f"{label} for_each cannot also define run, command, pipeline, workflow, or parallel", entries[clash[0]][0])
    for key in ("item_var", "index_var"):
        if key in entries and not isinstance(value_of(entries[key][1]), str):
            ctx.error("S108", f"{label} {key} must be a string", entries[key][1])
    item, index = loop_vars(entries)
    if item == index:
        ctx.error("S108", f"{label} item_var and index_var cannot be the same", entries.get("index_var", entries.get("item_var", (node, node)))[1])


def _check_number(ctx: Context, entries: dict[str, Entry], key: str, test: Callable[[Any], bool], message: str) -> None:
    if key in entries and not test(value_of(entries[key][1])):
        ctx.error("S108", message, entries[key][1])


def loop_vars(entries: dict[str, Entry]) -> tuple[str, str]:
    item = value_of(entries["item_var"][1]) if "item_var" in entries else "item"
    index = value_of(entries["index_var"][1]) if "index_var" in entries else "index"
    return (item if isinstance(item, str) else "item"), (index if isinstance(index, str) else "index")


def for_each(ctx: Context, step_id: str, entries: dict[str, Entry], build: BuildStep) -> ir.ForEach:
    """Build the loop IR; sub-steps are checked and built with `build` (the step compiler)."""
    source_node = entries["for_each"][1]
    source = fields.stdin(ctx, entries["for_each"])
    assert source is not None
    item, index = loop_vars(entries)
    steps_node = entries.get("steps", (source_node, source_node))[1]
    subs: list[ir.Step] = []
    if is_seq(steps_node):
        seen: set[str] = set()
        for node in steps_node.value:
            sub = _sub_step(ctx, step_id, node, (item, index), seen, build)
            if sub is not None:
                subs.append(sub)
    return ir.ForEach(
        source,
        _str_or_none(entries.get("item_var")),
        _str_or_none(entries.get("index_var")),
        value_of(entries["batch_size"][1]) if "batch_size" in entries else None,
        value_of(entries["pause_ms"][1]) if "pause_ms" in entries else None,
        tuple(subs),
        ctx.span(source_node),
    )


def _str_or_none(entry: Entry | None) -> str | None:
    value = value_of(entry[1]) if entry is not None else None
    return value if isinstance(value, str) else None


def _sub_step(
    ctx: Context, step_id: str, node: yaml.Node, loop_vars: tuple[str, str], seen: set[str], build: BuildStep
) -> ir.Step | None:
    label = f"Workflow step {step_id}"
    entries = ctx.mapping(node) if isinstance(node, yaml.MappingNode) else {}
    sub_id = value_of(entries["id"][1]) if "id" in entries else None
    if not is_map(node) or not isinstance(sub_id, str) or not sub_id:
        ctx.error("S109", f"{label} for_each sub-step requires an id", entries["id"][1] if "id" in entries else node)
        return None
    where = entries["id"][1]
    if sub_id in loop_vars:
        ctx.error("S109", f"{label} for_each sub-step id '{sub_id}' conflicts with loop variable", where)
    elif sub_id in seen:
        ctx.error("S109", f"{label} duplicate for_each sub-step id: {sub_id}", where)
    seen.add(sub_id)
    _check_sub_kinds(ctx, f"{label} for_each sub-step {sub_id}", label, entries, node)
    fields.warn_run_and_command(ctx, entries, f"for_each sub-step {sub_id}")
    for key in [k for k in entries if k in _IGNORED_IN_SUB_STEPS]:
        ctx.warning("W009", f"`{key}` on for_each sub-step {sub_id} is ignored by the runtime (put it on the loop step {step_id})",
                    entries[key][0])
    assert isinstance(node, yaml.MappingNode)
    checked_elsewhere = frozenset({"approval", "input", "workflow", "parallel", "for_each"}) | _IGNORED_IN_SUB_STEPS
    ctx.unknown_keys(entries, SUB_STEP_KEYS | checked_elsewhere, f"for_each sub-step {sub_id}")
    return build(ctx, node, entries, sub_id)


def _check_sub_kinds(ctx: Context, label: str, loop_label: str, entries: dict[str, Entry], node: yaml.Node) -> None:
    """The sub-step checks of the reference, in its order, except that an `approval:` or `input:` sub-step is a gate
    asked once per item (the reference refuses it); an `input:` sub-step runs no command."""
    gate = "input" in entries or ("approval" in entries and is_approval(value_of(entries["approval"][1])))
    for key in _SUB_EXEC:
        if key in entries and not is_str(entries[key][1]):
            ctx.error("S109", f"{label} {key} must be a string", entries[key][1])
    nested = [k for k in ("workflow", "parallel", "for_each") if k in entries]
    if nested:
        ctx.error("S109", f"{label} cannot define workflow, parallel, or for_each", entries[nested[0]][0])
    present = exec_keys(entries, lambda n: is_str(n) and bool(str(value_of(n)).strip()))
    if "input" in entries and present:
        ctx.error("S109", f"{label} cannot define both input and {present[0]}", entries[present[0]][0],
                  "ask in its own sub-step, then run the command in the next one")
    elif not present and not gate:
        ctx.error("S109", f"{label} requires run, command, or pipeline", node)
    elif len(present) > 1:
        ctx.error("S109", f"{label} can only define one of run, command, or pipeline", entries[present[1]][0])
