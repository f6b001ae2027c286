"""Run the rules over compiled sources: compile, check, configure (`prepare`), then shellcheck, suppress (`finish_all`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from operator import attrgetter

from lobsterlang import ir
from lobsterlang.compile import compile_pipeline, compile_workflow
from lobsterlang.diagnostics import Diagnostic
from lobsterlang.gcpause import collector_paused
from lobsterlang.lint.config import OFF_FOR_TARGET, Config, ignored_here
from lobsterlang.lint.context import LintContext
from lobsterlang.lint.extensions import declared_functions
from lobsterlang.lint.registry import PER_STEP_CHECKS, Check, Rule, all_rules
from lobsterlang.lint.rules import shellcheck
from lobsterlang.lint.shellcheck_runs import ShellcheckRuns
from lobsterlang.lint.stepwise import StepFindings
from lobsterlang.lint.suppress import Suppression, apply_suppressions, suppressions
from lobsterlang.record import Record, replace
from lobsterlang.span import LineIndex
from lobsterlang.syntax.shellparse import forget_scripts


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


class Prepared(Record):
    """A source checked by every rule but shellcheck's (L310), waiting for shellcheck's comments on its
    scripts. It holds no IR unless `workflow` is kept, so it goes between processes cheaply."""

    path: str
    text: str
    workflow: ir.Workflow | None
    findings: tuple[Diagnostic, ...]
    """Of the enabled codes, one code per span, at their configured severity; not yet suppressed."""
    scripts: tuple[shellcheck.Script, ...]
    """For shellcheck: none when L310 is off for the file or shellcheck does not run."""
    ignores: tuple[Suppression, ...]
    report_unused: bool
    """Whether an ignore comment that suppresses nothing is reported (L001)."""
    reads_files: bool


def lint_source(source: Source, config: Config | None = None, remembered: StepFindings | None = None) -> FileResult:
    """Lint one source; with `remembered` (one per document), its per-step rules check only the steps that changed
    since the last lint with it."""
    config = config or Config()
    with collector_paused():
        return finish_all(prepare([source], config, remembered=remembered), config)[0]


def lint_sources(sources: Iterable[Source], config: Config | None = None) -> list[FileResult]:
    """Lint every source, in this process; shellcheck runs once for all of their scripts."""
    config = config or Config()
    with collector_paused():  # the results of every file stay alive until the end
        return finish_all(prepare(sources, config), config)


def shellcheck_program(config: Config) -> str | None:
    """The shellcheck a run with `config` starts, if any."""
    return shellcheck.binary() if config.shellcheck and config.enabled("L310", "") else None


def prepare(sources: Iterable[Source], config: Config, keep_ir: bool = True,
            remembered: StepFindings | None = None) -> Iterator[Prepared]:
    """Compile and check each source (without its IR unless `keep_ir`), as it is asked for; `remembered`: see
    `lint_source` (for one source only)."""
    selection = _Selection(config, all_rules().values())
    with_scripts = shellcheck_program(config) is not None
    for source in sources:
        yield _prepare(source, *selection.for_path(source.path), config, with_scripts, keep_ir, remembered)


def finish_all(prepared: Iterable[Prepared], config: Config, memo: shellcheck.ScriptMemo | None = None,
               done: Callable[[int, FileResult], object] | None = None) -> list[FileResult]:
    """The results of the `prepared` files, in order. Their scripts go through one shellcheck scheduler
    (texts `memo` knows are not checked); each file is finished, and handed to `done` with its number,
    as soon as shellcheck has answered for its scripts."""
    results: dict[int, FileResult] = {}

    def finish_each(numbered: Iterable[tuple[int, Prepared]], runs: ShellcheckRuns[int] | None) -> None:
        for number, item in numbered:
            results[number] = finish(item, _shellcheck_findings(item, runs) if runs else [], config)
            if done is not None:
                done(number, results[number])

    program = shellcheck_program(config)
    if program is None:
        finish_each(enumerate(prepared), None)
        return list(results.values())
    waiting: dict[int, Prepared] = {}
    runs: ShellcheckRuns[int] = ShellcheckRuns(program, memo or shellcheck.ScriptMemo())
    with runs:
        for number, item in enumerate(prepared):
            waiting[number] = item
            runs.add(number, (script.text for script in item.scripts))
            finish_each(((n, waiting.pop(n)) for n in runs.ready()), runs)
        finish_each(((n, waiting.pop(n)) for n in runs.rest()), runs)
    return [results[number] for number in range(len(results))]


def _shellcheck_findings(item: Prepared, runs: ShellcheckRuns[int]) -> list[Diagnostic]:
    answered = [(script, runs.comments(script.text)) for script in item.scripts]
    if not any(comments for _, comments in answered):
        return []
    index = LineIndex(item.text)
    return [d for script, comments in answered for d in shellcheck.diagnostics(script, comments, item.text, index)]


def _compile(source: Source, config: Config) -> tuple[LintContext, list[Diagnostic]]:
    if source.pipeline:
        text = source.data if isinstance(source.data, str) else source.data.decode("utf-8", "replace")
        result = compile_pipeline(text)
        ctx = LintContext(source.path, result.text, pipeline=result.ir, target=config.target, extensions=config.extensions)
        return ctx, list(result.diagnostics)
    compiled = compile_workflow(source.data, source.path)
    ctx = LintContext(source.path, compiled.text, workflow=compiled.ir, target=config.target, extensions=config.extensions)
    diagnostics = list(compiled.diagnostics)
    if compiled.ir is not None and any(d.code == "X001" for d in diagnostics):
        diagnostics = declared_functions(ctx, diagnostics)
    return ctx, diagnostics


def _prepare(source: Source, enabled: Callable[[str], bool], checks: list[Check], config: Config, with_scripts: bool,
             keep_ir: bool, remembered: StepFindings | None = None) -> Prepared:
    ctx, diagnostics = _compile(source, config)
    if ctx.workflow is not None or ctx.pipeline is not None:
        if remembered is not None and ctx.workflow is not None:
            ctx.unit_cache = remembered.units
            diagnostics.extend(remembered.check(ctx, [check for check in checks if check in PER_STEP_CHECKS]))
            checks = [check for check in checks if check not in PER_STEP_CHECKS]
        for check in checks:
            diagnostics.extend(check(ctx))
        forget_scripts()  # parses are shared by the rules of one file, never kept across files
    scripts: tuple[shellcheck.Script, ...] = ()
    if with_scripts and enabled("L310") and ctx.workflow is not None:
        scripts = tuple(shellcheck.scripts(ctx))
        diagnostics.extend(shellcheck.skipped_scripts(ctx))
    disabled = {code for code in {d.code for d in diagnostics} if not enabled(code)}
    if disabled:
        diagnostics = [d for d in diagnostics if d.code not in disabled]
    chosen = _one_code_per_span(diagnostics)
    if config.severity:
        chosen = [_configured(d, config) for d in chosen]
    ignores = suppressions(ctx) if ctx.workflow is not None else ()
    reads_files = any(type(unit.action) is ir.WorkflowCall for unit in ctx.units) if ctx.workflow else False
    workflow = ctx.workflow if keep_ir else None
    return Prepared(ctx.path, ctx.text, workflow, tuple(chosen), scripts, ignores, enabled("L001"), reads_files)


def finish(item: Prepared, shellchecked: list[Diagnostic], config: Config) -> FileResult:
    """The result of a prepared file, given the L310 findings on its scripts."""
    if config.severity:
        shellchecked = [_configured(d, config) for d in shellchecked]
    shellchecked = _unexplained(item.findings, shellchecked)
    chosen = apply_suppressions(item.ignores, [*item.findings, *shellchecked], item.report_unused,
                                OFF_FOR_TARGET.get(config.target, ()))
    chosen.sort(key=_POSITION)
    return FileResult(item.path, item.text, item.workflow, tuple(chosen), tuple(s.text for s in item.scripts), item.reads_files)


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


_EXPLAINS_SHELLCHECK = frozenset({"L314"})
"""Codes whose finding says what is wrong with a text better than shellcheck's comment on the same text (a
`${step.json}` that nothing substitutes is no quoting problem)."""


def _unexplained(findings: tuple[Diagnostic, ...], shellchecked: list[Diagnostic]) -> list[Diagnostic]:
    """shellcheck's findings, less those on text a finding of `_EXPLAINS_SHELLCHECK` covers."""
    spans = [(d.span.start, d.span.end) for d in findings if d.code in _EXPLAINS_SHELLCHECK]
    if not spans or not shellchecked:
        return shellchecked
    return [d for d in shellchecked if not any(_about(d.span.start, d.span.end, start, end) for start, end in spans)]


def _about(start: int, end: int, text_start: int, text_end: int) -> bool:
    """Whether a comment at `start`..`end` is about the text at `text_start`..`text_end`: it overlaps it and is no
    longer than it with its quotes (`'${step.json}'`), not a whole construct around it (`[[ … ]]`)."""
    return start < text_end and text_start < end and end - start <= text_end - text_start + 2


_POSITION = attrgetter("span.start", "span.end", "code", "message")
"""How findings are ordered."""


def _configured(diag: Diagnostic, config: Config) -> Diagnostic:
    severity = config.severity_of(diag.code, diag.severity)
    return diag if severity is diag.severity else replace(diag, severity=severity)
