"""The documentation site builds with `mkdocs build --strict`: no broken link or anchor, no page left out of nav."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT

pytest.importorskip("material", reason="the docs extra (mkdocs-material) is not installed")

from tools.mkdocs_hooks import repo_path


def _build(config: Path, site: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(config), "--site-dir", str(site)],
        cwd=ROOT, capture_output=True, text=True, env=env, timeout=300,
    )


def test_site_builds_strict(tmp_path: Path) -> None:
    proc = _build(ROOT / "mkdocs.yml", tmp_path / "site")
    assert proc.returncode == 0, proc.stderr[-4000:]
    site = tmp_path / "site"
    assert (site / "search" / "search_index.json").is_file(), "search is on"
    assert (site / "tutorial" / "index.html").is_file()
    assert (site / "commands" / "exec" / "index.html").is_file() and (site / "rules" / "L301" / "index.html").is_file()
    assert "Results" in (site / "speed" / "index.html").read_text(encoding="utf-8"), "speed.md includes bench/README.md"
    assert (site / "repo" / "grammar" / "expr.lark").is_file(), "linked repository files are published"
    for schema in ("lobster-workflow.schema.json", "ir.schema.json"):
        assert (site / "schema" / schema).is_file(), "each schema is published where its $id says"
    assert "Keep a Changelog" in (site / "changelog" / "index.html").read_text(encoding="utf-8")


def test_links_out_of_docs_resolve_only_to_existing_repository_files() -> None:
    assert repo_path("language.md", "../grammar/expr.lark") == ROOT / "grammar" / "expr.lark"
    assert repo_path("language.md", "../grammar/nope.lark") is None, "a broken link is left for mkdocs to report"
    assert repo_path("rules/L101.md", "../lint.md") is None, "links inside docs/ are mkdocs's own"
    assert repo_path("language.md", "../../etc/passwd") is None
    assert repo_path("editors.md", "../bench/README.md") == ROOT / "bench" / "README.md"
