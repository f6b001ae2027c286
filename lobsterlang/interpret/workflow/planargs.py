"""The dry run's `args:` line: each arg's resolved value and where it came from, secrets masked."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from lobsterlang import ir
from lobsterlang.interpret.values import js_string, stringify
from lobsterlang.terminal import visible

MASK = "***"
SHOWN_AT_MOST = 60
"""Characters of a value shown in the plan; a longer one is cut with `…`."""
_SECRET_NAME = re.compile(r"(?i)token|secret|passw(?:or)?d|(?:^|[_-]|api)key(?:$|[_-])|credential|auth")
"""Names of args and variables whose values the plan masks (`GITHUB_TOKEN`, `DEPLOY_KEY`, `apikey`, `db_password`)."""


def args_line(args: Mapping[str, Any], authored: frozenset[str], env_vars: Iterable[tuple[str, str]]) -> str | None:
    """`  args: target="old" (given), token=*** (default)`, or None without args. A value is masked when the
    arg's name looks like a secret, or when it is the value of an environment variable (the process's or the
    workflow's `env:`) whose name does."""
    if not args:
        return None
    secrets = {value for name, value in env_vars if len(value) >= 4 and _SECRET_NAME.search(name)}
    shown = [f"{name}={_value(name, value, secrets)} ({'default' if name in authored else 'given'})" for name, value in args.items()]
    return "  args: " + ", ".join(shown)


def workflow_env(workflow: ir.Workflow) -> list[tuple[str, str]]:
    """The workflow's own `env:` entries as written (name, text)."""
    return [(var.name, var.template.text) for var in workflow.env or () if var.template is not None]


def _value(name: str, value: Any, secrets: set[str]) -> str:
    """The value as JSON (`"old"`, `3`), masked or cut short as the plan shows it."""
    if _SECRET_NAME.search(name) or js_string(value) in secrets:
        return MASK
    shown = visible(stringify(value))
    return shown if len(shown) <= SHOWN_AT_MOST else shown[: SHOWN_AT_MOST - 1] + "…"
