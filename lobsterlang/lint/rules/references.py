"""L1xx: references to steps, args and environment variables that do not resolve."""

from __future__ import annotations

import re
from collections.abc import Iterator
from difflib import get_close_matches
from functools import lru_cache

from lobsterlang import ir
from lobsterlang.diagnostics import Diagnostic, Severity
from lobsterlang.lint.context import LintContext
from lobsterlang.lint.registry import rule
from lobsterlang.lint.scope import is_shell_like_name, loop_vars, visible
from lobsterlang.lint.textmap import part_offsets
from lobsterlang.lint.walk import Unit

_STRICT_FIELDS = frozenset({"stdin", "for_each", "when"})
_LOBSTER_ENV_RE = re.compile(r"(?<![A-Za-z0-9_])(LOBSTER_[A-Z0-9_]*[A-Z0-9])")
RUNTIME_ENV = frozenset(
    {
        "LOBSTER_ARGS_JSON", "LOBSTER_SHELL", "LOBSTER_STATE_DIR", "LOBSTER_CACHE_DIR", "LOBSTER_RUN_STATE_KEY",
        "LOBSTER_OPENCLAW_BIN", "LOBSTER_MAX_TOOL_ENVELOPE_BYTES", "LOBSTER_APPROVAL_APPROVED_BY",
        "LOBSTER_APPROVAL_INITIATED_BY", "LOBSTER_APPROVAL_REQUIRED_APPROVER", "LOBSTER_APPROVAL_REQUIRE_DIFFERENT_APPROVER",
        "LOBSTER_APPROVAL_INPUT_TIMEOUT_MS", "LOBSTER_LLM_PROVIDER", "LOBSTER_LLM_MODEL", "LOBSTER_LLM_ADAPTER_URL",
        "LOBSTER_PI_LLM_ADAPTER_URL", "LOBSTER_LLM_VALIDATION_RETRIES", "LOBSTER_LLM_PRICING_JSON",
        "LOBSTER_LLM_SCHEMA_VERSION", "LOBSTER_LLM_FORCE_REFRESH",
    }
)


_NOT_ENV_CHARS = re.compile(r"[^A-Z0-9]+")


@lru_cache(maxsize=1024)
def env_arg_name(name: str) -> str:
    """`LOBSTER_ARG_<N>`'s N for an arg name, normalised as the runtime does (may be empty)."""
    return _NOT_ENV_CHARS.sub("_", name.strip().upper()).strip("_")


def step_refs(ctx: LintContext) -> tuple[tuple[Unit, ir.StepRef, str], ...]:
    return ctx.step_refs


def _resolve(ctx: LintContext, unit: Unit, name: str) -> list[Unit]:
    return [u for u in ctx.by_id.get(name, ()) if u.kind != "substep" or u.loop is unit.loop]


def _is_loop_var(unit: Unit, name: str) -> bool:
    return unit.loop is not None and name in loop_vars(unit.loop)


def _unknown(ctx: LintContext, unit: Unit, ref: ir.StepRef, field: str) -> bool:
    if _is_loop_var(unit, ref.step) or _resolve(ctx, unit, ref.step):
        return False
    return field in _STRICT_FIELDS or not is_shell_like_name(ref.step)


@rule("L101", "unknown-step-ref", Severity.ERROR, "a `$step.field` reference names a step that does not exist")
def unknown_step_ref(ctx: LintContext) -> Iterator[Diagnostic]:
    known = sorted({u.id for u in ctx.units})
    for unit, ref, field in step_refs(ctx):
        if not _unknown(ctx, unit, ref, field):
            continue
        close = get_close_matches(ref.step, known, n=1)
        inner = [u for u in ctx.by_id.get(ref.step, ()) if u.kind == "substep"]
        if inner:
            hint = "for_each sub-step results exist only inside their loop; reference the loop step instead"
        else:
            hint = f"did you mean `${close[0]}`?" if close else "reference an earlier step by its id"
        effect = "fails at run time" if field in _STRICT_FIELDS else "is left in the text verbatim"
        yield ctx.diag("L101", ref.span, f"unknown step `{ref.step}` in `{ref.text}` ({field}); the reference {effect}", hint)


def _targets(ctx: LintContext, unit: Unit, ref: ir.StepRef) -> list[Unit]:
    return [] if _is_loop_var(unit, ref.step) else _resolve(ctx, unit, ref.step)


