"""The documentation site builds with `mkdocs build --strict`: no broken link or anchor, no page left out of nav."""

from __future__ import annotations

import html
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT

pytest.importorskip("material", reason="the docs extra (mkdocs-material) is not installed")

from tools.mkdocs_hooks import console_copy, repo_path, unescape_table_pipes


def _build(config: Path, site: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(config), "--site-dir", str(site)],
        cwd=ROOT, capture_output=True, text=True, env=env, timeout=300,
    )


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site of mkdocs.yml, built once for this module's tests."""
    built = tmp_path_factory.mktemp("docs") / "site"
    proc = _build(ROOT / "mkdocs.yml", built)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return built


def test_site_builds_strict(site: Path) -> None:
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


def _pages(site: Path) -> dict[str, str]:
    return {p.relative_to(site).as_posix(): p.read_text(encoding="utf-8") for p in site.rglob("*.html")}


def test_code_in_tables_shows_pipes_without_backslashes(site: Path) -> None:
    """Issue 30 item 13: GitHub's `\\|` in a table's code span (84 of them) showed its backslash on the site."""
    cells = [(name, cell) for name, text in _pages(site).items() for cell in re.findall(r"<td>(.*?)</td>", text, re.S)]
    assert len(cells) > 500
    escaped = [(name, code) for name, cell in cells for code in re.findall(r"<code>(.*?)</code>", cell) if "\\|" in code]
    assert escaped == []
    assert "<code>--stdin raw|json|jsonl</code>" in (site / "commands" / "exec" / "index.html").read_text(encoding="utf-8")
    language = (site / "language" / "index.html").read_text(encoding="utf-8")
    assert "<code>exec echo a\\|b</code>" in language, "outside a table a backslash is the author's"


@pytest.mark.parametrize(
    ("line", "shown"),
    [
        ("| `--stdin raw\\|json` | a \\| b |", "| `--stdin raw|json` | a \\| b |"),
        ("| ``x\\|y`` | `'a\\|b' \\| json` |", "| ``x|y`` | `'a|b' | json` |"),
        ("text `a\\|b`", "text `a\\|b`"),
    ],
)
def test_only_code_spans_of_table_rows_lose_the_backslash(line: str, shown: str) -> None:
    assert unescape_table_pipes(line) == shown


def _console_blocks(html_text: str) -> list[tuple[str, str]]:
    """(data-copy, code text) of each console block of a page."""
    found = re.findall(r'<div class="highlight console" data-copy="([^"]*)">(.*?)</code></pre>', html_text, re.S)
    return [(html.unescape(copy), html.unescape(re.sub(r"<[^>]+>", "", code))) for copy, code in found]


def test_console_blocks_copy_only_their_commands(site: Path) -> None:
    """Issue 30 item 13: the copy button gives the commands to paste, not the prompt, the output or a `cat` line."""
    blocks = [block for text in _pages(site).values() for block in _console_blocks(text)]
    assert len(blocks) > 50
    prompts = sum(text.count('<span class="gp">$ </span>') for text in _pages(site).values())
    assert prompts == sum(code.count("\n$ ") + code.startswith("$ ") for _, code in blocks), "every console block"
    for copy, code in blocks:
        commands = [ln[2:] for ln in code.splitlines() if ln.startswith("$ ") and not re.fullmatch(r"cat [\w./-]+", ln[2:])]
        assert copy == "\n".join(commands) or (not commands and copy and copy in code), (copy, code)
    home = _console_blocks((site / "index.html").read_text(encoding="utf-8"))
    assert home[0][0].startswith("# hello.lobster"), "a block that only shows a file copies the file"
    assert home[1][0] == "lobster run --dry-run examples/hello.lobster\nlobster run examples/hello.lobster --args-json '{\"name\":\"Ada\"}'"


def test_console_copy_of_a_block() -> None:
    block = '<span class="gp">$ </span>cat w.lobster\n<span class="go">steps: []</span>\n<span class="gp">$ </span>lobster run w.lobster\n<span class="go">[]</span>'
    assert console_copy(block) == "lobster run w.lobster"
    assert console_copy('<span class="gp">$ </span>cat w.lobster\n<span class="go">steps: &lt;x&gt;</span>') == "steps: <x>"


def test_long_lines_wrap_or_scroll(site: Path) -> None:
    """Console output wraps, other code blocks scroll, inline code breaks rather than widening a table."""
    assert 'href="stylesheets/extra.css"' in (site / "index.html").read_text(encoding="utf-8")
    css = re.sub(r"/\*.*?\*/", "", (site / "stylesheets" / "extra.css").read_text(encoding="utf-8"), flags=re.S)
    rules = {sel.strip(): body for sel, body in re.findall(r"([^{}]+)\{([^}]*)\}", css)}
    assert "white-space: pre-wrap" in rules[".md-typeset .console pre > code"]
    assert "overflow-x: auto" in rules[".md-typeset pre > code"]
    assert "overflow-wrap: anywhere" in rules[".md-typeset code"]


def test_the_home_page_shows_a_workflow_and_a_run(site: Path) -> None:
    home = _console_blocks((site / "index.html").read_text(encoding="utf-8"))
    assert home[0][1].startswith("$ cat examples/hello.lobster\n# hello.lobster")
    assert "$ lobster run examples/hello.lobster" in home[1][1] and "Hello, Ada!" in home[1][1]
