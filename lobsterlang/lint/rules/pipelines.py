"""L2xx: pipeline stages the reference rejects or misreads: commands, flags, arguments, `where`."""

from __future__ import annotations

import re
from collections.abc import Iterator
from difflib import get_close_matches

from lobsterlang import ir
from lobsterlang.commands.specs import BY_NAME, CommandSpec, FlagSpec
from lobsterlang.diagnostics import Diagnostic, Severity
from lobsterlang.lint.context import LintContext
from lobsterlang.lint.effects import flags, positionals
from lobsterlang.lint.registry import rule
from lobsterlang.suggest import closest

WHERE_RE = re.compile(r"^([a-zA-Z0-9_.]+)\s*(==|=|!=|<=|>=|<|>)\s*(.+)$", re.DOTALL)
_GROUP_BY_SPELLINGS = frozenset({"group_by", "group-by", "groupby", "Group_by", "GroupBy"})


class _Table:
    """What the rules look up in one command's spec, worked out once per process."""

    def __init__(self, spec: CommandSpec) -> None:
        self.flags: dict[str, FlagSpec] = {}
        """Each flag by its name and by each alias (the first flag that has one wins)."""
        for flag in spec.flags:
            for name in (flag.name, *flag.aliases):
                self.flags.setdefault(name, flag)
        self.has_bool = any(f.kind == "bool" for f in spec.flags)
        self.required_flags = tuple(f.name for f in spec.flags if f.required)
        self.required_positionals = [p.name for p in spec.positionals if p.required]
        self.positional_names = frozenset(p.name for p in spec.positionals)
        self.has_requirements = bool(self.required_flags or self.required_positionals or spec.requires_one_of)


_TABLES = {name: _Table(spec) for name, spec in BY_NAME.items()}


def _templated(word: ir.Word) -> bool:
    return word.template is not None


_DECLARE = ("if a Lobster fork or host provides it, declare it in the lint configuration: `extra-commands = [\"{name}\"]` "
            "under `[tool.lobster.lint]` (`[lint]` in .lobster.toml); `lobster help` lists the commands")


@rule("L201", "unknown-command", Severity.ERROR, "a pipeline stage names a command that does not exist", per_step=True)
def unknown_command(ctx: LintContext) -> Iterator[Diagnostic]:
    """A near-typo of a command (`sortt`) is an error; a name far from every command (`mail.search`, `copilot`) is
    a warning that says how to declare the commands of a Lobster fork or host (`Config.extensions`)."""
    if len(ctx.known_stages) == len(ctx.stages):
        return
    for stage in ctx.stages:
        name = stage.name.value
        if name in BY_NAME or _templated(stage.name) or name in _GROUP_BY_SPELLINGS or ctx.extensions.command(name) is not None:
            continue
        close = closest(name, BY_NAME)
        message = f"unknown command `{name}`"
        if close is not None:
            yield ctx.diag("L201", stage.name.span, message, f"did you mean `{close}`?")
        else:
            yield Diagnostic("L201", Severity.WARNING, message, stage.name.span, None, _DECLARE.format(name=name))


Known = tuple[ir.Stage, CommandSpec, _Table, list[ir.Flag]]


def known_stages(ctx: LintContext) -> tuple[Known, ...]:
    """Each stage of a standard command with its spec, the spec's table and the stage's flags (shared by L202-L204)."""
    return tuple([(stage, spec, _TABLES[spec.name], flags(stage)) for stage, spec in ctx.known_stages])


_UNKNOWN_FLAG = {
    "lobsterlang": "lobsterlang refuses the pipeline before any stage runs",
    "reference": "the reference CLI ignores it",
}
"""What each target runtime does with a flag its command does not take (`interpret.pipeline.stages.check_flags`)."""


@rule("L202", "unknown-flag", Severity.ERROR, "a flag that the command does not accept", per_step=True)
def unknown_flag(ctx: LintContext) -> Iterator[Diagnostic]:
    yield from _declared_flags(ctx)
    effect = _UNKNOWN_FLAG[ctx.target]
    for _, spec, table, given in ctx.shared(known_stages):
        for flag in given:
            if flag.name not in table.flags:
                names = [n for f in spec.flags for n in (f.name, *f.aliases)]
                close = get_close_matches(flag.name, names, n=1)
                hint = f"did you mean `--{close[0]}`?" if close else f"`lobster help {spec.name}` lists its flags"
                yield ctx.diag("L202", flag.name_span, f"`{spec.name}` has no flag `--{flag.name}`; {effect}", hint)


def _declared_flags(ctx: LintContext) -> Iterator[Diagnostic]:
    """Flags a command declared with its flags (`command-flags`) does not take."""
    if not ctx.extensions.command_flags:
        return
    for stage in ctx.stages:
        accepted = ctx.extensions.command(stage.name.value) if stage.name.value not in BY_NAME else None
        if accepted is None or "*" in accepted:
            continue
        for flag in flags(stage):
            if flag.name not in accepted:
                close = closest(flag.name, accepted)
                hint = f"did you mean `--{close}`?" if close else f"`command-flags` in the lint configuration lists its flags: {', '.join(accepted) or 'none'}"
                yield ctx.diag("L202", flag.name_span, f"`{stage.name.value}` has no flag `--{flag.name}`", hint)


