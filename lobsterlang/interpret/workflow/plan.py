"""`--dry-run`: the plan the reference prints, checking references and command names without running anything.

Where the reference's plan would mislead it says what will really happen (docs/compatibility.md): a
condition that depends on a planned step is shown as decided at run time, with what it depends on,
instead of as skipped; shell text shows `${arg}` as the runtime passes it (a caller's value as a quoted
variable reference, the file's own default as the shell text it is, noted below the line); a `pipeline:`
step whose pipeline requests input is marked as an input gate.
"""

from __future__ import annotations

import functools
import io
import re
from typing import Any, TextIO

from lobsterlang import ir
from lobsterlang.commands.specs import stage_gate
from lobsterlang.compile.gatepaths import nested_gates
from lobsterlang.gcpause import collector_paused
from lobsterlang.interpret.values import js_string
from lobsterlang.interpret.workflow.conditions import should_run
from lobsterlang.interpret.workflow.context import Frame
from lobsterlang.interpret.workflow.errors import WorkflowError, locate
from lobsterlang.interpret.workflow.refs import Record, lookup
from lobsterlang.interpret.workflow.retry import policy
from lobsterlang.interpret.workflow.templates import STEP_REF, Scope, check_shell_args, render_shell

OUTPUT_REF = re.compile(r"\$[A-Za-z0-9_-]+\.(?:stdout|json)(?![A-Za-z0-9_])")
WHOLE_OUTPUT_REF = re.compile(r"\$[A-Za-z0-9_-]+\.(?:stdout|json)")
CONTAINS = "  [contains step output refs — unknown at plan time]"
UNKNOWN = "  [output unknown at plan time]"
DEFERRED = "     [command validation deferred — stage name depends on step output]"
RUN_TIME = "  [decided at run time — depends on: {}]"
STAGE_GATE = {"input": "     [input required at stage {}: {} — the run waits for the answer]",
              "approval": "     [approval required at stage {}: {} — the run waits for the decision]"}
NESTED_GATE = "     [{} required inside: {} — the whole run waits there]"
AUTHORED = "     [shell text from the file's defaults: {}]"
SHELL_TEXT = re.compile(r"[\s;|&<>()$`*?\[\]{}'\"\\~#]")
"""What makes a default read differently as shell text than as one quoted word."""


