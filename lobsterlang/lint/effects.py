"""What a step does beyond computing: side effects (sending, posting, deleting…) and model calls."""

from __future__ import annotations

import re

from lobsterlang import ir
from lobsterlang.commands.specs import command
from lobsterlang.lint.walk import Unit

SIDE_EFFECT_VERBS = ("send", "post", "delete", "apply", "publish", "deploy")
_VERB_RE = re.compile(r"(?<![\w.$/-])(" + "|".join(SIDE_EFFECT_VERBS) + r")(?![\w-])")
_HTTP_WRITE_RE = re.compile(r"(?:-X\s*|--request[=\s]+)['\"]?(POST|PUT|PATCH|DELETE)\b")
MODEL_COMMANDS = frozenset({"llm.invoke", "llm_task.invoke", "openclaw.agent"})
_EXTERNAL_EFFECTS = frozenset({"sends_email"})
_INVOKERS = frozenset({"openclaw.invoke", "clawd.invoke"})


def shell_effect_match(text: str) -> re.Match[str] | None:
    """Where shell text names a side-effecting verb or HTTP method (group 1 is the word)."""
    return _VERB_RE.search(text) or _HTTP_WRITE_RE.search(text)


def shell_side_effect(text: str) -> str | None:
    """The side-effecting verb or HTTP method in shell text, if any."""
    found = shell_effect_match(text)
    return found.group(1) if found else None


def flag_value(stage: ir.Stage, *names: str) -> str | None:
    """The value of the last `--name` among `names` (`"true"` for a bare flag)."""
    value = None
    for arg in stage.args:
        if isinstance(arg, ir.Flag) and arg.name in names:
            value = arg.value.value if arg.value else "true"
    return value


def positionals(stage: ir.Stage) -> list[ir.Word]:
    return [arg.value for arg in stage.args if isinstance(arg, ir.Positional)]


def exec_text(stage: ir.Stage) -> str:
    """The command line an `exec` stage runs (its --shell text, else its words)."""
    shell = flag_value(stage, "shell")
    return shell if shell is not None else " ".join(w.value for w in positionals(stage))


def stage_side_effect(stage: ir.Stage) -> str | None:
    """Why a pipeline stage is side-effecting (a short description), or None."""
    name = stage.name.value
    spec = command(name)
    if spec is None:
        return None
    if name == "exec":
        verb = shell_side_effect(exec_text(stage))
        return f"exec runs `{verb}`" if verb else None
    dry = flag_value(stage, "dry-run", "dryRun") is not None
    if set(spec.side_effects) & _EXTERNAL_EFFECTS and not dry:
        return f"{name} {spec.side_effects[0].replace('_', ' ')}"
    if name in _INVOKERS and not dry:
        action = flag_value(stage, "action") or ""
        verb = shell_side_effect(action)
        return f"{name} --action {action}" if verb else None
    return None


def is_model_stage(stage: ir.Stage) -> bool:
    return stage.name.value in MODEL_COMMANDS


def unit_side_effect(unit: Unit) -> str | None:
    """Why a unit (or, for parallel and for_each, one of its children) is side-effecting."""
    action = unit.action
    if isinstance(action, ir.ShellRun):
        verb = shell_side_effect(action.command.text)
        return f"runs `{verb}`" if verb else None
    if isinstance(action, ir.PipelineRun) and action.pipeline is not None:
        return next((why for why in map(stage_side_effect, action.pipeline.stages) if why), None)
    return None


def is_model_unit(unit: Unit) -> bool:
    action = unit.action
    return isinstance(action, ir.PipelineRun) and action.pipeline is not None and any(map(is_model_stage, action.pipeline.stages))
