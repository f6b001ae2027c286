"""What the server knows per document version: its text, IR (recovered or last good), lint findings and config."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path

from pygls.uris import from_fs_path, to_fs_path

from lobsterlang import ir
from lobsterlang.compile import CompileResult
from lobsterlang.compile.reuse import StepCache, reusing_steps
from lobsterlang.diagnostics import Diagnostic
from lobsterlang.lint import Config, ConfigError, Source, find_config, lint_source, load_config
from lobsterlang.lint.stepwise import StepFindings
from lobsterlang.query.names import (
    Defining,
    NameKind,
    Occurrence,
    defining_by_name,
    definition,
    occurrences,
    occurrences_in_steps,
    steps_overlapping,
)
from lobsterlang.query.recover import compile_recovering
from lobsterlang.reading import special_kind
from lobsterlang.record import replace
from lobsterlang.span import Span
from lobsterlang.syntax.source import over_limit, read_source
from lobsterlang_lsp.positions import UTF16, PositionMap

WORKSPACE_SUFFIXES = (".lobster", ".lobster.yaml", ".lobster.yml", ".lobster.json")
"""The names the VS Code extension opens as Lobster; other files are served when an editor opens them."""
_SKIPPED_DIRS = frozenset({"node_modules", "__pycache__", "venv"})


class Analysis:
    """One version of one document, worked out as far as asked: `findings` (compile + lint) for diagnostics,
    `result` (the compile result) for edits that need a file without errors, and `workflow`, the IR to navigate
    with: the current one, the part above a syntax error, or the last version that compiled."""

    def __init__(self, uri: str, version: int | None, text: str, last_good: ir.Workflow | None, encoding: str = UTF16,
                 names_under: NamesUnder | None = None) -> None:
        self.uri, self.version, self.text = uri, version, text
        self.path = to_fs_path(uri) or uri
        self.positions = PositionMap(text, encoding)
        self.findings: tuple[Diagnostic, ...] | None = None
        self.with_shellcheck = False
        self._last_good = last_good
        self._result: CompileResult[ir.Workflow] | None = None
        self._workflow: ir.Workflow | None = None
        self.full_ir: ir.Workflow | None = None
        """The IR of the whole text, once compiled (None when it does not compile or was not compiled yet)."""
        self._named: list[Occurrence] | None = None
        self._step_starts: list[int] | None = None
        self._in_steps: dict[tuple[int, int], list[Occurrence]] = {}
        self._defining: dict[tuple[NameKind, str], list[Defining]] | None = None
        self._definitions: dict[tuple[NameKind, str], list[Occurrence]] = {}
        self._names_under = names_under if names_under is not None else NamesUnder()

    @property
    def result(self) -> CompileResult[ir.Workflow]:
        if self._result is None:
            self._result, recovered = compile_recovering(self.text, self.path)
            self.full_ir = self._result.ir
            self._workflow = self._workflow or recovered or self._last_good
        return self._result

    @property
    def workflow(self) -> ir.Workflow | None:
        if self._workflow is None:
            self._workflow = self.result.ir or self._workflow
        return self._workflow

    def linted(self, findings: tuple[Diagnostic, ...], workflow: ir.Workflow | None) -> None:
        """Keep the lint findings, and the IR the linter compiled (the same text gives the same IR)."""
        self.findings = findings
        if workflow is not None and self._workflow is None:
            self._workflow = self.full_ir = workflow

    @property
    def occurrences(self) -> list[Occurrence]:
        """Every step id and arg written in the document (worked out once per version)."""
        if self._named is None:
            self._named = occurrences(self.workflow, self.text) if self.workflow else []
        return self._named

    def occurrences_in(self, start: int, end: int) -> list[Occurrence]:
        """The occurrences wholly inside `start`..`end` (only the steps there are read, once per version)."""
        if self.workflow is None:
            return []
        if self._step_starts is None:
            self._step_starts = [step.span.start for step in self.workflow.steps]
        steps = steps_overlapping(self._step_starts, start, end)
        found = self._in_steps.get(steps)
        if found is None:
            found = self._in_steps[steps] = occurrences_in_steps(self.workflow, self.text, *steps)
        return [o for o in found if start <= o.start and o.end <= end]

    def definitions_of(self, names: Iterable[tuple[NameKind, str]]) -> list[Occurrence]:
        """Where these step ids and args are defined (each name looked up once per version)."""
        if self.workflow is None:
            return []
        if self._defining is None:
            self._defining = defining_by_name(self.workflow)
        found = []
        for key in sorted(names):
            defined = self._definitions.get(key)
            if defined is None:
                among = map(definition, self._defining.get(key, ()))
                defined = self._definitions[key] = occurrences(self.workflow, self.text, among)
            found += defined
        return found

    def names_under(self, diag: Diagnostic) -> frozenset[tuple[NameKind, str]]:
        """The step ids and args written inside a finding's span."""
        return self._names_under.of(diag, self)

    @property
    def directory(self) -> Path:
        return Path(self.path).parent


