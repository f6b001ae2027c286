"""What the server knows per document version: its text, IR (recovered or last good), lint findings and config."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from pygls.uris import from_fs_path, to_fs_path

from lobsterlang import ir
from lobsterlang.compile import CompileResult
from lobsterlang.diagnostics import Diagnostic
from lobsterlang.lint import Config, ConfigError, Source, find_config, lint_source, load_config
from lobsterlang.query.recover import compile_recovering
from lobsterlang.record import replace
from lsp.positions import PositionMap

WORKSPACE_SUFFIXES = (".lobster",)
_SKIPPED_DIRS = frozenset({"node_modules", "__pycache__", "venv"})


class Analysis:
    """One version of one document. `workflow` is the IR to navigate with: the current one, the part above a syntax
    error, or the last version that compiled. `findings` (compile + lint) is filled on first use."""

    def __init__(self, uri: str, version: int | None, text: str, result: CompileResult[ir.Workflow],
                 workflow: ir.Workflow | None) -> None:
        self.uri, self.version, self.text = uri, version, text
        self.path = to_fs_path(uri) or uri
        self.positions = PositionMap(text)
        self.result = result
        self.workflow = workflow
        self.findings: tuple[Diagnostic, ...] | None = None
        self.with_shellcheck = False

    @property
    def directory(self) -> Path:
        return Path(self.path).parent


class Documents:
    """Analyses by URI (one per version), the last good IR of each document, and lint configs by directory."""

    def __init__(self) -> None:
        self._analyses: dict[str, Analysis] = {}
        self._last_good: dict[str, ir.Workflow] = {}
        self._configs: dict[Path, Config] = {}
        self.config_errors: dict[str, str] = {}
        self.dirty: set[str] = set()

    def analysis(self, uri: str, text: str, version: int | None) -> Analysis:
        """The analysis of this version (compiled on first request)."""
        cached = self._analyses.get(uri)
        if cached is not None and cached.version == version and cached.text == text:
            return cached
        result, workflow = compile_recovering(text, to_fs_path(uri) or uri)
        if result.ir is not None:
            self._last_good[uri] = result.ir
        elif workflow is None:
            workflow = self._last_good.get(uri)
        analysis = Analysis(uri, version, text, result, workflow)
        self._analyses[uri] = analysis
        return analysis

    def findings(self, analysis: Analysis) -> tuple[Diagnostic, ...]:
        """Compile and lint findings; shellcheck runs only on saved text (it starts a process per check)."""
        shellcheck = analysis.uri not in self.dirty
        if analysis.findings is None or (shellcheck and not analysis.with_shellcheck):
            config = self.config_for(analysis.path)
            if not shellcheck:
                config = replace(config, shellcheck=False)
            analysis.findings = lint_source(Source(analysis.path, analysis.text), config).diagnostics
            analysis.with_shellcheck = shellcheck and config.shellcheck
        return analysis.findings

    def forget(self, uri: str) -> None:
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
            self.config_errors[str(directory)] = str(exc)
            return Config()
        self.config_errors.pop(str(directory), None)
        return config

    def reload_configs(self) -> None:
        """Forget configs and findings: a config file changed."""
        self._configs.clear()
        for analysis in self._analyses.values():
            analysis.findings = None

    def open_analyses(self) -> list[Analysis]:
        return list(self._analyses.values())


def workspace_files(roots: list[str]) -> Iterator[Path]:
    """Every workflow file under the workspace folders, skipping hidden and dependency folders."""
    for root in roots:
        for folder, dirs, files in os.walk(root):
            dirs[:] = [d for d in dirs if not d.startswith(".") and d not in _SKIPPED_DIRS]
            yield from (Path(folder) / f for f in files if f.endswith(WORKSPACE_SUFFIXES))


def uri_of(path: Path | str) -> str:
    return from_fs_path(str(path)) or str(path)
