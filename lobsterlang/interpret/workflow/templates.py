"""Render templates: `${arg}` and `$step.path` into shell text, env values, stdin and paths.

Author text is code, caller text is data: a value a caller supplied never becomes code: in shell text
its `${arg}` becomes a quoted reference to an environment variable holding the value; an arg that
holds the default the file declares (`Scope.authored`) is the author's own shell text and is written
in as it stands, as the reference does (`${CHANNEL:-whatsapp}` expands). Arg values are never scanned
for `$step` references. `raw=True` restores the reference's raw text substitution (`--raw-args`).
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from lobsterlang import ir
from lobsterlang.interpret.values import js_string
from lobsterlang.interpret.workflow.argvars import arg_var_name
from lobsterlang.interpret.workflow.errors import WorkflowError
from lobsterlang.interpret.workflow.evalargs import check_value, value_uses
from lobsterlang.interpret.workflow.refs import Results, render_ref
from lobsterlang.interpret.workflow.shellscan import ShellContext, context_at_end
from lobsterlang.span import Span

STEP_REF = re.compile(r"\$([A-Za-z0-9_-]+)\.([A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*)")
ARG_VAR = re.compile(r"\$(?:\{(LOBSTER_ARG_[A-Z0-9_]+)\}|(LOBSTER_ARG_[A-Z0-9_]+)(?![A-Za-z0-9_]))")


class TemplateError(WorkflowError):
    """An arg value that cannot be placed where its `${arg}` stands."""


@dataclass
class Scope:
    """What templates see: resolved args, step records, whether args are substituted raw, and which args hold the
    file's own default (shell text runs those as written)."""

    args: Mapping[str, Any]
    results: Results
    raw: bool = False
    authored: frozenset[str] = frozenset()


def arg_text(scope: Scope, name: str) -> str | None:
    """`String(value)` of an arg, or None when no such arg exists (the text stays `${name}`)."""
    return js_string(scope.args[name]) if name in scope.args else None


def render(template: ir.Template, scope: Scope) -> str:
    """Plain rendering (env values, stdin, paths, workflow_args, pipeline words)."""
    if scope.raw:
        return render_raw(template, scope)
    out = []
    for part in template.parts:
        if isinstance(part, ir.Text):
            out.append(part.value)
        elif isinstance(part, ir.ArgRef):
            text = arg_text(scope, part.name)
            out.append("${" + part.name + "}" if text is None else text)
        else:
            out.append(render_ref(scope.results, part))
    return "".join(out)


def render_raw(template: ir.Template, scope: Scope) -> str:
    """The reference's way: substitute args as text, then resolve `$step` refs in the result."""
    text = "".join(_raw_part(part, scope) for part in template.parts)
    return STEP_REF.sub(lambda m: _raw_ref(m, scope, template.span), text)


def _raw_part(part: ir.TemplatePart, scope: Scope) -> str:
    if isinstance(part, ir.Text):
        return part.value
    if isinstance(part, ir.StepRef):
        return part.text
    text = arg_text(scope, part.name)
    return "${" + part.name + "}" if text is None else text


def _raw_ref(match: re.Match[str], scope: Scope, span: Span) -> str:
    return render_ref(scope.results, ir.StepRef(match.group(1), tuple(match.group(2).split(".")), span))


def render_env_value(template: ir.Template, scope: Scope, arg_env: Mapping[str, str]) -> str:
    """An env value: like `render`, and `$LOBSTER_ARG_<NAME>` in its literal text is the arg's value."""
    if not any(isinstance(p, ir.Text) and "LOBSTER_ARG_" in p.value for p in template.parts):
        return render(template, scope)
    parts = tuple(
        ir.Text(ARG_VAR.sub(lambda m: arg_env.get(m.group(1) or m.group(2), m.group(0)), p.value), p.span)
        if isinstance(p, ir.Text) else p
        for p in template.parts
    )
    return render(ir.Template(template.text, parts, template.span), scope)


@dataclass
class ShellText:
    """A command ready for the shell, plus variables that carry arg values into it."""

    command: str
    env: dict[str, str] = field(default_factory=dict)