class NamesUnder:
    """For one document: the names written inside each finding's span, kept as long as the span is the same object.

    A span object outlives a version only in a step no edit touched (`compile.reuse`), where it moves with the step
    and covers the same text: the IR's own spans, which whole-file rules report at (`$step.field` references), and
    the spans of the per-step findings such a step keeps (`lint.stepwise`)."""

    def __init__(self) -> None:
        self._found: dict[int, tuple[Span, frozenset[tuple[NameKind, str]]]] = {}

    def of(self, diag: Diagnostic, analysis: Analysis) -> frozenset[tuple[NameKind, str]]:
        span = diag.span
        known = self._found.get(id(span))
        if known is not None and known[0] is span:
            return known[1]
        named = frozenset((o.kind, o.name) for o in analysis.occurrences_in(span.start, max(span.end, span.start)))
        self._found[id(span)] = (span, named)
        return named

    def keep_only(self, findings: Iterable[Diagnostic]) -> None:
        """Forget the spans of earlier versions' findings."""
        kept = {id(d.span) for d in findings}
        self._found = {key: value for key, value in self._found.items() if key in kept}


class Documents:
    """Analyses by URI (one per version), the last good IR of each document, and lint configs by directory."""

    def __init__(self) -> None:
        self.encoding: str = UTF16
        """The position encoding agreed with the client (set at initialization)."""
        self._analyses: dict[str, Analysis] = {}
        self._last_good: dict[str, ir.Workflow] = {}
        self._configs: dict[Path, Config] = {}
        self._config_errors: dict[str, str] = {}
        self._shown_errors: set[str] = set()
        self.dirty: set[str] = set()
        self._steps: dict[str, StepCache] = {}
        """By URI: the steps of the document's last compile for diagnostics, which the next one reuses."""
        self._step_findings: dict[str, StepFindings] = {}
        """By URI: the per-step lint findings of those steps, which they keep while unchanged."""
        self._names_under: dict[str, NamesUnder] = {}

    def analysis(self, uri: str, text: str, version: int | None) -> Analysis:
        """The analysis of this version (nothing is computed until asked)."""
        cached = self._analyses.get(uri)
        if cached is not None and cached.version == version and cached.text == text:
            return cached
        if cached is not None and cached.full_ir is not None:
            self._last_good[uri] = cached.full_ir
        names_under = self._names_under.setdefault(uri, NamesUnder())
        analysis = Analysis(uri, version, text, self._last_good.get(uri), self.encoding, names_under)
        self._analyses[uri] = analysis
        return analysis

    def findings(self, analysis: Analysis) -> tuple[Diagnostic, ...]:
        """Compile and lint findings; shellcheck runs only on saved text (it starts a process per check)."""
        shellcheck = analysis.uri not in self.dirty
        if analysis.findings is None or (shellcheck and not analysis.with_shellcheck):
            config = self.config_for(analysis.path)
            if not shellcheck:
                config = replace(config, shellcheck=False)
            remembered = self._step_findings.setdefault(analysis.uri, StepFindings())
            with reusing_steps(self._steps.setdefault(analysis.uri, StepCache()), analysis.path):  # unchanged steps move
                linted = lint_source(Source(analysis.path, analysis.text), config, remembered)
            analysis.linted(linted.diagnostics, linted.workflow)
            self._names_under.setdefault(analysis.uri, NamesUnder()).keep_only(linted.diagnostics)
            analysis.with_shellcheck = shellcheck and config.shellcheck
        assert analysis.findings is not None
        return analysis.findings

    def forget(self, uri: str) -> None:
        self._steps.pop(uri, None)
        self._step_findings.pop(uri, None)
        self._names_under.pop(uri, None)
        self._analyses.pop(uri, None)
        self._last_good.pop(uri, None)
        self.dirty.discard(uri)

    def config_for(self, path: str) -> Config:
        """The lint config of the nearest `.lobster.toml` / `pyproject.toml` at or above the file's folder."""
        directory = Path(path).parent
        config = self._configs.get(directory)
        if config is None:
            config = self._configs[directory] = self._load(directory)
        return config

    def _load(self, directory: Path) -> Config:
        try:
            found = find_config(directory)
            config = load_config(found)
        except ConfigError as exc:
            self._config_errors[str(directory)] = str(exc)
            return Config()
        self._config_errors.pop(str(directory), None)
        return config

    def new_config_errors(self) -> list[str]:
        """Config problems not reported yet (each message once, until the configs are reloaded)."""
        fresh = sorted(set(self._config_errors.values()) - self._shown_errors)
        self._shown_errors.update(fresh)
        return fresh

    def reload_configs(self) -> None:
        """Forget configs and findings: a config file changed."""
        self._configs.clear()
        self._config_errors.clear()
        self._shown_errors.clear()
        for analysis in self._analyses.values():
            analysis.findings = None


def workspace_files(roots: list[str]) -> Iterator[Path]:
    """Every workflow file under the workspace folders, skipping hidden and dependency folders, and names
    that are not regular files (a FIFO, a device: reading one could block the server)."""
    for root in roots:
        for folder, dirs, files in os.walk(root):
            dirs[:] = [d for d in dirs if not d.startswith(".") and d not in _SKIPPED_DIRS]
            for name in files:
                if name.endswith(WORKSPACE_SUFFIXES) and special_kind(path := Path(folder) / name) is None:
                    yield path


def disk_text(path: Path) -> str | None:
    """The text of a file that is not open in the editor: None unless it is a regular UTF-8 file within the input limit."""
    try:
        data = read_source(path)
        return None if over_limit(data) else data.decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def uri_of(path: Path | str) -> str:
    return from_fs_path(str(path)) or str(path)
