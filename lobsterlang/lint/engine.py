"""Run the rules over compiled sources: compile, check, shellcheck (batched), configure, suppress."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from lobsterlang import ir
from lobsterlang.compile import compile_pipeline, compile_workflow
from lobsterlang.diagnostics import Diagnostic
from lobsterlang.lint.config import Config
from lobsterlang.lint.context import LintContext
from lobsterlang.lint.registry import all_rules
from lobsterlang.lint.rules import shellcheck
from lobsterlang.lint.suppress import apply_suppressions
from lobsterlang.record import Record, replace


class Source(Record):
    """One input: a workflow file's contents (or a pipeline string when `pipeline` is True)."""

    path: str
    data: bytes | str
    pipeline: bool = False


class FileResult(Record):
    """The findings of one source, sorted by position, with its text and IR."""

    path: str
    text: str
    workflow: ir.Workflow | None
    diagnostics: tuple[Diagnostic, ...]


class _Pending:
    """A source between compiling and reporting."""

    def __init__(self, ctx: LintContext, diagnostics: list[Diagnostic]) -> None:
        self.ctx = ctx
        self.diagnostics = diagnostics


def lint_source(source: Source, config: Config | None = None) -> FileResult:
    return lint_sources([source], config)[0]


def lint_sources(sources: Sequence[Source], config: Config | None = None) -> list[FileResult]:
    """Lint every source; shellcheck runs once for all of their scripts."""
    config = config or Config()
    pending = [_check(source, config) for source in sources]
    if config.shellcheck and config.enabled("L310", "") and any(p.ctx.units for p in pending):
        _shellcheck(pending, config)
    return [_finish(p, config) for p in pending]


def _compile(source: Source) -> tuple[LintContext, list[Diagnostic]]:
    if source.pipeline:
        text = source.data if isinstance(source.data, str) else source.data.decode("utf-8", "replace")
        result = compile_pipeline(text)
        return LintContext(source.path, result.text, pipeline=result.ir), list(result.diagnostics)
    compiled = compile_workflow(source.data, source.path)
    return LintContext(source.path, compiled.text, workflow=compiled.ir), list(compiled.diagnostics)


def _check(source: Source, config: Config) -> _Pending:
    ctx, diagnostics = _compile(source)
    if ctx.workflow is not None or ctx.pipeline is not None:
        for rule in all_rules().values():
            if rule.check is not None and config.enabled(rule.code, source.path):
                diagnostics.extend(rule.check(ctx))
    return _Pending(ctx, diagnostics)


def _shellcheck(pending: Iterable[_Pending], config: Config) -> None:
    program = shellcheck.binary()
    if program is None:
        return
    owners = {}
    scripts = []
    for item in pending:
        if config.enabled("L310", item.ctx.path):
            for script in shellcheck.scripts(item.ctx):
                owners[id(script)] = item
                scripts.append(script)
    for script, diag in shellcheck.check(scripts, program):
        owners[id(script)].diagnostics.append(diag)


def _finish(item: _Pending, config: Config) -> FileResult:
    ctx = item.ctx
    chosen = [_configured(d, config) for d in item.diagnostics if config.enabled(d.code, ctx.path)]
    if ctx.workflow is not None:
        chosen = apply_suppressions(ctx, chosen, config.enabled("L001", ctx.path))
    ordered = sorted(chosen, key=lambda d: (d.span.start, d.span.end, d.code, d.message))
    return FileResult(ctx.path, ctx.text, ctx.workflow, tuple(ordered))


def _configured(diag: Diagnostic, config: Config) -> Diagnostic:
    severity = config.severity_of(diag.code, diag.severity)
    return diag if severity is diag.severity else replace(diag, severity=severity)
