"""Builders for the fields many constructs share: templates, env, cwd, stdin, when, pipeline."""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from typing import Any

import yaml

from lobsterlang import ir
from lobsterlang.compile.context import Context, Entry, is_str, value_of
from lobsterlang.record import replace
from lobsterlang.syntax.expr import parse_condition, parse_template, whole_ref
from lobsterlang.syntax.pipeline import parse_pipeline


def template(ctx: Context, node: yaml.ScalarNode, *, step_refs: bool = True) -> ir.Template:
    return parse_template(node.value, ctx.locator(node), step_refs=step_refs)


def extras(ctx: Context, entries: dict[str, Entry], known: AbstractSet[str]) -> tuple[ir.Extra, ...]:
    """Keep the entries the runtime ignores, so nothing written in the file is lost."""
    if entries.keys() <= known:
        return ()
    return tuple(
        ir.Extra(key, value_of(value), ctx.entry_span(key_node, value))
        for key, (key_node, value) in entries.items()
        if key not in known
    )


def unbuilt(entries: dict[str, Entry], built: dict[str, object]) -> set[str]:
    """Keys present in the file whose IR is None (not the shape the runtime uses).

    Leaving them out of the known keys keeps them as extras, so nothing written is lost.
    """
    dropped = set()
    for key, value in built.items():
        if value is None and key in entries:
            dropped.add(key)
    return dropped


def env(ctx: Context, entry: Entry | None, where: str) -> tuple[ir.EnvVar, ...] | None:
    """`env:` entries; non-string values are kept but flagged, as the runtime drops them."""
    if entry is None:
        return None
    node = entry[1]
    if not isinstance(node, yaml.MappingNode):
        hint = "write a mapping of NAME: value"
        ctx.warning("W004", f"{where} env is not a mapping; the runtime does not apply it as written", node, hint)
        return None
    out = []
    for name, (name_node, value_node) in ctx.mapping(node).items():
        value = value_of(value_node)
        tpl = template(ctx, value_node) if isinstance(value_node, yaml.ScalarNode) and isinstance(value, str) else None
        if tpl is None:
            hint = f'quote it: {name}: "{_plain(value)}"'
            ctx.warning("W003", f"env value of {name} is not a string; the runtime drops it", value_node, hint)
        out.append(ir.EnvVar(name, value, tpl, ctx.entry_span(name_node, value_node), ctx.span(name_node)))
    return tuple(out)


def _plain(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


def cwd(ctx: Context, entry: Entry | None, where: str) -> ir.Template | None:
    """`cwd:`: only `${arg}` is substituted in it, never `$step` references."""
    if entry is None:
        return None
    node = entry[1]
    if not is_str(node):
        ctx.warning("W005", f"{where} cwd is not a string; the runtime ignores it", node, "write a directory path")
        return None
    assert isinstance(node, yaml.ScalarNode)
    return template(ctx, node, step_refs=False)


def stdin(ctx: Context, entry: Entry | None) -> ir.Stdin | None:
    """`stdin:`: a single reference passes data; other text is a template; the rest is JSON."""
    if entry is None:
        return None
    node = entry[1]
    span = ctx.span(node)
    if not is_str(node):
        return ir.StdinValue(value_of(node), span)
    assert isinstance(node, yaml.ScalarNode)
    ref = whole_ref(node.value, ctx.locator(node))
    if ref is not None:
        return ir.StdinRef(ref, node.value, span)
    return ir.StdinTemplate(template(ctx, node), span)


def condition(ctx: Context, entries: dict[str, Entry]) -> tuple[ir.Condition | None, str | None]:
    """`when` (preferred) or `condition`; the first one that is not null is used."""
    for key in ("when", "condition"):
        entry = entries.get(key)
        if entry is None:
            continue
        node = entry[1]
        value = value_of(node)
        if value is None:
            continue
        locate = ctx.locator(node) if isinstance(node, yaml.ScalarNode) and isinstance(value, str) else None
        cond, problems = parse_condition(value, ctx.span(node), locate)
        if problems and isinstance(node, yaml.ScalarNode) and node.tag.startswith("!"):
            hint = f"quote the condition: YAML reads a leading `!` as a tag, e.g. `{key}: '{node.tag}'`"
            problems = [replace(p, hint=hint) for p in problems]
        ctx.extend(problems)
        if key == "when" and "condition" in entries:
            hint = "remove `condition`; `when` takes precedence"
            ctx.warning("W006", "`condition` is ignored because `when` is set", entries["condition"][0], hint)
        return cond, key
    return None, None


def pipeline(ctx: Context, step_id: str, node: yaml.ScalarNode) -> ir.PipelineRun:
    """Parse `pipeline:` text; words embedding references get templates."""
    locate = ctx.locator(node)
    parsed, problems = parse_pipeline(node.value, locate, templates=True)
    ctx.extend(problems)
    error = f"Workflow step {step_id} pipeline parse failed: {problems[0].message}" if problems else None
    return ir.PipelineRun(parse_template(node.value, locate), parsed, error, ctx.span(node))


def warn_run_and_command(ctx: Context, entries: dict[str, Entry], label: str) -> None:
    """Both `run` and `command` as strings: the reference runs `run` and ignores `command`."""
    if is_str(entries.get("run", (None, None))[1]) and is_str(entries.get("command", (None, None))[1]):
        ctx.warning("W002", f"{label} has both run and command; command is ignored", entries["command"][0], "remove one of them")


def shell(ctx: Context, key: str, node: yaml.ScalarNode) -> ir.ShellRun:
    assert key in ("run", "command")
    return ir.ShellRun(key, template(ctx, node), ctx.span(node))  # type: ignore[arg-type]
