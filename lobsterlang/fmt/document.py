"""Build the canonical document of a workflow from its IR: every key in its fixed order, values as written."""

from __future__ import annotations

from typing import Any

from lobsterlang import ir
from lobsterlang.fmt.layout import PipelineText, ShellText, Spaced
from lobsterlang.fmt.pipelines import stage_texts

Doc = dict[str, Any]


def workflow_document(workflow: ir.Workflow, *, as_written: bool = False) -> Doc:
    """Top level: name, description, args, env, cwd, cost_limit, other keys as written, steps.

    `as_written`: pipeline words keep the author's quoting (else it is canonical)."""
    doc: Doc = {}
    _put(doc, "name", workflow.name)
    _put(doc, "description", workflow.description)
    if workflow.args is not None:
        doc["args"] = {arg.name: arg.value for arg in workflow.args}
    _put(doc, "env", _env(workflow.env))
    _put(doc, "cwd", _text(workflow.cwd))
    _put(doc, "cost_limit", workflow.cost_limit.value if workflow.cost_limit else None)
    _extras(doc, workflow.extra)
    doc["steps"] = Spaced(step_document(step, as_written=as_written) for step in workflow.steps)
    return doc


def step_document(step: ir.Step, *, as_written: bool = False) -> Doc:
    """id, what it runs, approval, input, stdin, when, env, cwd, retry, timeout_ms, on_error, other keys.

    A for_each step's sub-steps come last, after everything that applies to the loop.
    """
    doc: Doc = {"id": step.id}
    _action(doc, step.action, as_written)
    _put(doc, "approval", step.approval.value if step.approval else None)
    _put(doc, "input", step.input.value if step.input else None)
    if step.stdin is not None:
        doc["stdin"] = _stdin(step.stdin)
    if step.when is not None and step.when_key is not None:
        doc[step.when_key] = _condition(step.when)
    _put(doc, "env", _env(step.env))
    _put(doc, "cwd", _text(step.cwd))
    _put(doc, "retry", step.retry.value if step.retry else None)
    _put(doc, "timeout_ms", step.timeout_ms)
    _put(doc, "on_error", step.on_error)
    _extras(doc, step.extra)
    if isinstance(step.action, ir.ForEach):
        doc["steps"] = Spaced(step_document(sub, as_written=as_written) for sub in step.action.steps)
    return doc


def _action(doc: Doc, action: ir.Action | None, as_written: bool) -> None:
    if isinstance(action, (ir.ShellRun, ir.PipelineRun)):
        _run(doc, action, as_written)
    elif isinstance(action, ir.WorkflowCall):
        doc["workflow"] = action.path.text
        if action.args is not None:
            doc["workflow_args"] = {arg.name: arg.value for arg in action.args}
    elif isinstance(action, ir.Parallel):
        doc["parallel"] = _parallel(action, as_written)
    elif isinstance(action, ir.ForEach):
        doc["for_each"] = _stdin(action.source)
        _put(doc, "item_var", action.item_var)
        _put(doc, "index_var", action.index_var)
        _put(doc, "batch_size", action.batch_size)
        _put(doc, "pause_ms", action.pause_ms)


def _run(doc: Doc, action: ir.ShellRun | ir.PipelineRun, as_written: bool) -> None:
    if isinstance(action, ir.ShellRun):
        doc[action.key] = ShellText(action.command.text)
    elif action.pipeline is None:
        doc["pipeline"] = action.template.text
    else:
        written = action.template.text
        doc["pipeline"] = PipelineText(
            tuple(stage_texts(action.pipeline, as_written=as_written)), "\n" in written.rstrip("\n"), written.endswith("\n"), written
        )


def _parallel(parallel: ir.Parallel, as_written: bool) -> Doc:
    doc: Doc = {}
    _put(doc, "wait", parallel.wait)
    _put(doc, "timeout_ms", parallel.timeout_ms)
    _extras(doc, parallel.extra)
    doc["branches"] = [_branch(branch, as_written) for branch in parallel.branches]
    return doc


def _branch(branch: ir.Branch, as_written: bool) -> Doc:
    doc: Doc = {"id": branch.id}
    if branch.action is not None:
        _run(doc, branch.action, as_written)
    if branch.stdin is not None:
        doc["stdin"] = _stdin(branch.stdin)
    _put(doc, "env", _env(branch.env))
    _put(doc, "cwd", _text(branch.cwd))
    _extras(doc, branch.extra)
    return doc


def _put(doc: Doc, key: str, value: Any) -> None:
    if value is not None:
        doc[key] = value


def _extras(doc: Doc, extras: tuple[ir.Extra, ...]) -> None:
    for extra in extras:
        doc[extra.key] = extra.value


def _env(env: tuple[ir.EnvVar, ...] | None) -> Doc | None:
    return None if env is None else {var.name: var.value for var in env}


def _text(template: ir.Template | None) -> str | None:
    return None if template is None else template.text


def _stdin(stdin: ir.Stdin) -> Any:
    """The value as written (`stdin: null` too, which is not the same as no stdin)."""
    if isinstance(stdin, ir.StdinRef):
        return stdin.text
    if isinstance(stdin, ir.StdinTemplate):
        return stdin.template.text
    return stdin.value


def _condition(condition: ir.Condition) -> Any:
    return condition.text if isinstance(condition, ir.ExprCondition) else condition.value
