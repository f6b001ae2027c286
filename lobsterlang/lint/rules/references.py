"""L1xx: references to steps, args and environment variables that do not resolve."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache

from lobsterlang import ir
from lobsterlang.diagnostics import Diagnostic, Severity
from lobsterlang.lint.context import LintContext
from lobsterlang.lint.registry import rule
from lobsterlang.lint.scope import is_shell_like_name, loop_vars, visible
from lobsterlang.lint.walk import Unit
from lobsterlang.suggest import closest
from lobsterlang.syntax.shellparse import Context, jq_bindings, parse

_STRICT_FIELDS = frozenset({"stdin", "for_each", "when"})
_LOBSTER_ENV_RE = re.compile(r"(?<![A-Za-z0-9_])(LOBSTER_[A-Za-z0-9_]*[A-Za-z0-9])")
SHELL_FIELDS = frozenset({"run", "command"})
RUNTIME_ENV = frozenset(
    {
        "LOBSTER_ARGS_JSON", "LOBSTER_SHELL", "LOBSTER_STATE_DIR", "LOBSTER_CACHE_DIR", "LOBSTER_RUN_STATE_KEY",
        "LOBSTER_OPENCLAW_BIN", "LOBSTER_MAX_TOOL_ENVELOPE_BYTES", "LOBSTER_APPROVAL_APPROVED_BY",
        "LOBSTER_APPROVAL_INITIATED_BY", "LOBSTER_APPROVAL_REQUIRED_APPROVER", "LOBSTER_APPROVAL_REQUIRE_DIFFERENT_APPROVER",
        "LOBSTER_APPROVAL_INPUT_TIMEOUT_MS", "LOBSTER_LLM_PROVIDER", "LOBSTER_LLM_MODEL", "LOBSTER_LLM_ADAPTER_URL",
        "LOBSTER_PI_LLM_ADAPTER_URL", "LOBSTER_LLM_VALIDATION_RETRIES", "LOBSTER_LLM_PRICING_JSON",
        "LOBSTER_LLM_SCHEMA_VERSION", "LOBSTER_LLM_FORCE_REFRESH", "LOBSTER_MAX_OUTPUT_BYTES",
        "LOBSTER_MAX_HTTP_RESPONSE_BYTES", "LOBSTER_IDEMPOTENCY_KEY", "LOBSTER_DISPATCH_SOCKET", "LOBSTER_DISPATCH_TOKEN",
    }
)


_NOT_ENV_CHARS = re.compile(r"[^A-Z0-9]+")


@lru_cache(maxsize=1024)
def env_arg_name(name: str) -> str:
    """`LOBSTER_ARG_<N>`'s N for an arg name, normalised as the runtime does (may be empty)."""
    return _NOT_ENV_CHARS.sub("_", name.strip().upper()).strip("_")


Resolved = tuple[Unit, ir.StepRef, str, list[Unit] | None]
"""A step reference, its unit and field, and the steps it can name (None: a loop variable)."""


def _resolve(ctx: LintContext, unit: Unit, name: str) -> list[Unit] | None:
    """The units that `$name` can mean where `unit` runs (None: a loop variable)."""
    if unit.loop is not None and name in loop_vars(unit.loop):
        return None
    found = []
    for target in ctx.by_id.get(name, ()):
        if target.kind != "substep" or target.loop is unit.loop:
            found.append(target)
    return found


def resolved_refs(ctx: LintContext) -> tuple[Resolved, ...]:
    """Every step reference with what it resolves to (shared by L101-L104).

    Outside loops a name means the same units everywhere, so it is resolved once (and the
    references to it share that list: read it, never change it).
    """
    outside: dict[str, list[Unit] | None] = {}
    found: list[Resolved] = []
    for unit, ref, field in ctx.step_refs:
        if unit.loop is not None:
            targets = _resolve(ctx, unit, ref.step)
        elif ref.step in outside:
            targets = outside[ref.step]
        else:
            targets = outside[ref.step] = _resolve(ctx, unit, ref.step)
        found.append((unit, ref, field, targets))
    return tuple(found)


def bound_names(unit: Unit) -> set[str]:
    """Names that the unit's shell script or jq program binds itself (`for id in …`, `as $i`, `x=…`)."""
    action = unit.action
    if type(action) is ir.ShellRun:
        return parse(action.command.text).bound
    if type(action) is ir.PipelineRun:
        return set(jq_bindings(action.template.text))
    return set()


