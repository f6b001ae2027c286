"""What a step does beyond computing: side effects (sending, posting, deleting…) and model calls."""

from __future__ import annotations

import re
from functools import lru_cache

from lobsterlang import ir
from lobsterlang.commands.specs import BY_NAME
from lobsterlang.lint.shellverbs import command_effect, may_act, unwrapped
from lobsterlang.lint.walk import Unit
from lobsterlang.syntax.shellparse import Script, parse

SIDE_EFFECT_VERBS = ("send", "post", "delete", "apply", "publish", "deploy")
"""Action names of `openclaw.invoke --action …` that act (the action is a name, not a command line)."""
_VERB_RE = re.compile(r"(?<![\w.$/-])(" + "|".join(SIDE_EFFECT_VERBS) + r")(?![\w-])")
MODEL_COMMANDS = frozenset({"llm.invoke", "llm_task.invoke", "openclaw.agent"})
_EXTERNAL_EFFECTS = frozenset({"sends_email"})
_INVOKERS = frozenset(BY_NAME.keys() & {"openclaw.invoke", "clawd.invoke"})
_EXTERNAL_COMMANDS = {
    name: spec.side_effects[0].replace("_", " ") for name, spec in BY_NAME.items() if _EXTERNAL_EFFECTS & set(spec.side_effects)
}
"""Commands with an effect outside the machine, with how to describe it."""
_EFFECT_COMMANDS = frozenset(BY_NAME.keys() & {"exec", *_EXTERNAL_COMMANDS, *_INVOKERS})
"""The only commands whose stages can be side-effecting."""


class ShellEffect:
    """A side-effecting command in shell text: what it does, and where the command stands."""

    __slots__ = ("end", "start", "why")

    def __init__(self, why: str, start: int, end: int) -> None:
        self.why, self.start, self.end = why, start, end


@lru_cache(maxsize=8192)
def shell_effect(text: str, temporary: frozenset[str] = frozenset()) -> ShellEffect | None:
    """The first side-effecting command of shell text, judged from its parsed commands and flags, also inside a
    script the text writes with a heredoc and then runs (`cat > x.sh <<'EOF' … EOF; bash x.sh`); `temporary`:
    see `command_effect`.

    Several rules ask about the same text, and an editor asks again at every change: the answers (a few
    numbers each, no parse tree) stay cached across files, unlike `shellparse.parse`'s trees.
    """
    if not may_act(text):
        return None
    script = parse(text)
    for command in script.commands:
        why = command_effect(command, temporary)
        if why:
            return ShellEffect(why, command.start, command.end)
    return _written_script_effect(script, temporary)


_WRITERS = frozenset({"cat", "tee"})
_SCRIPT_RUN = re.compile(r"(?:^|[;&|\n(]\s*)(?:(?:ba|z|da|k)?sh|source|\.)\s+\S|(?:^|[;&|\n(]\s*)\./\S")
"""A command that runs a script file (`bash x.sh`, `sh ./run`, `source x`, `./x.sh`)."""


def _written_script_effect(script: Script, temporary: frozenset[str]) -> ShellEffect | None:
    """The first acting command of a heredoc that `cat`/`tee` writes to a file the text then runs as a script."""
    for heredoc in script.heredocs:
        writer = heredoc.command
        if writer is None or writer.program not in _WRITERS or not _SCRIPT_RUN.search(script.text[heredoc.body_end :]):
            continue
        body = script.text[heredoc.body_start : heredoc.body_end]
        for command in parse(body).commands:
            why = command_effect(command, temporary)
            if why:
                return ShellEffect(f"{why} (in the script it writes and runs)", heredoc.body_start + command.start,
                                   heredoc.body_start + command.end)
    return None


def _verb_match(text: str) -> re.Match[str] | None:
    return _VERB_RE.search(text) if any(verb in text for verb in SIDE_EFFECT_VERBS) else None


def flag_value(stage: ir.Stage, *names: str) -> str | None:
    """The value of the last `--name` among `names` (`"true"` for a bare flag)."""
    value = None
    for arg in stage.args:
        if type(arg) is ir.Flag and arg.name in names:
            value = arg.value.value if arg.value else "true"
    return value


