"""Completions at an offset: keys for the level, `$` step ids, `$step.` fields, `${` args, pipeline commands, flags and
values, `workflow:` paths. The IR may be the last one that compiled: the text decides the context."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Literal

from lobsterlang import ir
from lobsterlang.commands.specs import BY_NAME, COMMANDS, CommandSpec, stage_gate
from lobsterlang.compile import WORKFLOW_SUFFIXES
from lobsterlang.query.at import actions
from lobsterlang.query.keys import keys_of, level_at, sibling_keys
from lobsterlang.record import Record

CandidateKind = Literal["key", "step", "field", "arg", "command", "flag", "value", "file"]

FIELDS = {
    "stdout": "the step's standard output (text)",
    "json": "stdout parsed as JSON (absent when it is not JSON); `.json.a.b` reads inside it",
    "approved": "approval steps: whether the approval was granted",
    "response": "input steps: the answer given",
    "subject": "input steps: what the question was about",
    "skipped": "true when the step's condition was false",
    "error": "true when the step failed and `on_error` let the workflow go on",
    "errorMessage": "the failure's message (with `error`)",
}

_ARG_RE = re.compile(r"\$\{([A-Za-z0-9_-]*)$")
_FIELD_RE = re.compile(r"\$([A-Za-z0-9_-]+)\.((?:[A-Za-z0-9_]+\.)*)([A-Za-z0-9_]*)$")
_STEP_RE = re.compile(r"\$([A-Za-z0-9_-]*)$")
_KEY_RE = re.compile(r"[ \t]*(?:-[ \t]+)?([A-Za-z_][A-Za-z0-9_]*)?$")
_VALUE_RE = re.compile(r"[ \t]*(?:-[ \t]+)?([A-Za-z_]+)[ \t]*:[ \t]*(.*)$")


class Candidate(Record):
    """One completion: `label`, replacing `start`..`end` with `insert` (the label when None)."""

    label: str
    kind: CandidateKind
    start: int
    end: int
    detail: str = ""
    documentation: str = ""
    insert: str | None = None


def completions(workflow: ir.Workflow | None, text: str, offset: int, directory: Path | None = None) -> list[Candidate]:
    """What can be written at `offset`; `directory` (the file's folder) enables `workflow:` path completion."""
    line_start = text.rfind("\n", 0, offset) + 1
    before = text[line_start:offset]
    found = _args(workflow, before, offset, closed=text.startswith("}", offset))
    if found is None:
        found = _fields(workflow, before, offset)
    if found is None:
        found = _steps(workflow, before, offset)
    if found is not None:
        return found
    value = _VALUE_RE.match(before)
    if (value is not None and value.group(1) == "pipeline") or _in_pipeline(workflow, offset):
        return _pipeline(_pipeline_text(before), offset)
    if value is not None and value.group(1) == "workflow" and directory is not None:
        return _paths(directory, value.group(2), offset)
    key = _KEY_RE.fullmatch(before)
    if key is not None:
        return _keys(text, offset, key.group(1) or "")
    return []


def _args(workflow: ir.Workflow | None, before: str, offset: int, closed: bool) -> list[Candidate] | None:
    """`${` → declared args; the `}` is added unless the editor already closed the brace."""
    found = _ARG_RE.search(before)
    if found is None:
        return None
    start = offset - len(found.group(1))
    return [
        Candidate(a.name, "arg", start, offset, _arg_detail(a), str(a.description or ""), a.name + ("" if closed else "}"))
        for a in (workflow.args or () if workflow else ())
    ]


def _arg_detail(arg: ir.ArgDecl) -> str:
    return f"default: {arg.default!r}" if arg.has_default else "no default"


def _fields(workflow: ir.Workflow | None, before: str, offset: int) -> list[Candidate] | None:
    found = _FIELD_RE.search(before)
    if found is None:
        return None
    if found.group(2):  # inside `.json.a.`: the step's data has no declared shape
        return []
    start = offset - len(found.group(3))
    step = found.group(1)
    names = fields_of(workflow, step) if workflow is not None else tuple(FIELDS)
    return [Candidate(name, "field", start, offset, f"${step}.{name}", FIELDS[name]) for name in names]


def fields_of(workflow: ir.Workflow, name: str) -> tuple[str, ...]:
    """The fields a step's record can have (all of them for a name that is not a step: a loop variable, say)."""
    step = next((s for s in _every_step(workflow) if s.id == name), None)
    if step is None:
        return ("json", "stdout")
    gates = ("approved",) if step.approval is not None else ("response", "subject") if step.input is not None else ()
    return ("stdout", "json", *gates, "skipped", "error", "errorMessage")


def _every_step(workflow: ir.Workflow) -> Iterator[ir.Step]:
    for step in workflow.steps:
        yield step
        if isinstance(step.action, ir.ForEach):
            yield from step.action.steps


def _steps(workflow: ir.Workflow | None, before: str, offset: int) -> list[Candidate] | None:
    found = _STEP_RE.search(before)
    if found is None or workflow is None:
        return None if found is None else []
    start = offset - len(found.group(1))
    return [Candidate(name, "step", start, offset, detail, "", name + ".") for name, detail in visible_names(workflow, offset)]


def visible_names(workflow: ir.Workflow, offset: int) -> list[tuple[str, str]]:
    """Step ids whose records exist when the step at `offset` runs (all steps outside any step), and loop variables."""
    names: list[tuple[str, str]] = []
    for step in workflow.steps:
        if step.span.start <= offset <= step.span.end:
            if isinstance(step.action, ir.ForEach):
                names += _loop_names(step.action, offset)
            return names
        names.append((step.id, _kind(step.action, step)))
        if isinstance(step.action, ir.Parallel):
            names += ((b.id, "parallel branch") for b in step.action.branches)
    return names


def _loop_names(loop: ir.ForEach, offset: int) -> Iterator[tuple[str, str]]:
    yield (loop.item_var or "item", "loop item")
    yield (loop.index_var or "index", "loop index")
    for sub in loop.steps:
        if sub.span.end >= offset:
            break
        yield (sub.id, "loop sub-step")


def _kind(action: ir.Action | None, step: ir.Step) -> str:
    kinds = {ir.ShellRun: "shell step", ir.PipelineRun: "pipeline step", ir.WorkflowCall: "sub-workflow step",
             ir.Parallel: "parallel step", ir.ForEach: "for_each step"}
    if action is None:
        return "approval step" if step.approval is not None else "input step"
    gate = stage_gate(action.pipeline) if isinstance(action, ir.PipelineRun) else None
    if gate is not None:
        return f"pipeline step ({gate[2]} gate)"
    return kinds.get(type(action), "step")


def _in_pipeline(workflow: ir.Workflow | None, offset: int) -> bool:
    if workflow is None:
        return False
    return any(isinstance(a, ir.PipelineRun) and a.span.start < offset <= a.span.end for a in actions(workflow))


def _pipeline_text(before: str) -> str:
    value = _VALUE_RE.match(before)
    return value.group(2).lstrip("\"'>|- ") if value is not None and value.group(1) == "pipeline" else before


def last_stage(text: str) -> str:
    """The text after the last `|` that is outside quotes (the stage being typed)."""
    quote, start = "", 0
    for index, char in enumerate(text):
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char == "|":
            start = index + 1
    return text[start:]


def _pipeline(text: str, offset: int) -> list[Candidate]:
    stage = last_stage(text)
    words = stage.split()
    partial = "" if not words or stage[-1:].isspace() else words[-1]
    done = words[:-1] if partial else words
    start = offset - len(partial)
    if not done:
        return [Candidate(c.name, "command", start, offset, c.summary, _command_doc(c)) for c in COMMANDS]
    spec = BY_NAME.get(done[0])
    if spec is None:
        return []
    if "=" in partial and partial.startswith("--"):
        name, _, value = partial[2:].partition("=")
        return _choices(spec, name, offset - len(value), offset)
    if not partial and done[-1].startswith("--"):
        return _choices(spec, done[-1][2:], offset, offset)
    if partial.startswith("-") or not partial:
        return [Candidate("--" + f.name, "flag", start, offset, f.kind, f.help) for f in spec.flags]
    return []


def _choices(spec: CommandSpec, flag: str, start: int, end: int) -> list[Candidate]:
    found = next((f for f in spec.flags if f.name == flag), None)
    if found is None:
        return []
    return [Candidate(choice, "value", start, end, f"--{flag}", found.help) for choice in found.choices]


def _command_doc(spec: CommandSpec) -> str:
    lines = [spec.summary]
    lines += (f"`--{f.name}`: {f.help}" for f in spec.flags)
    lines += (f"e.g. `{e}`" for e in spec.examples[:1])
    return "\n\n".join(lines)


def _paths(directory: Path, written: str, offset: int) -> list[Candidate]:
    written = written.strip("\"'")
    folder, _, partial = written.rpartition("/")
    base = directory / folder if folder else directory
    try:
        entries = sorted(os.scandir(base), key=lambda e: e.name)
    except OSError:
        return []
    start = offset - len(partial)
    return [
        Candidate(e.name + ("/" if e.is_dir() else ""), "file", start, offset)
        for e in entries
        if not e.name.startswith(".") and (e.is_dir() or e.name.endswith(WORKFLOW_SUFFIXES))
    ]


def _keys(text: str, offset: int, partial: str) -> list[Candidate]:
    level = level_at(text, offset)
    if level is None:
        return []
    start = offset - len(partial)
    taken = sibling_keys(text, offset)
    return [Candidate(key, "key", start, offset, level, doc, key + ": ") for key, doc in keys_of(level).items() if key not in taken]