def _reported(ctx: LintContext, unit: Unit, ref: ir.StepRef, field: str) -> bool:
    """Whether a reference that names no step is reported.

    In a whole value (`stdin:`, `when:`, `for_each:`) it fails the run. In text the reference
    leaves it verbatim, so `$i.url` in a jq program or `$id.json` in a loop is the script's own
    business: only a near-typo of an existing step id, not bound by the script, is a defect.
    """
    if field in _STRICT_FIELDS or _renamed_loop_var(unit, ref.step):
        return True
    if is_shell_like_name(ref.step) or not (_inner_only(ctx, ref) or closest(ref.step, ctx.by_id) is not None):
        return False
    return ref.step not in bound_names(unit)


def _renamed_loop_var(unit: Unit, name: str) -> bool:
    """`$item`/`$index` inside a loop that named its variables otherwise (`item_var: msg`)."""
    loop = unit.loop
    return loop is not None and ((name == "item" and loop.item_var not in (None, "item")) or (name == "index" and loop.index_var not in (None, "index")))


def _inner_only(ctx: LintContext, ref: ir.StepRef) -> bool:
    return any(u.kind == "substep" for u in ctx.by_id.get(ref.step, ()))


@rule("L101", "unknown-step-ref", Severity.ERROR, "a `$step.field` reference names a step that does not exist")
def unknown_step_ref(ctx: LintContext) -> Iterator[Diagnostic]:
    for unit, ref, field, targets in ctx.shared(resolved_refs):
        if targets is not None and not targets and _reported(ctx, unit, ref, field):
            yield _unknown_ref(ctx, unit, ref, field)


def _unknown_ref(ctx: LintContext, unit: Unit, ref: ir.StepRef, field: str) -> Diagnostic:
    if _renamed_loop_var(unit, ref.step):
        assert unit.loop is not None
        named = loop_vars(unit.loop)[0 if ref.step == "item" else 1]
        hint = f"this loop names its {ref.step} `{named}` (`{'item' if ref.step == 'item' else 'index'}_var`): write `${named}.{'.'.join(ref.path)}`"
    elif _inner_only(ctx, ref):
        hint = "for_each sub-step results exist only inside their loop; reference the loop step instead"
    else:
        close = closest(ref.step, ctx.by_id)
        hint = f"did you mean `${close}`?" if close else "reference an earlier step by its id"
    effect = "fails at run time" if field in _STRICT_FIELDS else "is left in the text verbatim"
    return ctx.diag("L101", ref.span, f"unknown step `{ref.step}` in `{ref.text}` ({field}); the reference {effect}", hint)


RECORD_FIELDS = frozenset({"id", "stdout", "json", "approved", "skipped", "error", "errorMessage"})
"""What the record of a `run:`/`pipeline:`/loop/parallel/sub-workflow step can hold (approval and input steps:
compile's gate checks)."""


def unknown_field(ctx: LintContext, unit: Unit, ref: ir.StepRef, targets: list[Unit] | None) -> bool:
    """Whether `ref` reads a field no record of its (non-gate) step has: always empty in both runtimes."""
    if not targets or ref.field in RECORD_FIELDS:
        return False
    return not any(t.gate is not None for t in targets)


@rule("L108", "unknown-step-field", Severity.ERROR, "a `$step.field` reference to a field that a step's result never has")
def unknown_step_field(ctx: LintContext) -> Iterator[Diagnostic]:
    for unit, ref, field, targets in ctx.shared(resolved_refs):
        if unknown_field(ctx, unit, ref, targets):
            close = closest(ref.field, RECORD_FIELDS)
            hint = f"did you mean `${ref.step}.{close}`?" if close else "a step's result has `stdout` (its output) and `json` (the output parsed as JSON)"
            yield ctx.diag("L108", ref.span, f"`{ref.text}` is always empty: step `{ref.step}`'s result has no field `{ref.field}` ({field})", hint)


@rule("L102", "forward-step-ref", Severity.ERROR, "a reference to a step that has not run yet")
def forward_step_ref(ctx: LintContext) -> Iterator[Diagnostic]:
    for unit, ref, field, found in ctx.shared(resolved_refs):
        if not found or (found[0].kind == "step" and found[0].index < unit.index):
            continue  # the common case: an earlier top-level step, visible and not the unit's own
        targets = _others(unit, found)
        if targets and not any(visible(unit, t) for t in targets):
            why = "runs concurrently" if targets[0].kind == "branch" and targets[0].step is unit.step else "runs later"
            yield ctx.diag("L102", ref.span, f"`{ref.text}` refers to step `{ref.step}`, which {why} ({field} of {unit.id})",
                           "steps can only read the results of steps before them; move the step or the reference")


