"""Shell steps: `/bin/sh -lc` (or LOBSTER_SHELL, as `exec` picks it) in their own process group, output capped; the
programs they run report their dispatches to the attempt (`dispatchlisten`)."""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass

from lobsterlang.interpret.confine import outside_message
from lobsterlang.interpret.outputcap import output_cap
from lobsterlang.interpret.pipeline.commands.exec_cmd import shell_argv
from lobsterlang.interpret.process import Cancellation, run_to_end
from lobsterlang.interpret.workflow.attempt import AttemptCancellation
from lobsterlang.interpret.workflow.dispatchlisten import SUPPORTED as LINK_SUPPORTED
from lobsterlang.interpret.workflow.dispatchlisten import process_listener
from lobsterlang.interpret.workflow.errors import WorkflowError


class ShellFailed(WorkflowError):
    """A command exited non-zero: `workflow command failed (<code>): <detail>`."""


@dataclass(frozen=True)
class ShellOutput:
    """What a finished command printed."""

    stdout: str
    stderr: str


def is_posix_shell(env: Mapping[str, str]) -> bool:
    """Whether commands go to a POSIX shell (args are then passed as quoted variable references)."""
    return shell_argv("", env)[1] == "-lc"


def check_cwd(step_id: str, cwd: str, env: Mapping[str, str]) -> None:
    """A missing working directory is named as such (the reference blames the shell); under the tool call
    it must resolve inside the workspace."""
    outside = outside_message(f"Workflow step {step_id} cwd", cwd, env)
    if outside is not None:
        raise WorkflowError(outside)
    if not os.path.isdir(cwd):
        what = "is not a directory" if os.path.exists(cwd) else "does not exist"
        raise ShellFailed(f"Workflow step {step_id} cwd {what}: {cwd}")


@contextmanager
def dispatch_link(cancel: Cancellation | None) -> Iterator[dict[str, str]]:
    """While the block runs, the programs started with the environment it yields (`openclaw.invoke`, `clawd.invoke`,
    `lobster '<pipeline>'`) report their dispatches to the attempt `cancel` (no link outside one, or for None)."""
    if not isinstance(cancel, AttemptCancellation) or not LINK_SUPPORTED:
        yield {}
        return
    try:
        listener = process_listener()
    except OSError as exc:
        raise ShellFailed(f"workflow command cannot be started: no dispatch link ({exc.strerror or exc})") from None
    with listener.attempt(cancel.dispatched) as link_env:
        yield link_env


def run_shell(command: str, env: Mapping[str, str], cwd: str, stdin: bytes | None, cancel: Cancellation) -> ShellOutput:
    """Run `command`; raise ShellFailed on a non-zero exit, OutputTooLarge past the cap, Cancelled when stopped.
    Under an attempt, a dispatch reported by a program the shell runs (`openclaw.invoke`…) is noted on it."""
    with dispatch_link(cancel) as link_env:
        return _run_shell(command, {**env, **link_env}, cwd, stdin, cancel)


def _run_shell(command: str, env: Mapping[str, str], cwd: str, stdin: bytes | None, cancel: Cancellation) -> ShellOutput:
    argv = shell_argv(command, env)
    try:
        returncode, stdout, stderr = run_to_end(cancel, argv, env, cwd, output_cap(env), stdin)
    except FileNotFoundError:
        raise ShellFailed("workflow shell not found; check LOBSTER_SHELL or ComSpec") from None
    except ValueError as exc:
        raise ShellFailed(f"workflow command cannot be started: {exc}") from None
    if returncode != 0:
        code = "null" if returncode < 0 else str(returncode)
        detail = stderr.strip() or stdout.strip() or command
        raise ShellFailed(f"workflow command failed ({code}): {detail}")
    return ShellOutput(stdout, stderr)
