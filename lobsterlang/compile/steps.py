"""Compile one workflow step: the reference's checks in its order, then the step's IR."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import yaml

from lobsterlang import ir
from lobsterlang.compile import branches, fields, gates, loops, recovery
from lobsterlang.compile.context import Context, Entry, is_map, is_str, value_of
from lobsterlang.compile.ids import SeenIds
from lobsterlang.compile.recompose import LeftOutStepChanged
from lobsterlang.compile.reuse import CompiledStep, StepCache, StepKey, active_cache
from lobsterlang.span import StepIndex
from lobsterlang.syntax.text import is_blank

STEP_KEYS = frozenset(
    {
        "id", "run", "command", "pipeline", "workflow", "workflow_args", "parallel", "for_each",
        "approval", "input", "stdin", "when", "condition", "env", "cwd", "timeout_ms", "retry", "on_error",
    }
)
_STEP_AND_LOOP_KEYS = STEP_KEYS | loops.LOOP_KEYS
_REQUIRES = "requires run, command, pipeline, workflow, parallel, for_each, approval, or input"
_ONLY_ONE = "can only define one of run, command, pipeline, workflow, parallel, or for_each"
_INPUT_EXCLUDES = "input steps cannot define run, command, pipeline, workflow, parallel, or for_each"


def compile_steps(ctx: Context, nodes: list[yaml.Node]) -> tuple[ir.Step, ...]:
    seen = SeenIds()
    cache = active_cache(ctx.path) if ctx.releases_steps else None
    if cache is not None:
        compiled = _compile_reusing(ctx, nodes, seen, cache)
    elif ctx.releases_steps:
        compiled = _compile_releasing(ctx, nodes, seen)
    else:
        compiled = (compile_step(ctx, node, seen) for node in nodes)
    return tuple(step for step in compiled if step is not None)


def _compile_reusing(ctx: Context, nodes: list[Any], seen: SeenIds, cache: StepCache) -> Iterator[ir.Step | None]:
    """`_compile_releasing`, taking from `cache` each step whose text, column and ids before it are unchanged
    (moved to where it stands now), and leaving this compile's steps in it."""
    kept: dict[StepKey, CompiledStep] = {}
    regions: list[tuple[int, int]] = []
    before, reused, document, left_out = 0, 0, ctx.index, cache.left_out
    for i, node in enumerate(nodes):
        nodes[i] = None
        start = node.start_mark.index
        end = left_out.get(start, node.end_mark.index)  # a placeholder (`compile.recompose`) stands for the step
        key = (ctx.text[start:end], node.start_mark.column, before)
        regions.append((start, end))
        done = cache.steps.get(key)
        if done is None:
            if start in left_out:
                raise LeftOutStepChanged
            done = _compile_movable(ctx, node, seen, StepIndex(document, start))
        else:
            done.index.move(document, start)
            ctx.extend(list(done.diagnostics))
            seen.update(done.ids)
            reused += 1
        kept[key] = done
        before = hash((before, done.ids))
        yield done.step
    cache.steps, cache.reused, cache.source, cache.regions = kept, reused, ctx.text, regions


def _compile_movable(ctx: Context, node: yaml.Node, seen: SeenIds, part: StepIndex) -> CompiledStep:
    """Compile one step with every position made through `part`, so that a later compile can move it."""
    mark, first, known, document = ctx.mappings_read, len(ctx.diagnostics), len(seen.order), ctx.index
    ctx.index = part
    try:
        step = compile_step(ctx, node, seen)
    finally:
        ctx.index = document
    ctx.forget_mappings_since(mark)
    return CompiledStep(part, step, tuple(ctx.diagnostics[first:]), tuple(seen.order[known:]))


def _compile_releasing(ctx: Context, nodes: list[Any], seen: SeenIds) -> Iterator[ir.Step | None]:
    """Compile the steps in order, letting go of each step's nodes once its IR is built.

    The IR keeps no node, so a large file's node tree shrinks as its IR grows instead of
    living beside the whole IR until the end (a generated 100k-step file: about 360 MiB less
    at the peak). `nodes` (the document's list) is left holding None: only for callers that
    do not keep the document.
    """
    for i, node in enumerate(nodes):
        nodes[i] = None
        mark = ctx.mappings_read
        yield compile_step(ctx, node, seen)
        ctx.forget_mappings_since(mark)


