"""Which commands a tool request may run: `LOBSTER_TOOL_COMMANDS`, set by the host of `lobster tool` / `lobster mcp`.

Unset, a tool request runs whatever its pipeline or workflow file says, shell included, so a
caller who can send `exec --shell '…'` can do anything the lobster user can (read the state
directory, run a gated action directly). Set to a comma-separated list of pipeline commands
(`where,pick,approve,openclaw.invoke`), a request may use only those: every stage of a pipeline
and every step of a workflow file (and of each sub-workflow it starts) is checked before any of
it runs. A workflow step's shell (`run:` / `command:`) counts as the command `run`. Gates
(`approve`, `ask`, `approval:` and `input:` steps) are always allowed: they only stop a run.
The list applies inside a tool call only (the runner has `LOBSTER_TOOL_WORKSPACE`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping

from lobsterlang import ir
from lobsterlang.interpret.confine import workspace_of
from lobsterlang.interpret.errors import UsageError

ALLOW_VAR = "LOBSTER_TOOL_COMMANDS"
SHELL_STEP = "run"
"""The name a workflow step's `run:` / `command:` goes by in the list."""
GATES = frozenset({"approve", "ask"})


class CommandNotAllowed(UsageError):
    """A tool request uses a command the host's LOBSTER_TOOL_COMMANDS does not list (nothing ran)."""


def allowed(env: Mapping[str, str]) -> frozenset[str] | None:
    """The commands a tool request may use, or None when anything goes (not a tool call, or no list set)."""
    raw = env.get(ALLOW_VAR, "")
    if workspace_of(env) is None or not raw.strip():
        return None
    names = frozenset(name.strip() for name in raw.split(",") if name.strip())
    known = _known()
    for name in sorted(names - known):
        from lobsterlang.suggest import closest

        guess = closest(name, known)
        hint = f" (did you mean `{guess}`?)" if guess else f" (known: {', '.join(sorted(known))})"
        raise UsageError(f"{ALLOW_VAR} names `{name}`, which is no command{hint}; nothing ran")
    return names | GATES


def check(names: Iterable[str], env: Mapping[str, str]) -> None:
    """`CommandNotAllowed` for the first of `names` the host does not allow in tool requests."""
    allow = allowed(env)
    if allow is None:
        return
    for name in names:
        if name not in allow:
            what = "shell steps (`run:` / `command:`)" if name == SHELL_STEP else f"the command `{name}`"
            raise CommandNotAllowed(f"This host does not allow {what} in tool requests ({ALLOW_VAR}="
                                    f"{env.get(ALLOW_VAR, '').strip()}); nothing ran")


def check_workflow(workflow: ir.Workflow, env: Mapping[str, str], start: int = 0) -> None:
    """`check` over every command the steps from `start` on may run (their sub-workflows are checked as they start)."""
    if allowed(env) is not None:
        check(workflow_commands(workflow.steps[start:]), env)


def workflow_commands(steps: Iterable[ir.Step]) -> Iterator[str]:
    """The command names a list of steps runs, nested `for_each` and `parallel` steps included."""
    for step in steps:
        action = step.action
        if isinstance(action, ir.ForEach):
            yield from workflow_commands(action.steps)
        elif isinstance(action, ir.Parallel):
            for branch in action.branches:
                yield from _action_commands(branch.action)
        else:
            yield from _action_commands(action)


def _action_commands(action: ir.Action | None) -> Iterator[str]:
    if isinstance(action, ir.ShellRun):
        yield SHELL_STEP
    elif isinstance(action, ir.PipelineRun) and action.pipeline is not None:
        yield from (stage.name.value for stage in action.pipeline.stages)


def _known() -> frozenset[str]:
    from lobsterlang.interpret.pipeline.registry import IMPLEMENTATIONS

    return frozenset(IMPLEMENTATIONS) | {SHELL_STEP}
