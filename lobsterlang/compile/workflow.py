"""Compile a whole workflow file: top-level fields, `args`, `cost_limit`, then every step."""

from __future__ import annotations

import yaml

from lobsterlang import ir
from lobsterlang.compile import fields
from lobsterlang.compile.context import Context, Entry, is_map, is_seq, value_of
from lobsterlang.compile.gatefields import check_gate_fields
from lobsterlang.compile.recovery import js_number
from lobsterlang.compile.steps import compile_steps
from lobsterlang.syntax.comments import find_comments

TOP_KEYS = frozenset({"name", "description", "args", "env", "cwd", "steps", "cost_limit"})
ARG_KEYS = frozenset({"default", "description", "required", "type"})
COST_KEYS = frozenset({"max_usd", "action"})


def compile_document(ctx: Context, root: yaml.Node | None) -> ir.Workflow | None:
    """Check the document in the reference's order; None when there is no usable workflow."""
    if not isinstance(root, yaml.MappingNode):
        _not_a_mapping(ctx, root)
        return None
    entries = ctx.mapping(root)
    steps_node = entries.get("steps", (root, root))[1]
    has_steps = is_seq(steps_node) and bool(steps_node.value)
    if not has_steps:
        hint = "add `steps:` with at least one step, e.g. `- id: hello` / `run: echo hi`"
        ctx.error("S002", "Workflow file requires a non-empty steps array", steps_node, hint)
    cost = _cost_limit(ctx, entries.get("cost_limit"))
    # Before the steps: compiling them may release their nodes (Context.releases_steps).
    comments = find_comments(root, ctx.text, ctx.index) if not ctx.is_json else ()
    steps = compile_steps(ctx, steps_node.value) if has_steps else ()
    ctx.unknown_keys(entries, TOP_KEYS, "the workflow")
    args = _args(ctx, entries.get("args"))
    env = fields.env(ctx, entries.get("env"), "workflow")
    cwd = fields.cwd(ctx, entries.get("cwd"), "workflow")
    check_gate_fields(ctx, steps, env)
    dropped = fields.unbuilt(entries, {"args": args, "env": env, "cwd": cwd})
    return ir.Workflow(
        ctx.path,
        value_of(entries["name"][1]) if "name" in entries else None,
        value_of(entries["description"][1]) if "description" in entries else None,
        args,
        env,
        cwd,
        cost,
        steps,
        fields.extras(ctx, entries, TOP_KEYS - dropped),
        comments,
        ctx.span(root),
    )


def _not_a_mapping(ctx: Context, root: yaml.Node | None) -> None:
    where = root if root is not None else ctx.index.span(0, 0)
    if isinstance(root, yaml.SequenceNode):
        hint = "put the list under a `steps:` key"
        ctx.error("S002", "Workflow file requires a non-empty steps array", where, hint)
    else:
        hint = "a workflow file is a mapping with a `steps:` list"
        ctx.error("S001", "Workflow file must be a JSON/YAML object", where, hint)


def _cost_limit(ctx: Context, entry: Entry | None) -> ir.CostLimit | None:
    if entry is None:
        return None
    node = entry[1]
    value = value_of(node)
    if not is_map(node):
        ctx.error("S003", "Workflow cost_limit must be an object", node, "write `cost_limit: {max_usd: 1.5}`")
        return ir.CostLimit(value, None, None, ctx.span(node))
    entries = ctx.mapping(node)  # type: ignore[arg-type]
    max_usd = value.get("max_usd")
    number = js_number(max_usd) if "max_usd" in value else None
    if number is None or number != number or number in (float("inf"), float("-inf")) or number < 0:
        ctx.error("S003", "Workflow cost_limit.max_usd must be a non-negative number", entries.get("max_usd", (node, node))[1])
    action = value.get("action")
    if "action" in value and action not in ("warn", "stop"):
        ctx.error("S003", 'Workflow cost_limit.action must be "warn" or "stop"', entries["action"][1])
    ctx.unknown_keys(entries, COST_KEYS, "cost_limit")
    return ir.CostLimit(value, max_usd, action, ctx.span(node))


def _args(ctx: Context, entry: Entry | None) -> tuple[ir.ArgDecl, ...] | None:
    if entry is None:
        return None
    node = entry[1]
    if not is_map(node):
        ctx.warning("W012", "args is not a mapping; the runtime ignores it", node, "write `args: {name: {default: ...}}`")
        return None
    return tuple(_arg(ctx, name, key, value) for name, (key, value) in ctx.mapping(node).items())  # type: ignore[arg-type]


def _arg(ctx: Context, name: str, key: yaml.Node, node: yaml.Node) -> ir.ArgDecl:
    value = value_of(node)
    span, name_span = ctx.entry_span(key, node), ctx.span(key)
    if not isinstance(value, dict):
        hint = f"write `{name}: {{default: ...}}`"
        ctx.warning("W012", f"arg {name} is not a mapping; the runtime ignores it", node, hint)
        return ir.ArgDecl(name, value, None, False, None, None, span, name_span)
    ctx.unknown_keys(ctx.mapping(node), ARG_KEYS, f"arg {name}")  # type: ignore[arg-type]
    return ir.ArgDecl(
        name, value, value.get("default"), "default" in value,
        value.get("description"), value.get("required"), span, name_span,
    )
