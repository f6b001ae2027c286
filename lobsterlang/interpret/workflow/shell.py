"""Shell steps: `/bin/sh -lc` (or LOBSTER_SHELL, as `exec` picks it) in their own process group, stdout captured."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from lobsterlang.interpret.pipeline.commands.exec_cmd import shell_argv
from lobsterlang.interpret.process import Cancellation
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


def check_cwd(step_id: str, cwd: str) -> None:
    """A missing working directory is named as such (the reference blames the shell)."""
    if not os.path.isdir(cwd):
        what = "is not a directory" if os.path.exists(cwd) else "does not exist"
        raise ShellFailed(f"Workflow step {step_id} cwd {what}: {cwd}")


def run_shell(command: str, env: Mapping[str, str], cwd: str, stdin: bytes | None, cancel: Cancellation) -> ShellOutput:
    """Run `command`; raise ShellFailed on a non-zero exit and Cancelled when stopped."""
    argv = shell_argv(command, env)
    try:
        proc = cancel.spawn(argv, env, cwd, stdin=stdin is not None)
    except FileNotFoundError:
        raise ShellFailed("workflow shell not found; check LOBSTER_SHELL or ComSpec") from None
    except ValueError as exc:
        raise ShellFailed(f"workflow command cannot be started: {exc}") from None
    try:
        out, err = proc.communicate(stdin)
    finally:
        cancel.forget(proc)
    cancel.check()
    stdout, stderr = out.decode("utf-8", "replace"), err.decode("utf-8", "replace")
    if proc.returncode != 0:
        code = "null" if proc.returncode < 0 else str(proc.returncode)
        detail = stderr.strip() or stdout.strip() or command
        raise ShellFailed(f"workflow command failed ({code}): {detail}")
    return ShellOutput(stdout, stderr)