def swallowed(table: _Table, given: list[ir.Flag]) -> list[ir.Flag]:
    """Boolean flags written bare whose next word was taken as their value (`given`: a stage's flags)."""
    out: list[ir.Flag] = []
    if not table.has_bool:
        return out
    for flag in given:
        if flag.style == "separate" and flag.value and flag.value.value not in ("true", "false"):
            known = table.flags.get(flag.name)
            if known is not None and known.kind == "bool":
                out.append(flag)
    return out


def _given(table: _Table, given: list[ir.Flag], words: list[ir.Word], name: str) -> bool:
    """Whether flag or positional `name` is given (`given` and `words`: the stage's flags and positionals)."""
    wanted = table.flags.get(name)
    if wanted is not None:
        for flag in given:
            if table.flags.get(flag.name) is wanted:
                return True
    return name in table.positional_names and bool(words)


def _missing(stage: ir.Stage, spec: CommandSpec, table: _Table, given: list[ir.Flag]) -> list[str]:
    words = positionals(stage)
    missing = [f"--{n}" for n in table.required_flags if not _given(table, given, words, n)] if table.required_flags else []
    if not words:
        missing += table.required_positionals
    if spec.requires_one_of and not any(_given(table, given, words, n) for n in spec.requires_one_of):
        missing.append(" or ".join(_label(spec, n) for n in spec.requires_one_of))
    return missing


def _label(spec: CommandSpec, name: str) -> str:
    return f"--{name}" if name in _TABLES[spec.name].flags else f"<{name}>"


@rule("L203", "missing-argument", Severity.ERROR, "a command is missing a required flag or positional argument", per_step=True)
def missing_argument(ctx: LintContext) -> Iterator[Diagnostic]:
    for stage, spec, table, given in ctx.shared(known_stages):
        missing = _missing(stage, spec, table, given) if table.has_requirements else None
        if not missing or swallowed(table, given):
            continue
        for what in missing:
            example = f"; for example `{spec.examples[0]}`" if spec.examples else ""
            yield ctx.diag("L203", stage.name.span, f"`{spec.name}` requires {what}", f"add {what}{example}")


@rule("L204", "bare-flag-swallows-argument", Severity.ERROR,
      "a bare boolean flag followed by a word takes that word as its value", fixable=True, per_step=True)
def bare_flag_swallows(ctx: LintContext) -> Iterator[Diagnostic]:
    for _, _, table, given in ctx.shared(known_stages):
        for flag in swallowed(table, given):
            assert flag.value is not None
            fix = ctx.replace(flag.name_span, f"--{flag.name}", f"--{flag.name}=true", f"write --{flag.name}=true")
            yield ctx.diag(
                "L204", flag.span,
                f"`--{flag.name}` is a boolean flag, but the reference takes the next word `{flag.value.value}` as its value",
                f"write `--{flag.name}=true` (or move the flag after the arguments)", fix,
            )


@rule("L205", "invalid-where", Severity.ERROR, "a `where` expression the reference cannot parse", per_step=True)
def invalid_where(ctx: LintContext) -> Iterator[Diagnostic]:
    for stage in ctx.stages_by_name.get("where", ()):
        words = positionals(stage)
        if not words or _templated(words[0]) or WHERE_RE.match(words[0].value):
            continue
        joined = " ".join(w.value for w in words)
        if len(words) > 1 and WHERE_RE.match(joined):
            hint = f"quote the whole expression: `where '{joined}'`; only the first word `{words[0].value}` is used"
        else:
            hint = "write `field=value` or `field OP value` with OP one of == = != < <= > >= (e.g. `where 'count>2'`)"
        yield ctx.diag("L205", words[0].span, f"Invalid where expression: {words[0].value}", hint)


@rule("L206", "approve-in-pipeline-step", Severity.ERROR, "`approve` inside a workflow's `pipeline:` step (target `reference`)",
      per_step=True)
def approve_in_pipeline_step(ctx: LintContext) -> Iterator[Diagnostic]:
    if ctx.target != "reference" or "approve" not in ctx.stages_by_name:  # lobsterlang halts the run there
        return
    for pipeline, unit in ctx.pipelines:
        if unit is None or unit.kind != "step":
            continue
        for stage in pipeline.stages:
            if stage.name.value == "approve":
                yield ctx.diag(
                    "L206", stage.name.span,
                    f"`approve` inside pipeline step `{unit.id}`: the reference stops the run with an error instead of asking",
                    "end the pipeline before `approve` and add a separate step with `approval:` and `stdin: $" + unit.id + ".json`",
                )


@rule("L207", "group-by-spelling", Severity.ERROR, "`group_by` is spelled `groupBy`", fixable=True, per_step=True)
def group_by_spelling(ctx: LintContext) -> Iterator[Diagnostic]:
    if _GROUP_BY_SPELLINGS.isdisjoint(ctx.stages_by_name):
        return
    for stage in ctx.stages:
        if stage.name.value in _GROUP_BY_SPELLINGS and not _templated(stage.name):
            fix = ctx.replace(stage.name.span, stage.name.value, "groupBy", "rename to groupBy")
            yield ctx.diag("L207", stage.name.span, f"unknown command `{stage.name.value}`: the command is `groupBy`",
                           "write `groupBy --key <path>`", fix)