@rule("L102", "forward-step-ref", Severity.ERROR, "a reference to a step that has not run yet")
def forward_step_ref(ctx: LintContext) -> Iterator[Diagnostic]:
    for unit, ref, field in step_refs(ctx):
        targets = [t for t in _targets(ctx, unit, ref) if t is not unit and not (t.kind == "step" and t.step is unit.step)]
        if targets and not any(visible(unit, t) for t in targets):
            why = "runs concurrently" if targets[0].kind == "branch" and targets[0].step is unit.step else "runs later"
            yield ctx.diag("L102", ref.span, f"`{ref.text}` refers to step `{ref.step}`, which {why} ({field} of {unit.id})",
                           "steps can only read the results of steps before them; move the step or the reference")


@rule("L103", "self-step-ref", Severity.ERROR, "a step refers to its own result")
def self_step_ref(ctx: LintContext) -> Iterator[Diagnostic]:
    for unit, ref, field in step_refs(ctx):
        if ref.step == unit.id and not _is_loop_var(unit, ref.step):
            yield ctx.diag("L103", ref.span, f"step `{unit.id}` refers to its own result `{ref.text}` ({field})",
                           "a step's record does not exist while it runs; reference an earlier step")


@rule("L104", "approved-not-approval", Severity.WARNING, "`.approved` on a step that is not an approval step")
def approved_not_approval(ctx: LintContext) -> Iterator[Diagnostic]:
    for unit, ref, field in step_refs(ctx):
        if ref.field != "approved":
            continue
        targets = _targets(ctx, unit, ref)
        if targets and not any(t.kind == "step" and t.step.approval is not None for t in targets):
            yield ctx.diag("L104", ref.span, f"`{ref.text}` is always false: step `{ref.step}` has no approval ({field})",
                           f"add `approval:` to step `{ref.step}`, or reference the approval step that gates it")


def arg_refs(ctx: LintContext) -> Iterator[ir.ArgRef]:
    for unit in ctx.units:
        for template, _ in ctx.templates(unit):
            yield from (p for p in template.parts if isinstance(p, ir.ArgRef))
        if unit.cwd is not None:
            yield from (p for p in unit.cwd.parts if isinstance(p, ir.ArgRef))
    workflow = ctx.workflow
    if workflow is not None:
        for maybe in [workflow.cwd, *(e.template for e in workflow.env or ())]:
            yield from (p for p in (maybe.parts if maybe else ()) if isinstance(p, ir.ArgRef))


@rule("L105", "undeclared-arg", Severity.WARNING, "a `${arg}` that is not declared in `args`")
def undeclared_arg(ctx: LintContext) -> Iterator[Diagnostic]:
    if ctx.workflow is None:
        return
    names = sorted(ctx.arg_names)
    for ref in arg_refs(ctx):
        if ref.name not in ctx.arg_names:
            close = get_close_matches(ref.name, names, n=1)
            hint = f"did you mean `${{{close[0]}}}`?" if close else f"declare it: `args: {{{ref.name}: {{default: ...}}}}`"
            yield ctx.diag("L105", ref.span, f"`${{{ref.name}}}` is not declared in args; without a value it stays in the text verbatim", hint)


def all_texts(ctx: LintContext) -> Iterator[tuple[ir.Template, Unit | None]]:
    """Every template of the file with its unit (None for workflow-level env and cwd)."""
    for unit in ctx.units:
        for template, _ in ctx.templates(unit):
            yield template, unit
    workflow = ctx.workflow
    if workflow is not None:
        for env in workflow.env or ():
            if env.template is not None:
                yield env.template, None


@rule("L106", "unused-arg", Severity.WARNING, "a declared arg that nothing uses")
def unused_arg(ctx: LintContext) -> Iterator[Diagnostic]:
    workflow = ctx.workflow
    if workflow is None or not workflow.args:
        return
    used = {ref.name for ref in arg_refs(ctx)}
    texts = "\n".join(t.text for t, _ in all_texts(ctx))
    if "LOBSTER_ARGS_JSON" in texts:
        return
    env_names = set(_LOBSTER_ENV_RE.findall(texts))
    for arg in workflow.args:
        if arg.name not in used and f"LOBSTER_ARG_{env_arg_name(arg.name)}" not in env_names:
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


@rule("L107", "unknown-lobster-env", Severity.WARNING, "a `LOBSTER_*` environment variable the runtime does not provide")
def unknown_lobster_env(ctx: LintContext) -> Iterator[Diagnostic]:
    args = {f"LOBSTER_ARG_{env_arg_name(n)}" for n in ctx.arg_names}
    for template, unit in all_texts(ctx):
        declared = args | _defined_env(ctx, unit)
        for start, part in part_offsets(template):
            if not isinstance(part, ir.Text):
                continue
            for found in _LOBSTER_ENV_RE.finditer(part.value):
                problem = _env_problem(found.group(1), declared)
                if problem:
                    span = ctx.textmap.span(template, start + found.start(1), start + found.end(1))
                    yield ctx.diag("L107", span, problem[0], problem[1])
