"""What the linter reads of the sub-workflows a file's `workflow:` steps call: their approving steps."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

from lobsterlang import ir
from lobsterlang.lint.context import LintContext
from lobsterlang.lint.walk import Unit
from lobsterlang.syntax.source import read_source


class Child(NamedTuple):
    """What a sub-workflow file holds that the approval rules read."""

    approves: tuple[str, ...]
    """The ids of its `pipeline:` steps with an `approve` stage."""
    asks: str | None
    """The id of its first `approval:` step without a condition: the run halts there (lobsterlang) before the
    calling step ends."""


NOTHING = Child((), None)


@lru_cache(maxsize=256)
def _read_child(path: str, mtime_ns: int) -> Child:
    """The `Child` of a sub-workflow file (`NOTHING` if it cannot be read); cached per version."""
    from lobsterlang.compile import compile_workflow

    try:
        child = compile_workflow(read_source(path), path).ir
    except OSError:
        return NOTHING
    if child is None:
        return NOTHING
    approves = tuple(s.id for s in child.steps if _approves(s.action))
    return Child(approves, next((s.id for s in child.steps if s.approval is not None and s.when is None), None))


def _approves(action: ir.Action | None) -> bool:
    return isinstance(action, ir.PipelineRun) and action.pipeline is not None and any(
        stage.name.value == "approve" for stage in action.pipeline.stages)


def _base_dir(ctx: LintContext) -> Path:
    """The directory that sub-workflow paths are relative to."""
    return Path(ctx.workflow.source).parent if ctx.workflow else Path(".")


def _child_of_file(target: Path) -> Child:
    """The `Child` of the file at `target`; `NOTHING` when it cannot be read (missing, a name too long…)."""
    try:
        modified = target.stat().st_mtime_ns if target.is_file() else None
    except OSError:
        return NOTHING
    return _read_child(str(target), modified) if modified is not None else NOTHING


def children(ctx: LintContext) -> tuple[tuple[Unit, ir.WorkflowCall, Child], ...]:
    """Each `workflow:` step with a literal path, its call and what its file holds (shared by the rules)."""
    found = []
    base = None  # made on first use: most files call no sub-workflow
    for unit in ctx.steps:
        call = unit.action
        if type(call) is ir.WorkflowCall and not call.path.refs:
            base = base or _base_dir(ctx)
            found.append((unit, call, _child_of_file(base / call.path.text)))
    return tuple(found)


def child_gate_before(ctx: LintContext, unit: Unit) -> Unit | None:
    """The first `workflow:` step before `unit`'s step whose sub-workflow asks for approval (`calls_approval`)."""
    return next((step for step, _, _ in ctx.shared(children) if step.index < unit.index and calls_approval(ctx, step)), None)


def calls_approval(ctx: LintContext, step: Unit) -> bool:
    """Whether a `workflow:` step's sub-workflow asks for approval before the step ends: lobsterlang halts the whole
    run at its `approval:` step (the reference fails the calling step there)."""
    if ctx.target == "reference" or type(step.action) is not ir.WorkflowCall:
        return False
    return any(child.asks for found, _, child in ctx.shared(children) if found is step)
