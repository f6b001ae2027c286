"""Checks and IR for `parallel:` steps and their branches."""

from __future__ import annotations

from collections.abc import Callable

import yaml

from lobsterlang import ir
from lobsterlang.compile import fields, gates
from lobsterlang.compile.context import Context, Entry, is_map, is_seq, is_str, value_of
from lobsterlang.compile.gates import is_approval
from lobsterlang.compile.ids import SeenIds
from lobsterlang.compile.recovery import check_timeout

PARALLEL_KEYS = frozenset({"wait", "timeout_ms", "branches"})
BRANCH_KEYS = frozenset({"id", "run", "command", "pipeline", "env", "cwd", "stdin", "approval", "input"})
BRANCH_EXEC = ("run", "command", "pipeline")
_IGNORED_ON_BRANCH = frozenset({"when", "condition", "timeout_ms", "retry", "on_error"})


def parallel(ctx: Context, step_id: str, node: yaml.MappingNode, seen_ids: SeenIds) -> ir.Parallel:
    """Check a `parallel` mapping in the reference's order; branch ids join `seen_ids`."""
    label = f"Workflow step {step_id} parallel"
    entries = ctx.mapping(node)
    ctx.unknown_keys(entries, PARALLEL_KEYS, f"parallel of step {step_id}")
    branches_node = entries.get("branches", (node, node))[1]
    if not (is_seq(branches_node) and branches_node.value):
        ctx.error("S105", f"{label} requires a non-empty branches array", branches_node, "add `branches:` with at least one branch")
    wait = value_of(entries["wait"][1]) if "wait" in entries else None
    if "wait" in entries and wait not in ("all", "any"):
        ctx.error("S105", f'{label} wait must be "all" or "any"', entries["wait"][1])
    check_timeout(ctx, label, entries.get("timeout_ms"), "S105")
    branches = []
    if is_seq(branches_node):
        local: set[str] = set()
        for branch_node in branches_node.value:
            branch = _branch(ctx, step_id, branch_node, local, seen_ids)
            if branch is not None:
                branches.append(branch)
    timeout = value_of(entries["timeout_ms"][1]) if "timeout_ms" in entries else None
    extra = fields.extras(ctx, entries, PARALLEL_KEYS)
    return ir.Parallel(wait if isinstance(wait, str) else None, timeout, tuple(branches), extra, ctx.span(node))


def _branch(ctx: Context, step_id: str, node: yaml.Node, local: set[str], seen: SeenIds) -> ir.Branch | None:
    label = f"Workflow step {step_id} parallel"
    if not is_map(node):
        ctx.error("S106", f"{label} branches must be objects", node)
        return None
    assert isinstance(node, yaml.MappingNode)
    entries = ctx.mapping(node)
    id_entry = entries.get("id")
    branch_id = value_of(id_entry[1]) if id_entry else None
    if not isinstance(branch_id, str) or not branch_id:
        ctx.error("S106", f"{label} branch requires an id", id_entry[1] if id_entry else node, "add `id: <name>`")
        return None
    assert id_entry is not None
    _check_branch_id(ctx, label, step_id, branch_id, id_entry[1], local, seen)
    action = _branch_action(ctx, f"{label} branch {branch_id}", step_id, entries, node)
    _warn_branch_keys(ctx, entries, branch_id)
    used = {"id", "env", "cwd", "stdin"} | ({action.key} if isinstance(action, ir.ShellRun) else {"pipeline"} if action else set())
    approval, request = _branch_gate(ctx, branch_id, entries)
    used |= {key for key, built in (("approval", approval), ("input", request)) if built}
    env = fields.env(ctx, entries.get("env"), f"branch {branch_id}")
    cwd = fields.cwd(ctx, entries.get("cwd"), f"branch {branch_id}")
    used -= fields.unbuilt(entries, {"env": env, "cwd": cwd})
    return ir.Branch(
        branch_id, action, env, cwd,
        fields.stdin(ctx, entries.get("stdin")),
        fields.extras(ctx, entries, frozenset(used)),
        ctx.span(node), ctx.span(id_entry[1]), approval, request,
    )


def _branch_gate(ctx: Context, branch_id: str, entries: dict[str, Entry]) -> tuple[ir.Approval | None, ir.InputRequest | None]:
    """A branch's `approval:` (asked after its command) or `input:` (instead of one): the gate halts the run while the
    other branches go on (the reference ignores both keys on a branch)."""
    gates.check_input(ctx, branch_id, entries.get("input"))
    gates.check_identity(ctx, branch_id, entries.get("approval"))
    return gates.approval(ctx, branch_id, entries.get("approval")), gates.input_request(ctx, entries.get("input"))


def _check_branch_id(
    ctx: Context, label: str, step_id: str, branch_id: str, where: yaml.Node, local: set[str], seen: SeenIds
) -> None:
    if branch_id == step_id:
        ctx.error("S106", f"{label} branch id cannot match the step id", where, "rename the branch")
        return
    if branch_id in local:
        ctx.error("S106", f"Workflow step {step_id} duplicate parallel branch id: {branch_id}", where)
    elif branch_id in seen:
        ctx.error("S107", f"Duplicate workflow id across steps/parallel branches: {branch_id}", where, "branch ids share one namespace with step ids")
    local.add(branch_id)
    seen.add(branch_id)


def _branch_action(
    ctx: Context, label: str, step_id: str, entries: dict[str, Entry], node: yaml.Node
) -> ir.ShellRun | ir.PipelineRun | None:
    present = exec_keys(entries, lambda node: is_str(node))
    if "input" in entries and present:
        ctx.error("S106", f"{label} cannot define both input and {present[0]}", entries[present[0]][0],
                  "ask in its own branch, or in a step before the parallel step")
    elif not present and "input" not in entries and not ("approval" in entries and is_approval(value_of(entries["approval"][1]))):
        ctx.error("S106", f"{label} requires run, command, or pipeline", node)
    elif len(present) > 1:
        ctx.error("S106", f"{label} can only define one of run, command, or pipeline", entries[present[1]][0])
    for key in BRANCH_EXEC:
        if key in entries and not is_str(entries[key][1]):
            ctx.error("S106", f"{label} {key} must be a string", entries[key][1])
    if not present:
        return None
    key = present[0]
    value_node = entries[key][1]
    assert isinstance(value_node, yaml.ScalarNode)
    if key == "pipeline":
        return fields.pipeline(ctx, step_id, value_node)
    return fields.shell(ctx, key, value_node)


def exec_keys(entries: dict[str, Entry], counts: Callable[[yaml.Node], bool]) -> list[str]:
    """`run`/`command` (one kind: run wins, command is then ignored) and `pipeline` present."""
    shell = [k for k in ("run", "command") if k in entries and counts(entries[k][1])]
    return shell[:1] + (["pipeline"] if "pipeline" in entries and counts(entries["pipeline"][1]) else [])


def _warn_branch_keys(ctx: Context, entries: dict[str, Entry], branch_id: str) -> None:
    fields.warn_run_and_command(ctx, entries, f"parallel branch {branch_id}")
    for key in [k for k in entries if k in _IGNORED_ON_BRANCH]:
        hint = "put it on the parallel step itself, which applies it to the whole block"
        ctx.warning("W008", f"`{key}` on parallel branch {branch_id} is ignored by the runtime", entries[key][0], hint)
    unknown = {k: v for k, v in entries.items() if k not in _IGNORED_ON_BRANCH}
    ctx.unknown_keys(unknown, BRANCH_KEYS, f"parallel branch {branch_id}")