def _others(unit: Unit, targets: list[Unit]) -> list[Unit]:
    """The targets other than `unit` itself and its own step."""
    found = []
    for target in targets:
        if target is not unit and not (target.kind == "step" and target.step is unit.step):
            found.append(target)
    return found


@rule("L103", "self-step-ref", Severity.ERROR, "a step refers to its own result")
def self_step_ref(ctx: LintContext) -> Iterator[Diagnostic]:
    for unit, ref, field, targets in ctx.shared(resolved_refs):
        if ref.step == unit.id and targets is not None:
            yield ctx.diag("L103", ref.span, f"step `{unit.id}` refers to its own result `{ref.text}` ({field})",
                           "a step's record does not exist while it runs; reference an earlier step")


@rule("L104", "approved-not-approval", Severity.WARNING, "`.approved` on a step that is not an approval step")
def approved_not_approval(ctx: LintContext) -> Iterator[Diagnostic]:
    for _, ref, field, targets in ctx.shared(resolved_refs):
        if ref.path[0] != "approved" or not targets:
            continue
        if not any(t.gate == "approval" for t in targets):
            yield ctx.diag("L104", ref.span, f"`{ref.text}` is always false: step `{ref.step}` has no approval ({field})",
                           f"add `approval:` to step `{ref.step}`, or reference the approval step that gates it")


def _template_args(found: list[ir.ArgRef], template: ir.Template | None) -> None:
    if template is not None:
        found += [part for part in template.parts if type(part) is ir.ArgRef]


def arg_refs(ctx: LintContext) -> tuple[ir.ArgRef, ...]:
    """Every `${arg}` of the file, in order (shared by L105 and L106)."""
    found: list[ir.ArgRef] = []
    for unit in ctx.units:
        found += unit.arg_refs
        if unit.cwd is not None:
            _template_args(found, unit.cwd)
    workflow = ctx.workflow
    if workflow is not None:
        _template_args(found, workflow.cwd)
        for env in workflow.env or ():
            _template_args(found, env.template)
    return tuple(found)


def shell_arg_sites(ctx: LintContext) -> dict[int, tuple[str, int]]:
    """For each `${…}` in shell text (by `id`): the text and the offset where it stands."""
    found: dict[int, tuple[str, int]] = {}
    for _, run in ctx.shell_runs:
        for start, part in ctx.offsets(run.command):
            if type(part) is ir.ArgRef:
                found[id(part)] = (run.command.text, start)
    return found


def _shell_sees(ctx: LintContext, ref: ir.ArgRef) -> tuple[Context, bool] | None:
    """Where the shell sees a `${…}` of shell text, and whether the text itself means the name: the script binds it,
    or it stands in the code of another language (a JavaScript template literal in `node -e '…'`, a heredoc fed
    to `python3`). None: not shell text."""
    site = ctx.shared(shell_arg_sites).get(id(ref))
    if site is None:
        return None
    script = parse(site[0])
    return script.context(site[1]), ref.name in script.bound or script.foreign_code(site[1])


def plausible_arg(ctx: LintContext, ref: ir.ArgRef) -> bool:
    """Whether an undeclared `${name}` was meant as an arg.

    Not: names the script binds (`tip=$(cat)`, `for`, `read`, `case`), text in another language's code
    (`node -e '… ${x} …'`), ALL_CAPS environment names (`${HOME}`, `${BRAVE_API_KEY}`, `${NUM-default}` in shell
    text), positional parameters (`${1}`), and text the shell never expands (single quotes, quoted heredocs,
    comments) unless it is a near-typo of a declared arg, which both runtimes substitute there too.
    """
    where = _shell_sees(ctx, ref)
    if where is not None and where[1]:
        return False
    if closest(ref.name, ctx.arg_names) is not None:
        return True
    if ref.name.upper() == ref.name:
        return False
    if where is not None and "-" in ref.name and ref.name.split("-", 1)[0].isupper():
        return False  # `${NUM-unset}`: the shell's use-a-default expansion of NUM
    return where is None or where[0] not in _VERBATIM


_VERBATIM = frozenset({"single", "quoted-heredoc", "comment"})


