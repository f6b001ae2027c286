"""A first run in a fresh clone (or on a fresh machine) says up front what it installs, and reuses npm's cache
(issue 30 item 3)."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import conftest
import npm_installs
import pytest


class _Reporter:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def write_line(self, line: str) -> None:
        self.lines.append(line)


class _Config:
    def __init__(self, reporter: _Reporter) -> None:
        self.pluginmanager = self
        self.reporter = reporter

    def get_plugin(self, name: str) -> _Reporter | None:
        return self.reporter if name == "terminalreporter" else None


def test_the_installs_a_session_starts_are_named_before_the_tests_run(monkeypatch: pytest.MonkeyPatch) -> None:
    reporter = _Reporter()
    monkeypatch.setattr(conftest, "_FIRST_RUN", ["npm ci in vscode-extension", "apt-get install emacs-nox"])
    conftest._say_first_run(_Config(reporter))  # type: ignore[arg-type]
    [line] = reporter.lines
    assert line.startswith("First run in this clone or on this machine: installing in the background")
    assert "npm ci in vscode-extension; apt-get install emacs-nox." in line
    monkeypatch.setattr(conftest, "_FIRST_RUN", [])
    conftest._say_first_run(_Config(reporter))  # type: ignore[arg-type]
    assert len(reporter.lines) == 1, "a run that installs nothing says nothing"


def test_npm_ci_takes_what_the_cache_holds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "package.json").write_text("{}")
    monkeypatch.setitem(npm_installs.FOLDERS, tmp_path, "node_modules/.package-lock.json")
    calls: list[list[str]] = []

    def run(args: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
        calls.append(args)
        return subprocess.CompletedProcess(args, 0, "", "")

    monkeypatch.setattr(subprocess, "run", run)
    npm_installs.install(tmp_path)
    [args] = calls
    assert args[1:3] == ["ci", "--prefer-offline"]