class Planner:
    """Builds the plan text; placeholder records stand in for the results of planned steps."""

    def __init__(self, frame: Frame, raw_args: bool = False) -> None:
        self.frame = frame
        self.raw_args = raw_args
        self.results: dict[str, Record] = dict(frame.results)
        self.planned: dict[str, str] = {}
        """Ids whose records are placeholders of planned steps → what they are (`step`, `approval`, `loop item`…)."""
        self.lines: list[str] = []
        self.commands: set[str] = set()
        """Stage names already found among the runtime's commands (each is looked up once)."""

    def text(self, template: ir.Template, results: dict[str, Record] | None = None) -> str:
        """Args substituted; `$id.approved` of planned steps resolved; other references verbatim."""
        scope = self.results if results is None else results
        raw = "".join(
            p.value if isinstance(p, ir.Text) else p.text if isinstance(p, ir.StepRef)
            else js_string(self.frame.args[p.name]) if p.name in self.frame.args else "${" + p.name + "}"
            for p in template.parts
        )
        return STEP_REF.sub(lambda m: _approved(m, scope), raw)

    def shell_text(self, template: ir.Template, results: dict[str, Record] | None = None) -> str:
        """Shell text as the runtime renders it (args as quoted variable references, or raw with --raw-args),
        after the run's arithmetic check on its args."""
        check_shell_args(template, self.frame.args, self.raw_args, self.frame.authored)
        if self.raw_args:
            return self.text(template, results)
        has_step_refs = any(isinstance(p, ir.StepRef) for p in template.parts)
        if has_step_refs:  # shown as written: their output is not known yet
            verbatim = tuple(ir.Text(p.text, p.span) if isinstance(p, ir.StepRef) else p for p in template.parts)
            template = ir.Template(template.text, verbatim, template.span)
        env, posix = self.shell_env
        # Without step refs the template rendered is the one just checked: the renderer need not check it again.
        shell = render_shell(template, Scope(self.frame.args, {}, authored=self.frame.authored), env, posix,
                             checked=not has_step_refs)
        scope = self.results if results is None else results
        return STEP_REF.sub(lambda m: _approved(m, scope), shell.command)

    @functools.cached_property
    def shell_env(self) -> tuple[dict[str, str], bool]:
        """The environment a shell step gets (the frame's, with the args' variables), and whether its shell is POSIX."""
        from lobsterlang.interpret.workflow.argvars import arg_env
        from lobsterlang.interpret.workflow.shell import is_posix_shell

        env = {**self.frame.base_env, **arg_env(self.frame.args)}
        return env, is_posix_shell(env)

    def decided_at_run_time(self, condition: ir.Condition | None, results: dict[str, Record]) -> str | None:
        """`  [decided at run time — depends on: …]` when the condition reads a planned step; None when decidable now."""
        if not isinstance(condition, ir.ExprCondition):
            return None
        names = list(dict.fromkeys(ref.step for ref in _step_refs(condition.expr) if ref.step in self.planned))
        if not names:
            return None
        should_run(condition, results)  # unknown references fail here, as in the reference
        return RUN_TIME.format(", ".join(_depends(name, self.planned[name]) for name in names))

    def plan(self, start: int) -> list[str]:
        """The plan's lines (the text is each line followed by a newline)."""
        steps = self.frame.workflow.steps[start:]
        count = len(steps)
        self.lines = [f"[DRY RUN] Would execute {count} step{'' if count == 1 else 's'}:", *self.args_lines(), ""]
        for number, step in enumerate(steps, 1):
            try:
                self.step(number, step)
            except WorkflowError as exc:
                locate(exc, step, self.frame)
                raise
        return self.lines

    def args_lines(self) -> list[str]:
        """The args the steps see, with their values (the shell lines show only their variables)."""
        from lobsterlang.interpret.workflow.planargs import args_line, workflow_env

        env = [*self.frame.base_env.items(), *workflow_env(self.frame.workflow)]
        line = args_line(self.frame.args, self.frame.authored, env)
        return [] if line is None else [line]

    def step(self, number: int, step: ir.Step) -> None:
        head = f"  {number}. {step.id}"
        run_time = self.decided_at_run_time(step.when, self.results)
        if run_time is None and not should_run(step.when, self.results):
            self.results[step.id] = {"id": step.id, "skipped": True}
            self.lines.append(f"{head}  [skipped — condition: false]")
            return
        start = len(self.lines)
        self.step_body(head, step)
        if run_time is not None and isinstance(step.when, ir.ExprCondition):
            self.lines.insert(start + 1, f"     {step.when_key or 'when'}: {step.when.text}{run_time}")
        self.lines += [NESTED_GATE.format(g.kind, g.text) for g in nested_gates(step, self.frame.directory, self.frame.stack)]
        self.planned[step.id] = _gate_kind(step) or "step"

    def step_body(self, head: str, step: ir.Step) -> None:
        if step.input is not None:
            self.lines += [f"{head}  [input]", f"     prompt: {step.input.prompt}", "     [input required]"]
            self.results[step.id] = {"id": step.id, "response": {"pending": True}}
            return
        if isinstance(step.action, ir.ForEach):
            self.for_each(head, step, step.action)
            self.results[step.id] = {"id": step.id}
            return
        self.action(head, step)
        self.common(step)
        self.results[step.id] = {"id": step.id, "approved": True} if step.approval is not None else {"id": step.id}

    def action(self, head: str, step: ir.Step) -> None:
        action = step.action
        if isinstance(action, ir.Parallel):
            self.parallel(head, action)
        elif isinstance(action, ir.WorkflowCall):
            self.lines += [f"{head}  [workflow]", "     workflow: " + _noted(self.text(action.path))]
            if action.args:
                self.lines.append("     args: " + ", ".join(a.name for a in action.args))
        elif isinstance(action, ir.PipelineRun):
            self.lines += [f"{head}  [pipeline]", "     pipeline: " + _noted(self.text(action.template))]
            if self.check_pipeline(action, f"Workflow step {step.id} pipeline references unknown command: "):
                self.lines.append(DEFERRED)
            gate = stage_gate(action.pipeline)
            if gate is not None:
                self.lines.append(STAGE_GATE[gate[2]].format(gate[0] + 1, gate[1].name.value))
        elif isinstance(action, ir.ShellRun) and action.command.text.strip():
            self.lines += [f"{head}  [shell]", "     run: " + _noted(self.shell_text(action.command))]
            self.authored_note(action.command)
        elif step.approval is not None:
            self.lines.append(f"{head}  [approval gate]")
            if step.approval.prompt:
                self.lines.append(f"     prompt: {step.approval.prompt}")
        else:
            self.lines.append(f"{head}  [no-op]")

    def authored_note(self, template: ir.Template) -> None:
        """Say which `${arg}` in shell text are the file's own defaults, written in as shell text (when that shows)."""
        if self.raw_args:
            return
        args, authored = self.frame.args, self.frame.authored
        names = dict.fromkeys(
            p.name for p in template.parts
            if isinstance(p, ir.ArgRef) and p.name in authored and SHELL_TEXT.search(js_string(args[p.name]))
        )
        if names:
            self.lines.append(AUTHORED.format(", ".join(names)))

    def check_pipeline(self, action: ir.PipelineRun, unknown: str, results: dict[str, Record] | None = None) -> bool:
        """Check stage names; True when one depends on step output (validation deferred)."""
        from lobsterlang.interpret.errors import CommandError
        from lobsterlang.interpret.pipeline.runtime import lookup as command

        if action.pipeline is None:
            raise WorkflowError(action.error or "pipeline parse failed")
        deferred = False
        for stage in action.pipeline.stages:
            self.check_shell_word(stage)
            word = stage.name
            name = word.value if word.template is None else self.text(word.template, results)
            if OUTPUT_REF.search(name):
                deferred = True
                continue
            if name in self.commands:
                continue
            try:
                command(name)
            except CommandError:
                raise WorkflowError(unknown + name) from None
            self.commands.add(name)
        return deferred

    def check_shell_word(self, stage: ir.Stage) -> None:
        """`exec`'s shell line gets the run's arithmetic check on its args."""
        if stage.name.value != "exec":
            return
        from lobsterlang.interpret.pipeline.args import StageArgs
        from lobsterlang.interpret.pipeline.commands.exec_cmd import shell_source

        args = StageArgs.from_stage(stage)
        key = shell_source(args)
        word = args.word(key) if key is not None else None
        if word is not None and word.template is not None:
            check_shell_args(word.template, self.frame.args, self.raw_args, self.frame.authored)

    def common(self, step: ir.Step) -> None:
        self.stdin_line(step.stdin, step.id)
        self.policy_lines(step)
        if step.approval is not None:
            self.lines.append("     [approval required]")

    def policy_lines(self, step: ir.Step) -> None:
        """The step's `timeout_ms`, `on_error` and `retry:` (a loop's too: they apply to the whole loop)."""
        if isinstance(step.timeout_ms, int) and not isinstance(step.timeout_ms, bool):
            self.lines.append(f"     timeout: {step.timeout_ms}ms")
        if step.on_error in ("continue", "skip_rest"):
            self.lines.append(f"     on_error: {step.on_error}")
        rules = policy(step.retry)
        if rules.max > 1:
            jitter = ", jitter" if rules.jitter else ""
            self.lines.append(f"     retry: up to {rules.max} attempts, {rules.backoff} backoff (base: {js_string(rules.delay_ms)}ms{jitter})")

    def stdin_line(self, stdin: ir.Stdin | None, step_id: str) -> None:
        if isinstance(stdin, ir.StdinRef):
            try:
                lookup(self.results, stdin.ref)
            except WorkflowError as exc:
                raise WorkflowError(f"Workflow step {step_id} stdin: {exc}") from None
            text = stdin.text.strip()
            if WHOLE_OUTPUT_REF.fullmatch(text):
                self.lines.append(f"     stdin: {text}{UNKNOWN}")
            elif OUTPUT_REF.search(text):
                self.lines.append(f"     stdin: {text}{CONTAINS}")
        elif isinstance(stdin, ir.StdinTemplate) and OUTPUT_REF.search(stdin.template.text):
            self.lines.append(f"     stdin: {stdin.template.text.strip()}{CONTAINS}")

    def parallel(self, head: str, block: ir.Parallel) -> None:
        self.lines += [f"{head}  [parallel]", f"     wait: {block.wait or 'all'}"]
        if isinstance(block.timeout_ms, int) and not isinstance(block.timeout_ms, bool):
            self.lines.append(f"     timeout: {block.timeout_ms}ms")
        for branch in block.branches:
            self.lines.append(f"     branch {branch.id}: " + self.command_text(branch.action, f"Parallel branch {branch.id} pipeline references unknown command: ", True))

    def command_text(self, action: ir.Action | None, unknown: str, noted: bool, results: dict[str, Record] | None = None) -> str:
        if isinstance(action, ir.PipelineRun):
            self.check_pipeline(action, unknown, results)
            text = self.text(action.template, results)
            return "[pipeline] " + (_noted(text) if noted else "pipeline: " + text)
        if isinstance(action, ir.ShellRun) and action.command.text.strip():
            text = self.shell_text(action.command, results)
            return "[shell] " + (_noted(text) if noted else "run: " + text)
        return "[no-op]"

    def for_each(self, head: str, step: ir.Step, loop: ir.ForEach) -> None:
        if isinstance(loop.source, ir.StdinRef):
            try:
                lookup(self.results, loop.source.ref)
            except WorkflowError as exc:
                raise WorkflowError(f"Workflow step {step.id} for_each: {exc}") from None
        source = loop.source.text if isinstance(loop.source, ir.StdinRef) else _source_text(loop.source)
        item_var, index_var = loop.item_var or "item", loop.index_var or "index"
        self.lines += [f"{head}  [for_each]", "     for_each: " + _noted(source), f"     item_var: {item_var}, index_var: {index_var}"]
        if loop.batch_size:
            self.lines.append(f"     batch_size: {js_string(loop.batch_size)}")
        if loop.pause_ms:
            self.lines.append(f"     pause_ms: {js_string(loop.pause_ms)}")
        self.lines.append(f"     sub-steps: {len(loop.steps)}")
        scope = dict(self.results)
        scope[item_var] = {"json": {"_placeholder": True}, "stdout": '{"_placeholder":true}'}
        scope[index_var] = {"json": 0, "stdout": "0"}
        outer = dict(self.planned)
        self.planned.update({item_var: "loop item", index_var: "loop index"})
        for number, sub in enumerate(loop.steps, 1):
            self.sub_step(number, step, sub, scope)
        self.planned = outer
        self.policy_lines(step)

    def sub_step(self, number: int, step: ir.Step, sub: ir.Step, scope: dict[str, Record]) -> None:
        head = f"       {number}. {sub.id}"
        run_time = self.decided_at_run_time(sub.when, scope)
        if run_time is None and not should_run(sub.when, scope):
            scope[sub.id] = {"id": sub.id, "skipped": True}
            self.lines.append(f"{head}  [skipped — condition: false]")
            return
        unknown = f"Workflow step {step.id} for_each sub-step {sub.id} pipeline: unknown command: "
        self.lines.append(f"{head}  " + self.command_text(sub.action, unknown, False, scope))
        if run_time is not None and isinstance(sub.when, ir.ExprCondition):
            self.lines.append(f"          {sub.when_key or 'when'}: {sub.when.text}{run_time}")
        scope[sub.id] = {"id": sub.id}
        self.planned[sub.id] = "step"


