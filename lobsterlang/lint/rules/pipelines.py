"""L2xx: pipeline stages the reference rejects or misreads: commands, flags, arguments, `where`."""

from __future__ import annotations

import re
from collections.abc import Iterator
from difflib import get_close_matches

from lobsterlang import ir
from lobsterlang.commands.specs import BY_NAME, CommandSpec, command
from lobsterlang.diagnostics import Diagnostic, Severity
from lobsterlang.lint.context import LintContext
from lobsterlang.lint.effects import positionals
from lobsterlang.lint.registry import rule

WHERE_RE = re.compile(r"^([a-zA-Z0-9_.]+)\s*(==|=|!=|<=|>=|<|>)\s*(.+)$", re.DOTALL)
_GROUP_BY_SPELLINGS = frozenset({"group_by", "group-by", "groupby", "Group_by", "GroupBy"})


def all_stages(ctx: LintContext) -> Iterator[ir.Stage]:
    for pipeline, _ in ctx.pipelines():
        yield from pipeline.stages


def known_stages(ctx: LintContext) -> Iterator[tuple[ir.Stage, CommandSpec]]:
    for stage in all_stages(ctx):
        spec = command(stage.name.value)
        if spec is not None:
            yield stage, spec


def _templated(word: ir.Word) -> bool:
    return word.template is not None


@rule("L201", "unknown-command", Severity.ERROR, "a pipeline stage names a command that does not exist")
def unknown_command(ctx: LintContext) -> Iterator[Diagnostic]:
    for stage in all_stages(ctx):
        name = stage.name.value
        if command(name) or _templated(stage.name) or name in _GROUP_BY_SPELLINGS:
            continue
        close = get_close_matches(name, list(BY_NAME), n=1, cutoff=0.6)
        hint = f"did you mean `{close[0]}`?" if close else "`lobster help` lists the commands (`commands.list` in a pipeline)"
        yield ctx.diag("L201", stage.name.span, f"unknown command `{name}`", hint)


def _flags(stage: ir.Stage) -> Iterator[ir.Flag]:
    return (arg for arg in stage.args if isinstance(arg, ir.Flag))


@rule("L202", "unknown-flag", Severity.ERROR, "a flag that the command does not accept")
def unknown_flag(ctx: LintContext) -> Iterator[Diagnostic]:
    for stage, spec in known_stages(ctx):
        names = [n for f in spec.flags for n in (f.name, *f.aliases)]
        for flag in _flags(stage):
            if spec.flag(flag.name) is None:
                close = get_close_matches(flag.name, names, n=1)
                hint = f"did you mean `--{close[0]}`?" if close else f"`lobster help {spec.name}` lists its flags"
                yield ctx.diag("L202", flag.name_span, f"`{spec.name}` has no flag `--{flag.name}`; the command ignores it", hint)


def swallowed(stage: ir.Stage, spec: CommandSpec) -> list[ir.Flag]:
    """Boolean flags written bare whose next word was taken as their value."""
    out = []
    for flag in _flags(stage):
        known = spec.flag(flag.name)
        if known and known.kind == "bool" and flag.style == "separate" and flag.value and flag.value.value not in ("true", "false"):
            out.append(flag)
    return out


def _given(stage: ir.Stage, spec: CommandSpec, name: str) -> bool:
    wanted = spec.flag(name)
    if wanted is not None and any(spec.flag(f.name) is wanted for f in _flags(stage)):
        return True
    return any(p.name == name for p in spec.positionals) and bool(positionals(stage))


def _missing(stage: ir.Stage, spec: CommandSpec) -> list[str]:
    missing = [f"--{f.name}" for f in spec.flags if f.required and not _given(stage, spec, f.name)]
    missing += [p.name for p in spec.positionals if p.required and not positionals(stage)]
    if spec.requires_one_of and not any(_given(stage, spec, n) for n in spec.requires_one_of):
        missing.append(" or ".join(_label(spec, n) for n in spec.requires_one_of))
    return missing


def _label(spec: CommandSpec, name: str) -> str:
    return f"--{name}" if spec.flag(name) else f"<{name}>"


@rule("L203", "missing-argument", Severity.ERROR, "a command is missing a required flag or positional argument")
def missing_argument(ctx: LintContext) -> Iterator[Diagnostic]:
    for stage, spec in known_stages(ctx):
        if swallowed(stage, spec):
            continue
        for what in _missing(stage, spec):
            example = f"; for example `{spec.examples[0]}`" if spec.examples else ""
            yield ctx.diag("L203", stage.name.span, f"`{spec.name}` requires {what}", f"add {what}{example}")


@rule("L204", "bare-flag-swallows-argument", Severity.ERROR,
      "a bare boolean flag followed by a word takes that word as its value", fixable=True)
def bare_flag_swallows(ctx: LintContext) -> Iterator[Diagnostic]:
    for stage, spec in known_stages(ctx):
        for flag in swallowed(stage, spec):
            assert flag.value is not None
            fix = ctx.replace(flag.name_span, f"--{flag.name}", f"--{flag.name}=true", f"write --{flag.name}=true")
            yield ctx.diag(
                "L204", flag.span,
                f"`--{flag.name}` is a boolean flag, but the reference takes the next word `{flag.value.value}` as its value",
                f"write `--{flag.name}=true` (or move the flag after the arguments)", fix,
            )


@rule("L205", "invalid-where", Severity.ERROR, "a `where` expression the reference cannot parse")
def invalid_where(ctx: LintContext) -> Iterator[Diagnostic]:
    for stage in all_stages(ctx):
        if stage.name.value != "where":
            continue
        words = positionals(stage)
        if not words or _templated(words[0]) or WHERE_RE.match(words[0].value):
            continue
        joined = " ".join(w.value for w in words)
        if len(words) > 1 and WHERE_RE.match(joined):
            hint = f"quote the whole expression: `where '{joined}'`; only the first word `{words[0].value}` is used"
        else:
            hint = "write `field=value` or `field OP value` with OP one of == = != < <= > >= (e.g. `where 'count>2'`)"
        yield ctx.diag("L205", words[0].span, f"Invalid where expression: {words[0].value}", hint)


@rule("L206", "approve-in-pipeline-step", Severity.ERROR, "`approve` inside a workflow's `pipeline:` step")
def approve_in_pipeline_step(ctx: LintContext) -> Iterator[Diagnostic]:
    for pipeline, unit in ctx.pipelines():
        if unit is None or unit.kind != "step":
            continue
        for stage in pipeline.stages:
            if stage.name.value == "approve":
                yield ctx.diag(
                    "L206", stage.name.span,
                    f"`approve` inside pipeline step `{unit.id}` stops the run with an error instead of asking",
                    "end the pipeline before `approve` and add a separate step with `approval:` and `stdin: $" + unit.id + ".json`",
                )


@rule("L207", "group-by-spelling", Severity.ERROR, "`group_by` is spelled `groupBy`", fixable=True)
def group_by_spelling(ctx: LintContext) -> Iterator[Diagnostic]:
    for stage in all_stages(ctx):
        if stage.name.value in _GROUP_BY_SPELLINGS and not _templated(stage.name):
            fix = ctx.replace(stage.name.span, stage.name.value, "groupBy", "rename to groupBy")
            yield ctx.diag("L207", stage.name.span, f"unknown command `{stage.name.value}`: the command is `groupBy`",
                           "write `groupBy --key <path>`", fix)
