"""The tool call's workspace: paths a run uses under `lobster tool` must resolve (symlinks followed) inside it.

The tool call passes its workspace to the runner in `LOBSTER_TOOL_WORKSPACE`; a workflow's steps
then may not use a `cwd:` or run a workflow file that resolves outside it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

WORKSPACE_VAR = "LOBSTER_TOOL_WORKSPACE"


def workspace_of(env: Mapping[str, str]) -> str | None:
    """The workspace the run is confined to, or None outside a tool call."""
    return env.get(WORKSPACE_VAR) or None


def is_inside(path: str, workspace: str) -> bool:
    """Whether `path`, with every symlink resolved, is `workspace` or below it."""
    try:
        target, root = os.path.realpath(path), os.path.realpath(workspace)
    except (OSError, ValueError):
        return False
    return target == root or target.startswith(root.rstrip(os.sep) + os.sep)


def outside_message(what: str, path: str, env: Mapping[str, str]) -> str | None:
    """`<what> must stay within the gateway working directory: <path>` when `path` escapes it, else None."""
    workspace = workspace_of(env)
    if workspace is None or is_inside(path, workspace):
        return None
    return f"{what} must stay within the gateway working directory: {path}"