def compile_step(ctx: Context, node: yaml.Node, seen: SeenIds) -> ir.Step | None:
    """Check one top-level step; `seen` holds the step and branch ids before it."""
    if not isinstance(node, yaml.MappingNode):
        ctx.error("S101", "Workflow step must be an object", node, "write `- id: name` followed by the step's keys")
        return None
    entries = ctx.mapping(node)
    step_id = value_of(entries["id"][1]) if "id" in entries else None
    if not isinstance(step_id, str) or not step_id:
        ctx.error("S102", "Workflow step requires an id", entries["id"][1] if "id" in entries else node, "add `id: <name>`")
        return None
    label = f"Workflow step {step_id}"
    _check_workflow(ctx, label, entries)
    action: ir.Action | None = None
    if "parallel" in entries:
        action = _parallel(ctx, step_id, entries["parallel"], seen)
    if "for_each" in entries:
        action = _for_each(ctx, step_id, entries, node)
    _check_kinds(ctx, label, entries, node)
    gates.check_input(ctx, step_id, entries.get("input"))
    gates.check_identity(ctx, step_id, entries.get("approval"))
    recovery.check_timeout(ctx, label, entries.get("timeout_ms"))
    recovery.check_on_error(ctx, step_id, entries.get("on_error"))
    retry = recovery.retry(ctx, step_id, entries.get("retry"))
    if step_id in seen:
        ctx.error("S120", f"Duplicate workflow step id: {step_id}", entries["id"][1], "step ids must be unique (branch ids included)")
    seen.add(step_id)
    _warnings(ctx, step_id, entries)
    return _build(ctx, node, entries, step_id, action, retry)


def _check_workflow(ctx: Context, label: str, entries: dict[str, Entry]) -> None:
    if "workflow" in entries:
        node = entries["workflow"][1]
        if not is_str(node):
            ctx.error("S103", f"{label} workflow must be a string (file path)", node)
        elif is_blank(value_of(node)):
            ctx.error("S103", f"{label} workflow path cannot be blank", node)
    if "workflow_args" in entries and not is_map(entries["workflow_args"][1]):
        ctx.error("S104", f"{label} workflow_args must be a plain object", entries["workflow_args"][1])


def _parallel(ctx: Context, step_id: str, entry: Entry, seen: SeenIds) -> ir.Parallel | None:
    node = entry[1]
    if not isinstance(node, yaml.MappingNode):
        ctx.error("S105", f"Workflow step {step_id} parallel must be an object", node, "write `parallel: {branches: [...]}`")
        return None
    return branches.parallel(ctx, step_id, node, seen)


def _for_each(ctx: Context, step_id: str, entries: dict[str, Entry], node: yaml.Node) -> ir.ForEach | None:
    if not is_str(entries["for_each"][1]):
        message = f"Workflow step {step_id} for_each must be a string (step reference expression)"
        ctx.error("S108", message, entries["for_each"][1], "write e.g. `for_each: $list.json`")
        return None
    loops.check_loop(ctx, step_id, entries, node)
    return loops.for_each(ctx, step_id, entries, build_sub_step)


def _check_kinds(ctx: Context, label: str, entries: dict[str, Entry], node: yaml.Node) -> None:
    kinds = _kinds(entries)
    approval = "approval" in entries and gates.is_approval(value_of(entries["approval"][1]))
    has_input = "input" in entries and is_map(entries["input"][1])
    if not kinds and not approval and not has_input:
        ctx.error("S110", f"{label} {_REQUIRES}", node, "add `run:`, `pipeline:` or another kind of step")
    if len(kinds) > 1:
        ctx.error("S111", f"{label} {_ONLY_ONE}", entries[kinds[1]][0], "split this into two steps")
    if has_input and kinds:
        ctx.error("S112", f"{label} {_INPUT_EXCLUDES}", entries["input"][0], "put the input request in its own step")
    if approval and has_input:
        ctx.error("S113", f"{label} cannot define both approval and input", entries["input"][0])
    for key in ("run", "command", "pipeline"):
        if key in entries and not is_str(entries[key][1]):
            ctx.error("S114", f"{label} {key} must be a string", entries[key][1])


def _kinds(entries: dict[str, Entry]) -> list[str]:
    """The execution kinds present, with `run` and `command` counting once (run wins)."""
    found: list[str] = []
    for key in ("run", "command"):
        if key in entries and _non_empty_str(entries[key][1]):
            found.append(key)
            break
    if "pipeline" in entries and _non_empty_str(entries["pipeline"][1]):
        found.append("pipeline")
    for key in ("workflow", "parallel", "for_each"):
        if key in entries:
            found.append(key)
    return found


def _non_empty_str(node: yaml.Node) -> bool:
    return is_str(node) and value_of(node) != ""


def _warnings(ctx: Context, step_id: str, entries: dict[str, Entry]) -> None:
    fields.warn_run_and_command(ctx, entries, f"step {step_id}")
    known = _STEP_AND_LOOP_KEYS if "for_each" in entries else STEP_KEYS
    ctx.unknown_keys(entries, known, f"step {step_id}")


