"""`pipeline:` steps: the pipeline interpreter runs in-process on the step's stdin items (or after its input gate)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lobsterlang import ir
from lobsterlang.interpret.errors import LobsterRunError
from lobsterlang.interpret.llmspend import StepSpend
from lobsterlang.interpret.process import Cancellation
from lobsterlang.interpret.values import UNDEFINED, stringify
from lobsterlang.interpret.workflow.attempt import AttemptCancellation
from lobsterlang.interpret.workflow.context import Answer, Options
from lobsterlang.interpret.workflow.errors import ApprovalRequested, InputRequested, WorkflowError
from lobsterlang.interpret.workflow.gates import env_identity, with_identity
from lobsterlang.interpret.workflow.refs import Record, make_record
from lobsterlang.interpret.workflow.shell import dispatch_link, is_posix_shell
from lobsterlang.interpret.workflow.stdin import stdin_items
from lobsterlang.interpret.workflow.templates import Scope, render, render_raw, render_shell


def resolve_pipeline(step_id: str, action: ir.PipelineRun, scope: Scope) -> ir.Pipeline:
    """The pipeline to run: the compiled IR, or (raw args) the text re-parsed after substitution."""
    if scope.raw:
        from lobsterlang.compile import compile_pipeline

        result = compile_pipeline(render_raw(action.template, scope))
        if result.ir is None or not result.ok:
            message = result.diagnostics[0].message if result.diagnostics else "Empty pipeline"
            raise WorkflowError(f"Workflow step {step_id} pipeline parse failed: {message}")
        return result.ir
    if action.pipeline is None:
        raise WorkflowError(action.error or f"Workflow step {step_id} pipeline parse failed")
    return action.pipeline


def run_pipeline_step(
    step_id: str, action: ir.PipelineRun, scope: Scope, env: Mapping[str, str], cwd: str,
    stdin: Any, opts: Options, cancel: Cancellation, answer: Answer | None = None, spend: StepSpend | None = None,
) -> Record:
    """Run the step's pipeline (after its gate, with the `answer` given there; its LLM calls billed through `spend`);
    an `ask` stage raises `InputRequested`, an `approve` stage `ApprovalRequested` (its approval policy from the
    environment). The programs its `exec` stages run report their dispatches to the attempt."""
    pipeline = resolve_pipeline(step_id, action, scope)
    runs_programs = any(stage.name.value == "exec" for stage in pipeline.stages)
    with dispatch_link(cancel if runs_programs else None) as link_env:
        return _run(step_id, pipeline, scope, {**env, **link_env}, cwd, stdin, opts, cancel, answer, spend)


def _run(
    step_id: str, pipeline: ir.Pipeline, scope: Scope, env: Mapping[str, str], cwd: str,
    stdin: Any, opts: Options, cancel: Cancellation, answer: Answer | None, spend: StepSpend | None,
) -> Record:
    from lobsterlang.interpret.pipeline.runtime import RunContext, run_pipeline

    ctx = RunContext(
        env=dict(env), cwd=cwd, mode="tool" if opts.mode == "tool" else "human", store=opts.store,
        cancel=cancel, render_word=lambda word: word_text(word, scope), interactive=opts.interactive,
        prompt_in=opts.prompt_in, prompt_out=opts.prompt_out,
        render_shell=lambda word, shell_env: shell_word(word, scope, shell_env),
        on_dispatch=cancel.dispatched if isinstance(cancel, AttemptCancellation) else None, spend=spend,
    )
    start, items = (answer.stage + 1, answer.continuing) if answer is not None else (0, stdin_items(stdin))
    try:
        result = run_pipeline(pipeline, items, ctx, start_at=start)
    except LobsterRunError as exc:
        if cancel.cancelled:
            raise
        raise WorkflowError(exc.message) from None
    if result.halt is not None:
        index = result.halt.index
        stage = pipeline.stages[index].name.value
        if result.halt.kind == "approval_request":
            identity = env_identity(env)
            raise ApprovalRequested(step_id, index, stage, with_identity(dict(result.halt.request), identity), identity)
        request = {key: value for key, value in result.halt.request.items() if key != "items"}
        raise InputRequested(step_id, index, stage, request)
    return pipeline_record(step_id, result.items, result.rendered_text)


def word_text(word: ir.Word, scope: Scope) -> str:
    """A pipeline word with its references filled in (args as data: never re-split into tokens)."""
    return word.value if word.template is None else render(word.template, scope)


def shell_word(word: ir.Word, scope: Scope, env: Mapping[str, str]) -> tuple[str, dict[str, str]]:
    """A word a shell reads (`exec --shell`, the implicit-shell form): args as quoted variable references, as in `run:`."""
    if word.template is None:
        return word.value, {}
    text = render_shell(word.template, scope, env, is_posix_shell(env))
    return text.command, text.env


def pipeline_record(step_id: str, items: list[Any], rendered: str | None) -> Record:
    """`stdout` is the rendered text or the serialised items; `json` one item, the items, or parsed stdout."""
    stdout = rendered if rendered is not None else serialise_items(items)
    if len(items) == 1:
        return make_record(step_id, stdout, items[0] if items[0] is not UNDEFINED else None)
    if items:
        return make_record(step_id, stdout, items)
    return make_record(step_id, stdout)


def serialise_items(items: list[Any]) -> str:
    """Strings joined by newlines; one item as itself or its JSON; several as a JSON array."""
    if not items:
        return ""
    if all(isinstance(item, str) for item in items):
        return "\n".join(items)
    if len(items) == 1:
        return stringify(items[0])
    return stringify(items)
