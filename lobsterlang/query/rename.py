"""Rename a step id or an arg: check the new name, and list the edits (references, and `LOBSTER_ARG_<NAME>` words)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from lobsterlang import ir
from lobsterlang.query.names import NameKind, references, step_ids, unmapped

NAME_RE = re.compile(r"[A-Za-z0-9_-]+")
"""What `$id.field` and `${arg}` can name."""

TextEdit = tuple[int, int, str]
"""Replace `text[start:end]` with the string."""


def rename_problem(workflow: ir.Workflow, text: str, kind: NameKind, old: str, new: str) -> str | None:
    """Why `old` cannot become `new` (None when it can)."""
    if not NAME_RE.fullmatch(new):
        return f"`{new}` is not a valid {kind} name: use letters, digits, `_` and `-`"
    taken = step_ids(workflow) if kind == "step" else [a.name for a in workflow.args or ()]
    if new != old and new in taken:
        return f"a {kind} named `{new}` already exists"
    if kind == "arg" and new != old and env_name(new) in {env_name(n) for n in taken if n != old}:
        return f"`{new}` would share LOBSTER_ARG_{env_name(new)} with another arg"
    if unmapped(workflow, text, kind, old):
        return f"a reference to `{old}` is written with YAML escapes that cannot be renamed safely"
    if kind == "arg" and env_name(old) and not _env_words_mapped(workflow, text, env_name(old)):
        return f"LOBSTER_ARG_{env_name(old)} is written with YAML escapes that cannot be renamed safely"
    return None


def rename_edits(workflow: ir.Workflow, text: str, kind: NameKind, old: str, new: str) -> list[TextEdit]:
    """Every edit that renames `old` to `new` in this file, in source order."""
    edits = [(o.start, o.end, new) for o in references(workflow, text, kind, old)]
    if kind == "arg" and env_name(old) and env_name(new) != env_name(old):
        edits += _env_var_edits(workflow, text, env_name(old), env_name(new))
    return sorted(edits)


def env_name(arg: str) -> str:
    """The `<N>` of the `LOBSTER_ARG_<N>` variable the runtime sets for an arg."""
    return re.sub(r"[^A-Z0-9]+", "_", arg.strip().upper()).strip("_")


def _env_word(name: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![A-Za-z0-9_])LOBSTER_ARG_{re.escape(name)}(?![A-Za-z0-9_])")


def _env_var_edits(workflow: ir.Workflow, text: str, old: str, new: str) -> Iterator[TextEdit]:
    """The variable's name in the source of each text part: a folded or escaped scalar differs from its value
    only in whitespace and escapes, never inside such a word (`rename_problem` checks the counts agree)."""
    word = _env_word(old)
    for part in _text_parts(workflow):
        for found in word.finditer(text, part.span.start, part.span.end):
            start = found.start() + len("LOBSTER_ARG_")
            yield (start, start + len(old), new)


def _env_words_mapped(workflow: ir.Workflow, text: str, name: str) -> bool:
    word = _env_word(name)
    return all(
        len(word.findall(part.value)) == len(word.findall(text, part.span.start, part.span.end))
        for part in _text_parts(workflow)
    )


def _text_parts(workflow: ir.Workflow) -> Iterator[ir.Text]:
    seen = set()
    for template in templates(workflow):
        for part in template.parts:
            if isinstance(part, ir.Text) and part.span.start not in seen:
                seen.add(part.span.start)
                yield part


def templates(workflow: ir.Workflow) -> Iterator[ir.Template]:
    """Every template the runtime renders (commands, pipelines, env, cwd, stdin, workflow calls)."""
    yield from (v.template for v in workflow.env or () if v.template is not None)
    if workflow.cwd is not None:
        yield workflow.cwd
    for step in workflow.steps:
        yield from _node_templates(step)
        if isinstance(step.action, ir.Parallel):
            for branch in step.action.branches:
                yield from _node_templates(branch)
        elif isinstance(step.action, ir.ForEach):
            if isinstance(step.action.source, ir.StdinTemplate):
                yield step.action.source.template
            for sub in step.action.steps:
                yield from _node_templates(sub)


def _node_templates(node: ir.Step | ir.Branch) -> Iterator[ir.Template]:
    action = node.action
    if isinstance(action, ir.ShellRun):
        yield action.command
    elif isinstance(action, ir.PipelineRun):
        yield action.template
    elif isinstance(action, ir.WorkflowCall):
        yield action.path
        yield from (a.template for a in action.args or () if a.template is not None)
    yield from (v.template for v in node.env or () if v.template is not None)
    if node.cwd is not None:
        yield node.cwd
    if isinstance(node.stdin, ir.StdinTemplate):
        yield node.stdin.template

