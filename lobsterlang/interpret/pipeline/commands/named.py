"""`workflows.list` and `workflows.run`: the built-in named workflows (`github.pr.monitor`, `.notify`)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import Any

from lobsterlang.interpret.errors import CommandError
from lobsterlang.interpret.outputcap import output_cap
from lobsterlang.interpret.pipeline.args import StageArgs
from lobsterlang.interpret.pipeline.runtime import RunContext, StageOutput
from lobsterlang.interpret.pipeline.streams import drain
from lobsterlang.interpret.process import run_to_end
from lobsterlang.interpret.statefiles import CorruptState
from lobsterlang.interpret.values import UNDEFINED, js_string, stringify, to_number, truthy

PR_FIELDS = "number,title,url,state,isDraft,mergeable,reviewDecision,author,baseRefName,headRefName,updatedAt"
SUMMARY_KEYS = ("number", "title", "url", "state", "isDraft", "mergeable", "reviewDecision", "updatedAt", "baseRefName", "headRefName")
_MONITOR_ARGS = {
    "type": "object",
    "properties": {
        "repo": {"type": "string", "description": "the repository, owner/name"},
        "pr": {"type": "number", "description": "the pull request number"},
        "key": {"type": "string", "description": "state key (default github.pr:<repo>#<pr>)"},
        "changesOnly": {"type": "boolean", "description": "yield a suppressed marker when nothing changed"},
        "summaryOnly": {"type": "boolean", "description": "yield the change summary and a few PR fields only"},
    },
    "required": ["repo", "pr"],
}
NAMED_WORKFLOWS: list[dict[str, Any]] = [
    {"name": "github.pr.monitor", "description": "Read a pull request with gh, compare it with the last run, and report what changed.",
     "argsSchema": _MONITOR_ARGS, "examples": [{"args": {"repo": "owner/repo", "pr": 1}, "description": "Watch one pull request."}],
     "sideEffects": []},
    {"name": "github.pr.monitor.notify", "description": "Like github.pr.monitor, as one short message, and only when the pull request changed.",
     "argsSchema": _MONITOR_ARGS, "examples": [{"args": {"repo": "owner/repo", "pr": 1}, "description": "Notify on changes."}],
     "sideEffects": []},
]


def run_workflows_list(input: Iterator[Any], args: StageArgs, ctx: RunContext) -> StageOutput:
    drain(input)
    return StageOutput(json.loads(json.dumps(NAMED_WORKFLOWS)))


def run_workflows_run(input: Iterator[Any], args: StageArgs, ctx: RunContext) -> StageOutput:
    drain(input)
    name = args.get("name")
    name = args.first() if name is None else name
    if not name:
        raise CommandError("workflows.run requires --name")
    runner = RUNNERS.get(js_string(name))
    if runner is None:
        raise CommandError(f"Unknown workflow: {js_string(name)}")
    return StageOutput([runner(_workflow_args(args), ctx)])


def _workflow_args(args: StageArgs) -> Any:
    raw = args.get("args-json")
    if not raw:
        return {}
    try:
        return json.loads(js_string(raw))
    except ValueError:
        raise CommandError("workflows.run --args-json must be valid JSON") from None


def _field(args: Any, name: str) -> Any:
    return args.get(name, UNDEFINED) if isinstance(args, dict) else UNDEFINED


def pr_monitor(args: Any, ctx: RunContext) -> dict[str, Any]:
    """Fetch the PR, diff it against the stored snapshot, store it, and describe the change."""
    repo, pr = _field(args, "repo"), _field(args, "pr")
    if not truthy(repo) or not truthy(pr):
        raise CommandError("github.pr.monitor requires args.repo and args.pr")
    key = _field(args, "key")
    key = f"github.pr:{js_string(repo)}#{js_string(pr)}" if key is UNDEFINED or key is None else js_string(key)
    current = _gh_pr_view(js_string(repo), js_string(pr), ctx)
    before, changed = _diff_and_store(ctx, key, current)
    head = {"kind": "github.pr.monitor", "repo": repo, "prNumber": to_number(pr), "key": key}
    if truthy(_field(args, "changesOnly")) and not changed:
        return {**head, "changed": False, "suppressed": True}
    summary = change_summary(before, current)
    if truthy(_field(args, "summaryOnly")):
        brief = {k: _field(current, k) for k in ("number", "title", "url", "state", "updatedAt")}
        return {**head, "changed": changed, "summary": summary, "pr": brief}
    return {**head, "changed": changed, "summary": summary, "prSnapshot": current}


def pr_monitor_notify(args: Any, ctx: RunContext) -> dict[str, Any]:
    """One human-readable line when the PR changed, else a suppressed marker."""
    base = pr_monitor({**(args if isinstance(args, dict) else {}), "changesOnly": True, "summaryOnly": True}, ctx)
    if base.get("suppressed"):
        return {"kind": "github.pr.monitor.notify", "suppressed": True}
    pr = to_number(_field(args, "pr"))
    info = base.get("pr", {})
    return {"kind": "github.pr.monitor.notify", "changed": bool(base["changed"]), "repo": _field(args, "repo"), "prNumber": pr,
            "message": change_message(_field(args, "repo"), pr, base["summary"]["changedFields"], info), "pr": info,
            "summary": base["summary"]}


def change_message(repo: Any, pr: Any, fields: list[str], info: dict[str, Any]) -> str:
    listed = f" ({', '.join(fields)})" if fields else ""
    title = f": {js_string(info['title'])}" if truthy(info.get("title")) else ""
    url = f" {js_string(info['url'])}" if truthy(info.get("url")) else ""
    return re.sub(r"\s+", " ", f"PR updated: {js_string(repo)}#{js_string(pr)}{title}{listed}.{url}").strip()


def change_summary(before: Any, after: Any) -> dict[str, Any]:
    """Which of the summary fields changed, with `from`/`to` values (all of them on a first run)."""
    now, then = _subset(after), _subset(before)
    if now is None:
        return {"changedFields": [], "changes": {}}
    if then is None:
        return {"changedFields": list(now), "changes": {k: {"from": None, "to": v} for k, v in now.items()}}
    changes = {k: {"from": then[k], "to": v} for k, v in now.items() if _identity(v) != _identity(then[k])}
    return {"changedFields": list(changes), "changes": changes}


def _subset(snapshot: Any) -> dict[str, Any] | None:
    if not isinstance(snapshot, (dict, list)):
        return None
    return {key: _field(snapshot, key) for key in SUMMARY_KEYS}


def _identity(value: Any) -> str | None:
    return None if value is UNDEFINED else stringify(value)


def _gh_pr_view(repo: str, pr: str, ctx: RunContext) -> Any:
    argv = ["gh", "pr", "view", pr, "--repo", repo, "--json", PR_FIELDS]
    try:
        code, out, err = run_to_end(ctx.cancel, argv, ctx.env, ctx.cwd, output_cap(ctx.env))
    except (FileNotFoundError, PermissionError):
        raise CommandError("gh not found on PATH (install GitHub CLI)") from None
    if code != 0:
        raise CommandError(f"gh failed ({code}): {err.strip() or out.strip()}")
    try:
        return json.loads(out.strip())
    except ValueError:
        raise CommandError("gh returned non-JSON output") from None


def _diff_and_store(ctx: RunContext, key: str, value: Any) -> tuple[Any, bool]:
    try:
        before = ctx.store.read(key)
    except CorruptState:
        before = None
    ctx.store.write(key, value)
    return before, stringify(before, sort_keys=True) != stringify(value, sort_keys=True)


RUNNERS: dict[str, Callable[[Any, RunContext], dict[str, Any]]] = {
    "github.pr.monitor": pr_monitor,
    "github.pr.monitor.notify": pr_monitor_notify,
}