def _gate_kind(step: ir.Step) -> str | None:
    """`approval` or `input` for an approval or input step, or a `pipeline:` step whose pipeline halts for one."""
    if step.approval is not None:
        return "approval"
    if step.input is not None:
        return "input"
    gate = stage_gate(step.action.pipeline) if isinstance(step.action, ir.PipelineRun) else None
    return gate[2] if gate is not None else None


def _approved(match: re.Match[str], results: dict[str, Record]) -> str:
    step, path = match.group(1), match.group(2)
    if path != "approved" or step not in results:
        return match.group(0)
    return "true" if results[step].get("approved") is True else "false"


def _step_refs(expr: ir.Expr) -> list[ir.StepRef]:
    """Every `$step.path` an expression reads, left to right."""
    if isinstance(expr, ir.StepRef):
        return [expr]
    if isinstance(expr, ir.Not):
        return _step_refs(expr.operand)
    if isinstance(expr, (ir.Compare, ir.Logical)):
        return _step_refs(expr.left) + _step_refs(expr.right)
    return []


def _depends(name: str, kind: str) -> str:
    return f"{kind} {name}"


def _noted(text: str) -> str:
    return text + CONTAINS if OUTPUT_REF.search(text) else text


def _source_text(source: Any) -> str:
    if isinstance(source, ir.StdinTemplate):
        return source.template.text.strip()
    return js_string(source.value)


WRITE_LINES = 4096
"""Lines of the plan written at a time."""


def write_plan(frame: Frame, start: int, raw_args: bool, out: TextIO) -> None:
    """Write the plan for steps `start`… to `out` once it is complete (raises WorkflowError, having written
    nothing, where the reference's dry run fails, or the run would).

    The cyclic collector is paused: the plan's lines and results grow beside the whole IR, which
    it would otherwise rescan again and again (40 % of a 100,000-step plan). The lines are written
    a few thousand at a time, not joined first: the text of a 100,000-step plan in one string, and
    its encoding, held beside the lines, would add 80 MB to the dry run's peak.
    """
    with collector_paused():
        lines = Planner(frame, raw_args).plan(start)
    for at in range(0, len(lines), WRITE_LINES):
        out.write("\n".join(lines[at : at + WRITE_LINES]) + "\n")


def describe_plan(frame: Frame, start: int, raw_args: bool = False) -> str:
    """The plan's text (see `write_plan`)."""
    out = io.StringIO()
    write_plan(frame, start, raw_args, out)
    return out.getvalue()
