"""Run the rules over compiled sources: compile, check, shellcheck (batched), configure, suppress."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from operator import attrgetter

from lobsterlang import ir
from lobsterlang.compile import compile_pipeline, compile_workflow
from lobsterlang.diagnostics import Diagnostic
from lobsterlang.gcpause import collector_paused
from lobsterlang.lint.config import OFF_FOR_TARGET, Config, ignored_here
from lobsterlang.lint.context import LintContext
from lobsterlang.lint.effects import shell_effect
from lobsterlang.lint.registry import Check, Rule, all_rules
from lobsterlang.lint.rules import shellcheck
from lobsterlang.lint.shellparse import forget_scripts
from lobsterlang.lint.suppress import apply_suppressions
from lobsterlang.record import Record, replace


class Source(Record):
    """One input: a workflow file's contents (or a pipeline string when `pipeline` is True)."""

    path: str
    data: bytes | str
    pipeline: bool = False


class FileResult(Record):
    """The findings of one source, sorted by position, with its text and IR.

    `scripts` are the texts shellcheck was asked about; `reads_files` says the findings also depend on
    other files (sub-workflows), so they cannot be remembered by this file's contents alone.
    """

    path: str
    text: str
    workflow: ir.Workflow | None
    diagnostics: tuple[Diagnostic, ...]
    scripts: tuple[str, ...] = ()
    reads_files: bool = False


class _Selection:
    """Which rules run and which codes are reported (`config.enabled`) for the files of one run.

    Each code is looked up once per run, and once more per file that has per-file ignores.
    """

    def __init__(self, config: Config, rules: Iterable[Rule]) -> None:
        self.config = config
        self._selected: dict[str, bool] = {}
        self._rules = [(rule.code, rule.check) for rule in rules if rule.check is not None and self.selects(rule.code)]
        self._checks = [check for _, check in self._rules]

    def selects(self, code: str) -> bool:
        selected = self._selected.get(code)
        if selected is None:
            selected = self._selected[code] = self.config.selects(code)
        return selected

    def for_path(self, path: str) -> tuple[Callable[[str], bool], list[Check]]:
        """Whether a code is enabled in the file at `path`, and the checks to run on it."""
        file_ignores = self.config.file_ignores(path)
        if not file_ignores:
            return self.selects, self._checks

        def enabled(code: str) -> bool:
            return self.selects(code) and not ignored_here(code, file_ignores)

        return enabled, [check for code, check in self._rules if enabled(code)]


class _Pending:
    """A source between compiling and reporting."""

    def __init__(self, ctx: LintContext, diagnostics: list[Diagnostic], enabled: Callable[[str], bool]) -> None:
        self.ctx = ctx
        self.diagnostics = diagnostics
        self.enabled = enabled
        self.shell_scripts: list[shellcheck.Script] = []


def lint_source(source: Source, config: Config | None = None) -> FileResult:
    return lint_sources([source], config)[0]


def lint_sources(
    sources: Sequence[Source], config: Config | None = None, memo: shellcheck.ScriptMemo | None = None
) -> list[FileResult]:
    """Lint every source; shellcheck runs once for all of their scripts that `memo` does not know."""
    config = config or Config()
    selection = _Selection(config, all_rules().values())
    program = shellcheck.binary() if config.shellcheck and config.enabled("L310", "") else None
    with collector_paused():  # the results of every file stay alive until the end
        if program is None:
            # Each file is finished at once, so its rule indexes are freed before the next file.
            return [_finish(_check(source, *selection.for_path(source.path), config.target), config) for source in sources]
        with shellcheck.Runner(program, memo) as runner:
            pending = []
            for source in sources:
                pending.append(_check(source, *selection.for_path(source.path), config.target))
                _queue_scripts(pending[-1], runner)
            found = runner.comments()
    for item in pending:
        for script in item.shell_scripts:
            item.diagnostics.extend(shellcheck.diagnostics(script, found[script.text]))
    return [_finish(p, config) for p in pending]


def _queue_scripts(item: _Pending, runner: shellcheck.Runner) -> None:
    """The item's scripts go to shellcheck now, while the next files compile."""
    if item.enabled("L310"):
        item.shell_scripts = list(shellcheck.scripts(item.ctx))
        runner.add(script.text for script in item.shell_scripts)


def _compile(source: Source, target: str) -> tuple[LintContext, list[Diagnostic]]:
    if source.pipeline:
        text = source.data if isinstance(source.data, str) else source.data.decode("utf-8", "replace")
        result = compile_pipeline(text)
        return LintContext(source.path, result.text, pipeline=result.ir, target=target), list(result.diagnostics)
    compiled = compile_workflow(source.data, source.path)
    return LintContext(source.path, compiled.text, workflow=compiled.ir, target=target), list(compiled.diagnostics)


def _check(source: Source, enabled: Callable[[str], bool], checks: list[Check], target: str) -> _Pending:
    ctx, diagnostics = _compile(source, target)
    if ctx.workflow is not None or ctx.pipeline is not None:
        for check in checks:
            diagnostics.extend(check(ctx))
        forget_scripts()  # parses are shared by the rules of one file, never kept across files
        shell_effect.cache_clear()
    return _Pending(ctx, diagnostics, enabled)


def _finish(item: _Pending, config: Config) -> FileResult:
    ctx = item.ctx
    chosen = item.diagnostics
    disabled = {code for code in {d.code for d in chosen} if not item.enabled(code)}
    if disabled:
        chosen = [d for d in chosen if d.code not in disabled]
    chosen = _one_code_per_span(chosen)
    if config.severity:
        chosen = [_configured(d, config) for d in chosen]
    if ctx.workflow is not None:
        chosen = apply_suppressions(ctx, chosen, item.enabled("L001"), OFF_FOR_TARGET.get(config.target, ()))
    chosen.sort(key=_POSITION)
    reads_files = any(type(unit.action) is ir.WorkflowCall for unit in ctx.units) if ctx.workflow else False
    return FileResult(ctx.path, ctx.text, ctx.workflow, tuple(chosen), tuple(s.text for s in item.shell_scripts), reads_files)


_EXPLAINED_BY = {"L302": frozenset({"L102", "L103", "L408"})}
"""A finding dropped when one of these codes reports the same span: they say more about the same text
(a forward reference, or model output, pasted into shell text)."""


def _one_code_per_span(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """Never one span under two codes: keep the finding that explains the problem (`_EXPLAINED_BY`)."""
    if not any(d.code in _EXPLAINED_BY for d in diagnostics):
        return diagnostics
    at: dict[tuple[int, int], set[str]] = {}
    for diag in diagnostics:
        at.setdefault((diag.span.start, diag.span.end), set()).add(diag.code)
    return [d for d in diagnostics if not (_EXPLAINED_BY.get(d.code, frozenset()) & at[(d.span.start, d.span.end)])]


_POSITION = attrgetter("span.start", "span.end", "code", "message")
"""How findings are ordered."""


def _configured(diag: Diagnostic, config: Config) -> Diagnostic:
    severity = config.severity_of(diag.code, diag.severity)
    return diag if severity is diag.severity else replace(diag, severity=severity)