def _build(
    ctx: Context, node: yaml.MappingNode, entries: dict[str, Entry], step_id: str,
    action: ir.Action | None, retry: ir.Retry | None,
) -> ir.Step:
    used: set[str] = {"id", "stdin", "timeout_ms", "on_error", "retry", "env", "cwd"}
    if action is None:
        action = _simple_action(ctx, step_id, entries, used)
    elif isinstance(action, ir.Parallel):
        used.add("parallel")
    else:
        used |= loops.LOOP_KEYS
    approval = gates.approval(ctx, step_id, entries.get("approval"))
    request = gates.input_request(ctx, entries.get("input"))
    if approval:
        used.add("approval")
    if request:
        used.add("input")
    when, when_key = fields.condition(ctx, entries)
    if when_key:
        used.add(when_key)
    stdin = fields.stdin(ctx, entries.get("stdin"))
    env = fields.env(ctx, entries.get("env"), f"step {step_id}")
    cwd = fields.cwd(ctx, entries.get("cwd"), f"step {step_id}")
    used -= fields.unbuilt(entries, {"env": env, "cwd": cwd})
    return ir.Step(
        step_id, action, approval, request, stdin, when, when_key,  # type: ignore[arg-type]
        env, cwd, retry,
        value_of(entries["timeout_ms"][1]) if "timeout_ms" in entries else None,
        value_of(entries["on_error"][1]) if "on_error" in entries else None,
        fields.extras(ctx, entries, used),
        ctx.span(node), ctx.span(entries["id"][1]),
    )


def _simple_action(ctx: Context, step_id: str, entries: dict[str, Entry], used: set[str]) -> ir.Action | None:
    for key in ("run", "command", "pipeline"):
        if key in entries and is_str(entries[key][1]):
            used.add(key)
            node = entries[key][1]
            assert isinstance(node, yaml.ScalarNode)
            return fields.pipeline(ctx, step_id, node) if key == "pipeline" else fields.shell(ctx, key, node)
    if "workflow" in entries and is_str(entries["workflow"][1]):
        used |= {"workflow", "workflow_args"}
        return _workflow_call(ctx, entries)
    return None


def _workflow_call(ctx: Context, entries: dict[str, Entry]) -> ir.WorkflowCall:
    path_node = entries["workflow"][1]
    assert isinstance(path_node, yaml.ScalarNode)
    args_node = entries.get("workflow_args", (None, None))[1]
    args = None
    if isinstance(args_node, yaml.MappingNode):
        args = tuple(_workflow_arg(ctx, name, key, value) for name, (key, value) in ctx.mapping(args_node).items())
    return ir.WorkflowCall(fields.template(ctx, path_node), args, ctx.span(path_node))


def _workflow_arg(ctx: Context, name: str, key: yaml.Node, node: yaml.Node) -> ir.WorkflowArg:
    value = value_of(node)
    tpl = fields.template(ctx, node) if isinstance(node, yaml.ScalarNode) and isinstance(value, str) else None
    return ir.WorkflowArg(name, value, tpl, ctx.entry_span(key, node))


def build_sub_step(ctx: Context, node: yaml.MappingNode, entries: dict[str, Entry], sub_id: str) -> ir.Step:
    """The IR of a for_each sub-step (already checked by the loop)."""
    used: set[str] = {"id", "stdin", "env", "cwd"}
    action = _simple_action(ctx, sub_id, {k: v for k, v in entries.items() if k in ("run", "command", "pipeline")}, used)
    gates.check_input(ctx, sub_id, entries.get("input"))
    gates.check_identity(ctx, sub_id, entries.get("approval"))
    approval = gates.approval(ctx, sub_id, entries.get("approval"))
    request = gates.input_request(ctx, entries.get("input"))
    used |= {key for key, built in (("approval", approval), ("input", request)) if built}
    when, when_key = fields.condition(ctx, entries)
    if when_key:
        used.add(when_key)
    stdin = fields.stdin(ctx, entries.get("stdin"))
    env = fields.env(ctx, entries.get("env"), f"sub-step {sub_id}")
    cwd = fields.cwd(ctx, entries.get("cwd"), f"sub-step {sub_id}")
    used -= fields.unbuilt(entries, {"env": env, "cwd": cwd})
    return ir.Step(
        sub_id, action, approval, request, stdin, when, when_key,  # type: ignore[arg-type]
        env, cwd, None, None, None, fields.extras(ctx, entries, used), ctx.span(node), ctx.span(entries["id"][1]),
    )
