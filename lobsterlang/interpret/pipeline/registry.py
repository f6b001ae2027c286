"""Command name → implementation, imported on first use so a run loads only the commands it needs."""

from __future__ import annotations

import importlib

from lobsterlang.interpret.pipeline.runtime import Command

_COMMANDS = "lobsterlang.interpret.pipeline.commands."
IMPLEMENTATIONS: dict[str, str] = {
    "approve": "gates:run_approve",
    "ask": "gates:run_ask",
    "clawd.invoke": "invoke:run_clawd_invoke",
    "commands.list": "listing:run_commands_list",
    "dedupe": "transform:run_dedupe",
    "diff.last": "state_cmds:run_diff_last",
    "email.triage": "triage:run_email_triage",
    "exec": "exec_cmd:run_exec",
    "gog.gmail.search": "gog:run_gmail_search",
    "gog.gmail.send": "gog:run_gmail_send",
    "groupBy": "transform:run_group_by",
    "head": "transform:run_head",
    "json": "render:run_json",
    "llm.invoke": "llm:run_llm_invoke",
    "llm_task.invoke": "llm:run_llm_task_invoke",
    "map": "template:run_map",
    "openclaw.agent": "agent:run_openclaw_agent",
    "openclaw.invoke": "invoke:run_openclaw_invoke",
    "pick": "transform:run_pick",
    "sort": "transform:run_sort",
    "state.get": "state_cmds:run_state_get",
    "state.set": "state_cmds:run_state_set",
    "table": "render:run_table",
    "template": "template:run_template",
    "where": "transform:run_where",
    "workflows.list": "named:run_workflows_list",
    "workflows.run": "named:run_workflows_run",
}
"""Every command the runtime implements, as `module:function` under `pipeline.commands`."""


def implementation(name: str) -> Command | None:
    """The function that runs `name`, or None for an unknown command."""
    target = IMPLEMENTATIONS.get(name)
    if target is None:
        return None
    module, function = target.split(":")
    command: Command = getattr(importlib.import_module(_COMMANDS + module), function)
    return command