def flags(stage: ir.Stage) -> list[ir.Flag]:
    found = []
    for arg in stage.args:
        if type(arg) is ir.Flag:
            found.append(arg)
    return found


def positionals(stage: ir.Stage) -> list[ir.Word]:
    found = []
    for arg in stage.args:
        if type(arg) is ir.Positional:
            found.append(arg.value)
    return found


def exec_text(stage: ir.Stage) -> str:
    """The command line an `exec` stage runs (its --shell text, else its words)."""
    shell = flag_value(stage, "shell")
    return shell if shell is not None else " ".join(w.value for w in positionals(stage))


_ACTING_SEGMENTS = frozenset({"send", "post", "reply", "delete", "publish", "deploy", "apply", "merge"})
"""The last segment of a command that is no Lobster command but acts by its name (`teams.send`, `mail.reply` of a
Lobster fork)."""


def stage_side_effect(stage: ir.Stage) -> str | None:
    """Why a pipeline stage is side-effecting (a short description), or None."""
    name = stage.name.value
    if name not in _EFFECT_COMMANDS:
        if name not in BY_NAME and "." in name and name.rsplit(".", 1)[1] in _ACTING_SEGMENTS and flag_value(stage, "dry-run", "draft") is None:
            return f"runs `{name}` (its name says it acts)"
        return None
    if name == "exec":
        found = shell_effect(exec_text(stage))
        return f"exec {found.why}" if found else None
    if flag_value(stage, "dry-run", "dryRun") is not None:
        return None
    if name in _EXTERNAL_COMMANDS:
        return f"{name} {_EXTERNAL_COMMANDS[name]}"
    if name in _INVOKERS:
        action = flag_value(stage, "action") or ""
        return f"{name} --action {action}" if _verb_match(action) else None
    return None


DISPATCH_COMMANDS = frozenset({"openclaw.invoke", "clawd.invoke", "openclaw.agent", "gog.gmail.send"})
"""Pipeline commands whose call the workflow engine notes as it goes out: after it, `retry:` does not run the step
again (the runtime's `ctx.dispatching`)."""
DISPATCH_PROGRAMS = frozenset({"openclaw.invoke", "clawd.invoke"})
"""The installed programs that report their call to the workflow step whose shell runs them (lobsterlang only)."""


def pipeline_dispatch(unit: Unit) -> str | None:
    """The first command of a unit's pipeline that dispatches a call (`gog.gmail.send --dry-run` sends nothing)."""
    action = unit.action
    if type(action) is not ir.PipelineRun or action.pipeline is None:
        return None
    for stage in action.pipeline.stages:
        name = stage.name.value
        if name in DISPATCH_COMMANDS and not (name == "gog.gmail.send" and flag_value(stage, "dry-run", "dryRun")):
            return name
    return None


def shell_dispatch(unit: Unit) -> str | None:
    """The first installed dispatching program (`openclaw.invoke`, `clawd.invoke`) a unit's `run:` or `exec` runs."""
    action = unit.action
    if type(action) is ir.ShellRun:
        return _program_dispatch(action.command.text)
    if type(action) is ir.PipelineRun and action.pipeline is not None:
        for stage in action.pipeline.stages:
            found = _program_dispatch(exec_text(stage)) if stage.name.value == "exec" else None
            if found:
                return found
    return None


@lru_cache(maxsize=4096)
def _program_dispatch(text: str) -> str | None:
    if not any(program in text for program in DISPATCH_PROGRAMS):
        return None
    for command in parse(text).commands:
        program = unwrapped(command).program.rsplit("/", 1)[-1]
        if program in DISPATCH_PROGRAMS:
            return program
    return None


def is_model_stage(stage: ir.Stage) -> bool:
    return stage.name.value in MODEL_COMMANDS


_TEMPORARY = ("/tmp/", "/var/tmp/")