def render_shell(
    template: ir.Template, scope: Scope, env: Mapping[str, str], posix: bool = True, *, checked: bool = False
) -> ShellText:
    """Shell text where each `${arg}` is a reference to a variable holding its value, quoted for its context.

    `checked`: the caller has run `check_shell_args` on this template with these args already.
    """
    given = scope.args.keys() - scope.authored
    if scope.raw or not posix or not any(isinstance(p, ir.ArgRef) and p.name in given for p in template.parts):
        return ShellText(render(template, scope))
    if not checked:
        check_shell_args(template, scope.args, authored=scope.authored)
    out: list[str] = []
    extra: dict[str, str] = {}
    for part in template.parts:
        if isinstance(part, ir.Text):
            out.append(part.value)
        elif isinstance(part, ir.StepRef):
            out.append(render_ref(scope.results, part))
        elif part.name not in scope.args:
            out.append("${" + part.name + "}")
        elif part.name in scope.authored:  # the file's own default: shell text as its author wrote it
            out.append(str(arg_text(scope, part.name)))
        else:
            value = str(arg_text(scope, part.name))
            out.append(_reference(context_at_end("".join(out)), value, _variable(part.name, scope, env, extra), out))
    return ShellText("".join(out), extra)


def check_shell_args(template: ir.Template, args: Mapping[str, Any], raw: bool = False,
                     authored: frozenset[str] = frozenset()) -> None:
    """Refuse an arg whose value could run where its reference stands (runs and dry runs alike): in bash
    arithmetic, a variable name, a quoted array assignment, or a here-document or here-string another
    program runs (`evalargs`). Step references are not checked: their text is pasted as it is. An `authored`
    arg (the file's own default) is the author's shell text: it is written in, not checked.
    """
    if raw:
        return
    text, refs = _arg_refs(template, args, authored)
    if not refs:
        return
    uses = value_uses(text, tuple(span for span, _ in refs))
    for (_, name), use in zip(refs, uses, strict=True):
        check_value(name, js_string(args[name]), use)


def _arg_refs(
    template: ir.Template, args: Mapping[str, Any], authored: frozenset[str]
) -> tuple[str, list[tuple[tuple[int, int], str]]]:
    """The shell text as the shell will parse it (authored args written in, the others left as `${name}`), and
    where each other `${arg}` with a value stands in it (start, end), with its name."""
    out: list[str] = []
    refs, at = [], 0
    for part in template.parts:
        if isinstance(part, ir.Text):
            piece = part.value
        elif isinstance(part, ir.StepRef):
            piece = part.text
        elif part.name in authored and part.name in args:
            piece = js_string(args[part.name])
        else:
            piece = "${" + part.name + "}"
            if part.name in args:
                refs.append(((at, at + len(piece)), part.name))
        out.append(piece)
        at += len(piece)
    return "".join(out), refs


def _variable(name: str, scope: Scope, env: Mapping[str, str], extra: dict[str, str]) -> str:
    """The variable holding the arg: its LOBSTER_ARG_<NAME> unless that was overridden or is shared."""
    value = str(arg_text(scope, name))
    var = arg_var_name(name)
    if var and env.get(var) == value:
        return var
    for key, existing in extra.items():
        if existing == value:
            return key
    private = f"LOBSTER_ARGV_{secrets.token_hex(4).upper()}"
    extra[private] = value
    return private


def _reference(context: ShellContext, value: str, var: str, out: list[str]) -> str:
    ref = "${" + var + "}"
    if context.kind == "sq":
        return "'\"" + ref + "\"'"
    if context.kind == "heredoc":
        return _heredoc_text(context, value, ref)
    if context.kind == "dq":
        return ("\\" if context.escaped else "") + ref
    if context.kind in ("arith", "comment"):
        return ref
    if context.escaped:
        out[-1] = out[-1][:-1]
    return '"' + ref + '"'


def _heredoc_text(context: ShellContext, value: str, ref: str) -> str:
    heredoc = context.heredoc
    assert heredoc is not None
    if not heredoc.quoted:
        return ref
    if any((line.lstrip("\t") if heredoc.strip_tabs else line) == heredoc.delimiter for line in value.split("\n")):
        raise TemplateError(f"an arg value contains the here-document delimiter {heredoc.delimiter}")
    return value
