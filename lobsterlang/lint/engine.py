"""Run the rules over compiled sources: compile, check, shellcheck (batched), configure, suppress."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from lobsterlang import ir
from lobsterlang.compile import compile_pipeline, compile_workflow
from lobsterlang.diagnostics import Diagnostic
from lobsterlang.gcpause import collector_paused
from lobsterlang.lint.config import Config, ignored_here
from lobsterlang.lint.context import LintContext
from lobsterlang.lint.registry import Check, all_rules
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


class _Enabled:
    """`config.enabled(code, path)` for every file of one run, each code and each path worked out once."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self._selected: dict[str, bool] = {}

    def selects(self, code: str) -> bool:
        selected = self._selected.get(code)
        if selected is None:
            selected = self._selected[code] = self.config.selects(code)
        return selected

    def for_path(self, path: str) -> Callable[[str], bool]:
        file_ignores = self.config.file_ignores(path)
        if not file_ignores:
            return self.selects
        return lambda code: self.selects(code) and not ignored_here(code, file_ignores)


class _Pending:
    """A source between compiling and reporting."""

    def __init__(self, ctx: LintContext, diagnostics: list[Diagnostic], enabled: Callable[[str], bool]) -> None:
        self.ctx = ctx
        self.diagnostics = diagnostics
        self.enabled = enabled


def lint_source(source: Source, config: Config | None = None) -> FileResult:
    return lint_sources([source], config)[0]


def lint_sources(sources: Sequence[Source], config: Config | None = None) -> list[FileResult]:
    """Lint every source; shellcheck runs once for all of their scripts."""
    config = config or Config()
    enabled = _Enabled(config)
    checks = [(rule.code, rule.check) for rule in all_rules().values() if rule.check is not None]
    with collector_paused():  # the results of every file stay alive until the end
        pending = [_check(source, checks, enabled.for_path(source.path)) for source in sources]
    if config.shellcheck and config.enabled("L310", "") and any(p.ctx.units for p in pending):
        _shellcheck(pending)
    return [_finish(p, config) for p in pending]


def _compile(source: Source) -> tuple[LintContext, list[Diagnostic]]:
    if source.pipeline:
        text = source.data if isinstance(source.data, str) else source.data.decode("utf-8", "replace")
        result = compile_pipeline(text)
        return LintContext(source.path, result.text, pipeline=result.ir), list(result.diagnostics)
    compiled = compile_workflow(source.data, source.path)
    return LintContext(source.path, compiled.text, workflow=compiled.ir), list(compiled.diagnostics)


def _check(source: Source, checks: list[tuple[str, Check]], enabled: Callable[[str], bool]) -> _Pending:
    ctx, diagnostics = _compile(source)
    if ctx.workflow is not None or ctx.pipeline is not None:
        for code, check in checks:
            if enabled(code):
                diagnostics.extend(check(ctx))
    return _Pending(ctx, diagnostics, enabled)


def _shellcheck(pending: Iterable[_Pending]) -> None:
    program = shellcheck.binary()
    if program is None:
        return
    owners = {}
    scripts = []
    for item in pending:
        if item.enabled("L310"):
            for script in shellcheck.scripts(item.ctx):
                owners[id(script)] = item
                scripts.append(script)
    for script, diag in shellcheck.check(scripts, program):
        owners[id(script)].diagnostics.append(diag)


def _finish(item: _Pending, config: Config) -> FileResult:
    ctx = item.ctx
    chosen = [d for d in item.diagnostics if item.enabled(d.code)]
    if config.severity:
        chosen = [_configured(d, config) for d in chosen]
    if ctx.workflow is not None:
        chosen = apply_suppressions(ctx, chosen, item.enabled("L001"))
    chosen.sort(key=_position)
    return FileResult(ctx.path, ctx.text, ctx.workflow, tuple(chosen))


def _position(diag: Diagnostic) -> tuple[int, int, str, str]:
    return diag.span.start, diag.span.end, diag.code, diag.message


def _configured(diag: Diagnostic, config: Config) -> Diagnostic:
    severity = config.severity_of(diag.code, diag.severity)
    return diag if severity is diag.severity else replace(diag, severity=severity)
