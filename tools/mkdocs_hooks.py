"""mkdocs hook: links from docs/ to repository files (`../grammar/expr.lark`) work on the site too.

On GitHub those links open the file in the repository. On the site (which may be read offline, or built
from a revision the repository does not show), each linked repository file is published under `repo/` in
the site and the link is pointed there; a link to a directory or to a Markdown file (which mkdocs would render as a page with
broken links) becomes plain text, unless a page includes it whole (INCLUDED). A link to a missing file is
left alone, so the strict build fails on it. The JSON Schemas are published under `schema/`, where their
`$id` says they are.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
SITE_DIR = "repo"
INCLUDED = {"bench/README.md": "speed.md", "CHANGELOG.md": "changelog.md"}
"""Repository Markdown files that a docs page includes whole (pymdownx.snippets): links go to that page."""
SCHEMAS = (ROOT / "grammar" / "lobster-workflow.schema.json", DOCS / "ir.schema.json")
"""Published as `schema/<name>`: each one's `$id` is the site's URL followed by that path."""
_LINK = re.compile(r"\[(?P<text>[^\]]*)\]\((?P<target>\.\./[^)#\s]+)(?P<anchor>#[^)\s]*)?\)")


def repo_path(page_src: str, target: str) -> Path | None:
    """The repository path a relative link from a docs page names, if it leaves docs/ and exists."""
    resolved = (DOCS / posixpath.dirname(page_src) / target).resolve()
    if resolved.is_relative_to(DOCS) or not resolved.is_relative_to(ROOT) or not resolved.exists():
        return None
    return resolved


def _publishable(path: Path) -> bool:
    return path.is_file() and path.suffix != ".md"


def on_files(files: Files, config: Any) -> Files:
    """Publish the schemas, and every repository file that a docs page links to."""
    for schema in SCHEMAS:
        files.append(File.generated(config, f"schema/{schema.name}", abs_src_path=str(schema)))
    published: set[Path] = set()
    for file in list(files.documentation_pages()):
        for match in _LINK.finditer(Path(file.abs_src_path or "").read_text(encoding="utf-8")):
            path = repo_path(file.src_uri, match["target"])
            if path is not None and _publishable(path) and path not in published:
                published.add(path)
                uri = f"{SITE_DIR}/{path.relative_to(ROOT).as_posix()}"
                files.append(File.generated(config, uri, abs_src_path=str(path)))
    return files


def on_page_markdown(markdown: str, page: Page, config: Any, files: Files) -> str:
    """Point links to repository files at their published copies; the others become plain text."""

    def rewrite(match: re.Match[str]) -> str:
        path = repo_path(page.file.src_uri, match["target"])
        if path is None:
            return match[0]
        page_dir = posixpath.dirname(page.file.src_uri) or "."
        including = INCLUDED.get(path.relative_to(ROOT).as_posix())
        if including is not None:
            return f"[{match['text']}]({posixpath.relpath(including, page_dir)}{match['anchor'] or ''})"
        if not _publishable(path):
            return match["text"]
        published = f"{SITE_DIR}/{path.relative_to(ROOT).as_posix()}"
        relative = posixpath.relpath(published, page_dir)
        return f"[{match['text']}]({relative}{match['anchor'] or ''})"

    return _LINK.sub(rewrite, markdown)
