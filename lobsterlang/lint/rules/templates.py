"""L314-L315: text that looks substituted but never is: other tools' template syntax, and shell syntax in arg
defaults where no shell reads it."""

from __future__ import annotations

import re
from collections.abc import Iterator

from lobsterlang import ir
from lobsterlang.diagnostics import Diagnostic, Severity
from lobsterlang.lint.context import LintContext
from lobsterlang.lint.registry import rule
from lobsterlang.lint.rules.references import all_texts, env_arg_name, joined_text
from lobsterlang.lint.walk import Unit
from lobsterlang.span import Span
from lobsterlang.syntax.shellparse import Script, parse

_FOREIGN_TEMPLATE = re.compile(
    r"\$\{\{\s*([^{}]*?)\s*\}\}|\$\{([A-Za-z_][A-Za-z0-9_-]*)((?:\[[^\]]*\])*\.[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+|\[[^\]]*\])*)\}"
)
"""`${{ steps.x.stdout }}` (GitHub Actions, Mustache) and `${step.json}` (a braced dotted path): Lobster writes
`$step.json` and `${arg}`, and substitutes neither of these."""
_MEANT = frozenset({"steps", "step", "inputs", "input", "args", "arg", "env", "vars", "outputs", "params", "workflow"})
"""Heads of a dotted path that show it was meant as a reference (`${inputs.repo}`, `${args.image}`)."""
_SHELL_SYNTAX = re.compile(r"\$\(|`|\$\{[A-Za-z_][A-Za-z0-9_]*:?[-=?+]|\$\{[A-Z_][A-Z0-9_]*\}|\$[A-Z_][A-Z0-9_]*")
"""What a shell would expand in an arg default: `$(…)`, backticks, `${VAR:-x}`, `${VAR}`, `$VAR`."""


@rule("L314", "unsubstituted-template", Severity.ERROR, "template syntax that Lobster never substitutes (`${{ x }}`, `${step.json}`)")
def unsubstituted_template(ctx: LintContext) -> Iterator[Diagnostic]:
    if "${" not in ctx.shared(joined_text):
        return
    steps = set(ctx.by_id)
    for template, unit in ctx.shared(all_texts):
        if "${" in template.text and any(isinstance(part, ir.Text) and "${" in part.value for part in template.parts):
            yield from _foreign_templates(ctx, template, unit, steps)  # not for `${arg}` alone: it is a reference


def _foreign_templates(ctx: LintContext, template: ir.Template, unit: Unit | None, steps: set[str]) -> Iterator[Diagnostic]:
    shell = unit is not None and type(unit.action) is ir.ShellRun and unit.action.command is template
    script: Script | None = None
    for start, part in ctx.offsets(template):
        if not isinstance(part, ir.Text) or "${" not in part.value:
            continue
        for found in _FOREIGN_TEMPLATE.finditer(part.value):
            at = start + found.start()
            path = found.group(1) if found.group(1) is not None else found.group(2) + found.group(3)
            head = re.split(r"[.\[\s]", path, maxsplit=1)[0]
            meant = head in steps or head in ctx.arg_names or head in _MEANT
            effect = "it stays in the text as written"
            if shell:
                script = script or parse(template.text)
                where = script.context(at)
                if not meant and (where in ("single", "quoted-heredoc", "comment") or script.foreign_code(at)):
                    continue
                if where in ("code", "double", "heredoc"):
                    effect = "the shell stops with `bad substitution`"
            elif not meant and found.group(1) is None:
                continue
            span = ctx.textmap.span(template, at, at + len(found.group(0)))
            yield ctx.diag("L314", span, f"`{found.group(0)}` is not Lobster syntax: nothing substitutes it, and {effect}", _rewrite(path, steps, ctx))


def _rewrite(path: str, steps: set[str], ctx: LintContext) -> str:
    """How the reference is written in Lobster."""
    parts = [p for p in re.split(r"\.", path.replace("[", ".").replace("]", "")) if p]
    if parts and parts[0] == "steps" and len(parts) > 1:
        parts = parts[1:]
        parts = [p for p in parts if p != "outputs"]
    if parts and parts[0] in steps:
        return f"write `${'.'.join(parts)}` (a step's `stdout` or `json`)"
    if len(parts) > 1 and parts[0] in _MEANT and parts[1] in ctx.arg_names:
        return f"write `${{{parts[1]}}}` for the arg"
    return "write `$step.json` or `$step.stdout` for a step's result, `${name}` for an arg"


@rule("L315", "shell-default-not-expanded", Severity.WARNING,
      "an arg default written as shell syntax (`${VAR:-x}`, `$(…)`) used where no shell expands it", per_step=True)
def shell_default_not_expanded(ctx: LintContext) -> Iterator[Diagnostic]:
    """Both runtimes run a default as shell text in `run:`; everywhere else (env, stdin, pipeline words, paths,
    `$LOBSTER_ARG_<NAME>`) its text is the value, as written."""
    defaults = _shell_defaults(ctx)
    if not defaults:
        return
    env_names = {"LOBSTER_ARG_" + env_arg_name(name): name for name in defaults}
    for template, unit in ctx.shared(all_texts):
        shell = unit is not None and type(unit.action) is ir.ShellRun and unit.action.command is template
        for start, part in ctx.offsets(template):
            if isinstance(part, ir.ArgRef) and part.name in defaults and not shell and not _in_shell_word(unit, part):
                yield _unexpanded(ctx, part.span, part.name, defaults[part.name], f"`${{{part.name}}}` here")
            elif isinstance(part, ir.Text) and "LOBSTER_ARG_" in part.value:
                for found in re.finditer(r"LOBSTER_ARG_[A-Z0-9_]+", part.value):
                    name = env_names.get(found.group(0))
                    if name is not None:
                        span = ctx.textmap.span(template, start + found.start(), start + found.end())
                        yield _unexpanded(ctx, span, name, defaults[name], f"`${found.group(0)}`")


def _shell_defaults(ctx: LintContext) -> dict[str, str]:
    args = ctx.workflow.args if ctx.workflow else None
    return {a.name: a.default for a in args or () if a.has_default and isinstance(a.default, str) and _SHELL_SYNTAX.search(a.default)}


def _in_shell_word(unit: Unit | None, ref: ir.ArgRef) -> bool:
    """Whether a pipeline's `${arg}` stands in shell text: `exec --shell '…'`, or `exec` with one word with spaces."""
    action = unit.action if unit is not None else None
    if type(action) is not ir.PipelineRun or action.pipeline is None:
        return False
    for stage in action.pipeline.stages:
        if stage.name.value == "exec" and any(word.template is not None and ref in word.template.parts for word in _shell_words(stage)):
            return True
    return False


def _shell_words(stage: ir.Stage) -> list[ir.Word]:
    """The words of an `exec` stage that a shell reads: its `--shell` value, or its one positional with spaces."""
    shell = [arg.value for arg in stage.args if isinstance(arg, ir.Flag) and arg.name == "shell" and arg.value is not None]
    positionals = [arg.value for arg in stage.args if isinstance(arg, ir.Positional)]
    return shell or (positionals if len(positionals) == 1 and " " in positionals[0].value else [])


def _unexpanded(ctx: LintContext, span: Span, name: str, default: str, where: str) -> Diagnostic:
    shown = default if len(default) <= 40 else default[:37] + "..."
    return ctx.diag(
        "L315", span,
        f"the default of `{name}` (`{shown}`) is shell syntax, but no shell expands {where}: under both runtimes the value is that text as written",
        f"expand it in a `run:` step (both runtimes run a default there as shell text), or give `{name}` a plain default",
    )