def temporary_args(workflow: ir.Workflow | None) -> frozenset[str]:
    """The args whose default is a temporary path (`/tmp/…`), and the workflow's environment variables set to one:
    what `rm -rf "${work_dir}"` or `rm -rf "$SCRATCH"` removes lasts nothing."""
    if workflow is None:
        return frozenset()
    names = {arg.name for arg in workflow.args or () if arg.has_default and isinstance(arg.default, str) and arg.default.startswith(_TEMPORARY)}
    names |= {env.name for env in workflow.env or () if env.template is not None and env.template.text.startswith(_TEMPORARY)}
    return frozenset(names)


def unit_side_effect(unit: Unit, temporary: frozenset[str] = frozenset()) -> str | None:
    """Why a unit (or, for parallel and for_each, one of its children) is side-effecting (`temporary`: see
    `command_effect`)."""
    action = unit.action
    if type(action) is ir.ShellRun:
        found = shell_effect(action.command.text, temporary)
        return found.why if found else None
    if type(action) is ir.PipelineRun and action.pipeline is not None:
        for stage in action.pipeline.stages:
            why = stage_side_effect(stage)
            if why:
                return why
    return None


def is_model_unit(unit: Unit) -> bool:
    action = unit.action
    return isinstance(action, ir.PipelineRun) and action.pipeline is not None and any(map(is_model_stage, action.pipeline.stages))


_EXECUTE_FLAGS = re.compile(r"(?<![\w-])--(?:execute|confirm|yes|apply|commit|force|send|no-dry-run)(?![\w-])")
"""Flags that turn a previewing command into the one that acts (`inbox apply --execute`)."""


def previews_dropped(effects: dict[Unit, str]) -> dict[Unit, str]:
    """`effects` without the previews of a preview → approve → execute pattern: a command that a later step runs
    again with `--execute` (or `--confirm`, `--yes`…) while this one has no such flag only shows what would happen."""
    if len(effects) < 2:
        return effects
    executes = {unit: _EXECUTE_FLAGS.search(_shell_text(unit)) is not None for unit in effects}
    last_executing: dict[str, int] = {}  # by why: the step index of the last unit that acts for real
    for unit, why in effects.items():
        if executes[unit]:
            last_executing[why] = max(last_executing.get(why, -1), unit.index)
    previews = {unit for unit, why in effects.items() if not executes[unit] and last_executing.get(why, -1) > unit.index}
    return {unit: why for unit, why in effects.items() if unit not in previews} if previews else effects


def _shell_text(unit: Unit) -> str:
    action = unit.action
    if type(action) is ir.ShellRun:
        return action.command.text
    if type(action) is ir.PipelineRun:
        return action.template.text
    return ""


_READ_PROGRAMS = frozenset({
    "echo", "printf", "cat", "jq", "grep", "egrep", "sed", "awk", "head", "tail", "sort", "uniq", "wc", "cut", "tr", "date",
    "ls", "find", "test", "[", "true", "false", "column", "fmt", "fold", "paste", "join", "seq", "sleep", "basename",
    "dirname", "realpath", "stat", "du", "df", "env", "printenv", "pwd", "whoami", "hostname", "uname", "which", "yq",
})
"""Programs that only read and print (with `>` to a file they write, which `_reads_only` checks apart)."""
_DATA_STAGES = frozenset({"where", "pick", "head", "sort", "json", "table", "template", "map", "dedupe", "groupBy",
                          "state.get", "commands.list", "workflows.list"})
_WRITE_REDIRECT = re.compile(r"(?<![0-9&<])>(?!&|\s*/dev/null)")


def reads_only(unit: Unit) -> bool:
    """Whether a unit is known to only read and print: every command a reader, no `>` into a file; a pipeline of
    data stages. Unknown programs do not count as readers."""
    action = unit.action
    if type(action) is ir.ShellRun:
        text = action.command.text
        commands = parse(text).commands if text.strip() else []
        return all(c.program in _READ_PROGRAMS for c in commands) and not _WRITE_REDIRECT.search(text.replace("2>&1", ""))
    if type(action) is ir.PipelineRun and action.pipeline is not None:
        return all(stage.name.value in _DATA_STAGES for stage in action.pipeline.stages)
    return action is None
