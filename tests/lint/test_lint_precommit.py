"""The `.pre-commit-hooks.yaml` hooks, run by the real pre-commit tool (`pre-commit try-repo`) on a scratch repo."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from helpers import ROOT

_IGNORE = shutil.ignore_patterns(".git", ".venv", "__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache", ".hypothesis", "*.egg-info")


def test_hooks_manifest_lists_lint_and_fmt() -> None:
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert {h["id"]: h["entry"] for h in hooks} == {"lobster-lint": "lobster lint", "lobster-fmt": "lobster fmt"}


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.email=t@example.com", "-c", "user.name=t", *args], cwd=cwd, check=True, capture_output=True)


def _snapshot(tmp_path: Path) -> Path:
    """This checkout (committed or not) as a one-commit git repo, which try-repo can install."""
    repo = tmp_path / "lobsterlang"
    shutil.copytree(ROOT, repo, ignore=_IGNORE)
    _git(repo, "init", "-q", ".")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "snapshot")
    return repo


@pytest.mark.slow
def test_lint_hook_with_pre_commit_try_repo(tmp_path: Path) -> None:
    pre_commit = Path(sys.executable).parent / "pre-commit"
    if not pre_commit.is_file() or shutil.which("git") is None:
        pytest.skip("pre-commit or git is not installed")
    repo = _snapshot(tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    _git(work, "init", "-q", ".")
    (work / "say.lobster").write_text("steps:\n  - id: say\n    run: cat\n    stdin: $nope.json\n", encoding="utf-8")
    (work / "ok.lobster").write_text("steps:\n  - id: hello\n    run: echo hello\n", encoding="utf-8")
    _git(work, "add", "-A")
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "cache")}

    def run(*files: str) -> subprocess.CompletedProcess[str]:
        args = [str(pre_commit), "try-repo", str(repo), "lobster-lint", "--files", *files]
        return subprocess.run(args, cwd=work, env=env, capture_output=True, text=True, timeout=600, check=False)

    failed = run("say.lobster", "ok.lobster")
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "say.lobster:4:12: L101 [unknown-step-ref]" in failed.stdout
    passed = run("ok.lobster")
    assert passed.returncode == 0, passed.stdout + passed.stderr
