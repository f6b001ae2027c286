"""Hover text: pipeline commands and flags (from the command specs), steps, args, keys."""

from __future__ import annotations

from lobsterlang import ir
from lobsterlang.commands.specs import BY_NAME, CommandSpec
from lobsterlang.diagnostics import Diagnostic
from lobsterlang.query.at import Hit
from lobsterlang.query.keys import key_doc
from lobsterlang.query.outline import describe
from lobsterlang_lsp.convert import rule_doc_uri
from lobsterlang_lsp.documents import Analysis


def hover_text(analysis: Analysis, hit: Hit) -> str | None:
    """Markdown describing what `hit` names (None when there is nothing to say)."""
    if hit.kind == "command":
        spec = BY_NAME.get(hit.name)
        return command_doc(spec) if spec else None
    if hit.kind == "flag":
        spec = BY_NAME.get(hit.detail)
        flag = next((f for f in spec.flags if f.name == hit.name), None) if spec else None
        if flag is None:
            return None
        default = f" (default `{flag.default}`)" if flag.default else ""
        choices = f"\n\none of: {', '.join(f'`{c}`' for c in flag.choices)}" if flag.choices else ""
        return f"`{hit.detail} --{flag.name}` ({flag.kind}){default}\n\n{flag.help}{choices}"
    if hit.kind == "key":
        return key_doc(analysis.text, hit.start, hit.name) or None
    if hit.kind == "call_arg":
        return f"arg **{hit.name}** of the sub-workflow `{hit.detail}` (go to definition opens it)"
    workflow = analysis.workflow
    assert workflow is not None
    if hit.kind == "step":
        return _step_doc(workflow, analysis, hit.name)
    return _arg_doc(workflow, hit.name)


def rule_notes(findings: tuple[Diagnostic, ...], offset: int) -> list[tuple[Diagnostic, str]]:
    """The rule behind each finding at `offset`: code, name, summary and where its page is."""
    from lobsterlang.lint import all_rules

    rules = all_rules()
    notes = []
    for diag in findings:
        rule = rules.get(diag.code)
        if rule is not None and diag.span.start <= offset <= diag.span.end:
            link = rule_doc_uri(diag.code)
            more = f" ([docs]({link}))" if link else ""
            notes.append((diag, f"**{rule.code}** `{rule.name}`: {rule.summary}{more}"))
    return notes


def command_doc(spec: CommandSpec) -> str:
    lines = [f"**{spec.name}**: {spec.summary}"]
    lines += (f"- `--{f.name}` ({f.kind}): {f.help}" for f in spec.flags)
    if spec.side_effects:
        lines.append("side effects: " + ", ".join(spec.side_effects))
    lines += (f"e.g. `{e}`" for e in spec.examples[:2])
    return "\n\n".join(lines)


def _find_step(workflow: ir.Workflow, name: str) -> ir.Step | ir.Branch | None:
    for step in workflow.steps:
        if step.id == name:
            return step
        inner: tuple[ir.Step | ir.Branch, ...] = ()
        if isinstance(step.action, ir.Parallel):
            inner = step.action.branches
        elif isinstance(step.action, ir.ForEach):
            inner = step.action.steps
        found = next((s for s in inner if s.id == name), None)
        if found is not None:
            return found
    return None


def _step_doc(workflow: ir.Workflow, analysis: Analysis, name: str) -> str | None:
    step = _find_step(workflow, name)
    if step is None:
        return None
    users = sorted({o.field for o in analysis.occurrences if o.kind == "step" and o.name == name and o.role == "reference"})
    read = f"\n\nread by: {', '.join(users)}" if users else "\n\nnot referenced"
    inputs = _inputs(step)
    top_level = any(s is step for s in workflow.steps)
    return f"step **{name}**: {describe(step, top_level)}" + (f"\n\ninputs: {inputs}" if inputs else "") + read


def _inputs(step: ir.Step | ir.Branch) -> str:
    if isinstance(step.stdin, ir.StdinRef):
        return f"stdin `{step.stdin.text}`"
    if isinstance(step.stdin, ir.StdinTemplate):
        return f"stdin `{step.stdin.template.text.strip()[:60]}`"
    return ""


def _arg_doc(workflow: ir.Workflow, name: str) -> str | None:
    arg = next((a for a in workflow.args or () if a.name == name), None)
    if arg is None:
        return f"arg **{name}**: not declared in `args:`"
    default = f"default `{arg.default!r}`" if arg.has_default else "no default"
    description = f"\n\n{arg.description}" if arg.description else ""
    return f"arg **{name}** ({default}){description}\n\nshell: `\"$LOBSTER_ARG_{_env(name)}\"`"


def _env(name: str) -> str:
    from lobsterlang.query.rename import env_name

    return env_name(name)