@rule("L105", "undeclared-arg", Severity.WARNING, "a `${arg}` that is not declared in `args`", per_step=True)
def undeclared_arg(ctx: LintContext) -> Iterator[Diagnostic]:
    if ctx.workflow is None:
        return
    for ref in ctx.shared(arg_refs):
        if ref.name not in ctx.arg_names and plausible_arg(ctx, ref):
            close = closest(ref.name, ctx.arg_names)
            hint = f"did you mean `${{{close}}}`?" if close else f"declare it: `args: {{{ref.name}: {{default: ...}}}}`"
            yield ctx.diag("L105", ref.span, f"`${{{ref.name}}}` is not declared in args; without a value it stays in the text verbatim", hint)


def all_texts(ctx: LintContext) -> tuple[tuple[ir.Template, Unit | None], ...]:
    """Every template of the file with its unit (None for workflow-level env and cwd)."""
    found: list[tuple[ir.Template, Unit | None]] = []
    for unit in ctx.units:
        for template, _ in unit.templates:
            found.append((template, unit))
    workflow_env = ctx.workflow.env if ctx.workflow else None
    for env in workflow_env or ():
        if env.template is not None:
            found.append((env.template, None))
    return tuple(found)


def joined_text(ctx: LintContext) -> str:
    """The text of every template (`all_texts`), one per line (for a quick look before scanning each)."""
    return "\n".join(template.text for template, _ in ctx.shared(all_texts))


@rule("L106", "unused-arg", Severity.WARNING, "a declared arg that nothing uses")
def unused_arg(ctx: LintContext) -> Iterator[Diagnostic]:
    workflow = ctx.workflow
    if workflow is None or not workflow.args:
        return
    used = {ref.name for ref in ctx.shared(arg_refs)}
    unused = [arg for arg in workflow.args if arg.name not in used]
    texts = ctx.shared(joined_text) if unused else ""
    if "LOBSTER_ARGS_JSON" in texts:
        return
    env_names = set(_LOBSTER_ENV_RE.findall(texts)) if "LOBSTER_" in texts else set()
    for arg in unused:
        if f"LOBSTER_ARG_{env_arg_name(arg.name)}" not in env_names:
            yield ctx.diag("L106", arg.name_span, f"arg `{arg.name}` is declared but never used",
                           f"use it as `\"$LOBSTER_ARG_{env_arg_name(arg.name)}\"` in a command, or remove it")


def _defined_env(ctx: LintContext, unit: Unit | None) -> set[str]:
    names = {e.name for e in (ctx.workflow.env if ctx.workflow else None) or ()}
    if unit is not None:
        names |= {e.name for e in unit.env or ()}
        names |= {e.name for e in unit.step.env or ()}
    return names


def _env_problem(name: str, declared: set[str]) -> tuple[str, str] | None:
    if name in RUNTIME_ENV or name in declared:
        return None
    if name.startswith("LOBSTER_ARG_"):
        return f"`{name}` is not set: no declared arg normalises to `{name[12:]}`", "declare the arg in `args:`, or fix the name"
    if name.startswith("LOBSTER_STEP"):
        return f"the runtime does not set `{name}`", "read step results with `stdin: $step.json` or an `env:` entry `X: $step.stdout`"
    return f"the runtime does not set `{name}`", "lobster sets only LOBSTER_ARGS_JSON and LOBSTER_ARG_<NAME>; pass other values through `env:`"


@rule("L107", "unknown-lobster-env", Severity.WARNING, "a `LOBSTER_*` environment variable the runtime does not provide", per_step=True)
def unknown_lobster_env(ctx: LintContext) -> Iterator[Diagnostic]:
    if "LOBSTER_" not in ctx.shared(joined_text):
        return
    args = {f"LOBSTER_ARG_{env_arg_name(n)}" for n in ctx.arg_names}
    for template, unit in ctx.shared(all_texts):
        if "LOBSTER_" in template.text:
            yield from _env_uses(ctx, template, args | _defined_env(ctx, unit))


def _env_uses(ctx: LintContext, template: ir.Template, declared: set[str]) -> Iterator[Diagnostic]:
    for start, part in ctx.offsets(template):
        if not isinstance(part, ir.Text):
            continue
        for found in _LOBSTER_ENV_RE.finditer(part.value):
            problem = _env_problem(found.group(1), declared)
            if problem:
                span = ctx.textmap.span(template, start + found.start(1), start + found.end(1))
                yield ctx.diag("L107", span, problem[0], problem[1])
