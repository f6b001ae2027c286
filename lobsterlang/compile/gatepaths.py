"""Where a run can halt inside a step: the approval and input gates of its sub-workflows (at any depth, read from
their files), its loop's sub-steps and its parallel branches, each with the path the run's envelope names."""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import lru_cache

from lobsterlang import ir
from lobsterlang.commands.specs import stage_gate


@dataclass(frozen=True)
class NestedGatePath:
    """One gate inside a step: `path` from that step (`deploy`, `inner`, `prod_gate`; a loop's item is `loop[*]`),
    `kind` `approval` or `input`."""

    path: tuple[str, ...]
    kind: str

    @property
    def text(self) -> str:
        return " > ".join(self.path)


def nested_gates(step: ir.Step, directory: str, stack: tuple[str, ...] = ()) -> list[NestedGatePath]:
    """The gates inside `step` (a step of the file in `directory`); a sub-workflow that cannot be read, or whose path
    is computed at run time, adds none. `stack`: the files being read (a cycle stops there)."""
    action = step.action
    if isinstance(action, ir.ForEach):
        return [NestedGatePath((f"{step.id}[*]", sub.id), kind) for sub in action.steps if (kind := _own_kind(sub))]
    if isinstance(action, ir.Parallel):
        return [NestedGatePath((step.id, b.id), kind) for b in action.branches if (kind := _branch_kind(b))]
    if isinstance(action, ir.WorkflowCall) and not action.path.refs:
        target = os.path.realpath(os.path.join(directory, action.path.text))
        return [NestedGatePath((step.id, *gate.path), gate.kind) for gate in _file_gates(target, stack)]
    return []


def _own_kind(step: ir.Step) -> str | None:
    return _kind(step.approval, step.input, step.action)


def _branch_kind(branch: ir.Branch) -> str | None:
    return _kind(branch.approval, branch.input, branch.action)


def _kind(approval: ir.Approval | None, given: ir.InputRequest | None, action: ir.Action | None) -> str | None:
    """`approval` or `input` for a gate step (or branch), or one whose pipeline has an `approve` or `ask` stage (it
    halts the run there); None otherwise."""
    if approval is not None:
        return "approval"
    if given is not None:
        return "input"
    gate = stage_gate(action.pipeline) if isinstance(action, ir.PipelineRun) else None
    return gate[2] if gate is not None else None


def _file_gates(path: str, stack: tuple[str, ...]) -> list[NestedGatePath]:
    if path in stack:
        return []
    try:
        modified = os.stat(path).st_mtime_ns
    except OSError:
        return []
    return list(_gates_of(path, modified, stack))


@lru_cache(maxsize=256)
def _gates_of(path: str, modified: int, stack: tuple[str, ...]) -> tuple[NestedGatePath, ...]:
    """The gates of the workflow file at `path` (its `approval:`, `input:` and gating `pipeline:` steps, and those
    inside its steps), cached per version."""
    from lobsterlang.compile import compile_workflow
    from lobsterlang.syntax.source import read_source

    try:
        workflow = compile_workflow(read_source(path), path).ir
    except OSError:
        return ()
    if workflow is None:
        return ()
    found: list[NestedGatePath] = []
    for step in workflow.steps:
        kind = _own_kind(step)
        if kind is not None:
            found.append(NestedGatePath((step.id,), kind))
        found += nested_gates(step, os.path.dirname(path), (*stack, path))
    return tuple(found)
