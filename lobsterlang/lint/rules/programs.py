"""L311-L312: shell text that runs what is not a program, and `exec` words that reach a shell unannounced."""

from __future__ import annotations

import re
from collections.abc import Iterator

from lobsterlang import ir
from lobsterlang.commands.specs import BY_NAME
from lobsterlang.diagnostics import Diagnostic, Severity
from lobsterlang.lint.context import LintContext
from lobsterlang.lint.effects import positionals
from lobsterlang.lint.registry import rule
from lobsterlang.lint.rules.shell import exec_stages, shell_flag
from lobsterlang.syntax.shellparse import Command, Script, parse

INSTALLED = frozenset({"openclaw.invoke", "clawd.invoke"})
"""Pipeline commands that are programs too: the reference package (and this distribution) installs them."""
PIPELINE_ONLY = frozenset(name for name in BY_NAME if "." in name) - INSTALLED
"""Lobster pipeline commands that no shell can run (`llm_task.invoke`, `state.set`, `gog.gmail.send`…)."""
NOT_PROGRAMS = frozenset({"approve", "dedupe", "groupBy", "json", "pick", "where"})
"""Undotted pipeline commands that are no program either (`head`, `sort` and `exec` are)."""
FLAGGED = frozenset({"ask", "map", "table", "template"})
"""Undotted pipeline commands whose names a program could have: reported only with one of the command's flags."""
_NAMES = re.compile(r"(?<![\w.-])(?:" + "|".join(re.escape(name) for name in sorted(PIPELINE_ONLY | NOT_PROGRAMS | FLAGGED)) + r")(?![\w-])")


@rule("L311", "pipeline-command-in-shell", Severity.ERROR, "a Lobster pipeline command run as a program in `run:`/`command:`", per_step=True)
def pipeline_command_in_shell(ctx: LintContext) -> Iterator[Diagnostic]:
    for _, run in ctx.shell_runs:
        text = run.command.text
        if _NAMES.search(text) is None:
            continue
        script = parse(text)
        for command in script.commands:
            if _pipeline_command(command, script):
                span = ctx.textmap.span(run.command, command.start, command.name_end)
                yield ctx.diag(
                    "L311", span, f"`{command.name}` is a Lobster pipeline command, not a program: the shell fails with `command not found`",
                    f"write the step as `pipeline: {command.name} …` instead of `{run.key}:`",
                )


def _pipeline_command(command: Command, script: Script) -> bool:
    """Whether a command of a script names a Lobster pipeline command that is no program (and no function the
    script defines)."""
    name = command.name
    if name in PIPELINE_ONLY:
        return True
    if (name not in NOT_PROGRAMS and name not in FLAGGED) or name in script.functions:
        return False
    return name in NOT_PROGRAMS or any(w.value.startswith("--") and w.value[2:].split("=", 1)[0] in _flag_names(name) for w in command.args)


def _flag_names(name: str) -> frozenset[str]:
    return frozenset(n for flag in BY_NAME[name].flags for n in (flag.name, *flag.aliases))


@rule("L312", "exec-implicit-shell", Severity.WARNING, "`exec` given one word with spaces and `${arg}`/`$step` references: a shell runs it", per_step=True)
def exec_implicit_shell(ctx: LintContext) -> Iterator[Diagnostic]:
    for stage in exec_stages(ctx):
        if shell_flag(stage) is not None:
            continue
        words = positionals(stage)
        if len(words) != 1 or " " not in words[0].value or words[0].template is None:
            continue
        ref = next((p for p in words[0].template.parts if isinstance(p, ir.ArgRef | ir.StepRef)), None)
        if ref is not None:
            shown = "${" + ref.name + "}" if isinstance(ref, ir.ArgRef) else ref.text
            yield ctx.diag(
                "L312", ref.span,
                f"`exec` runs the single word `{words[0].value}` through `/bin/sh` (it has spaces); under the reference `{shown}` becomes shell code",
                "split the command into words (`exec ls -la ${dir}`), or read the value from an environment variable with `--shell`",
            )
