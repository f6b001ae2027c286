r"""mkdocs hook: links from docs/ to repository files (`../grammar/expr.lark`) work on the site too.

On GitHub those links open the file in the repository. On the site (which may be read offline, or built
from a revision the repository does not show), each linked repository file is published under `repo/` in
the site and the link is pointed there; a link to a directory or to a Markdown file (which mkdocs would render as a page with
broken links) becomes plain text, unless a page includes it whole (INCLUDED). A link to a missing file is
left alone, so the strict build fails on it. The JSON Schemas are published under `schema/`, where their
`$id` says they are.

Two more jobs. In a table row, `\|` inside a code span is GitHub's
way to write `|` (Python-Markdown would show the backslash), so the pages keep it and the site drops the backslash
(TablePipes, after pymdownx.snippets so included files get it too). And a ```console block's copy button copies only its
commands: no `$ ` prompt, no output, no `$ cat FILE` that shows a file (`data-copy`, which mkdocs-material's copy
button reads).
"""

from __future__ import annotations

import html
import posixpath
import re
from pathlib import Path
from typing import Any

from markdown import Extension, Markdown  # type: ignore[import-untyped]
from markdown.preprocessors import Preprocessor  # type: ignore[import-untyped]
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


_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)")
_TABLE_ROW = re.compile(r"^\s*\|")


def unescape_table_pipes(line: str) -> str:
    """A table row with `\\|` inside its code spans written `|` (Python-Markdown splits no cell inside a code span)."""
    if not _TABLE_ROW.match(line):
        return line
    return _CODE_SPAN.sub(lambda m: m[1] + m[2].replace("\\|", "|") + m[1], line)


class _TablePipes(Preprocessor):  # type: ignore[misc]
    def run(self, lines: list[str]) -> list[str]:
        return [unescape_table_pipes(line) for line in lines]


class TablePipes(Extension):  # type: ignore[misc]
    """`\\|` in a table's code span shows `|`, as on GitHub (after snippets, after fenced code is set aside)."""

    def extendMarkdown(self, md: Markdown) -> None:
        md.preprocessors.register(_TablePipes(md), "table_pipes", 24)


def on_config(config: Any) -> Any:
    config.markdown_extensions.append(TablePipes())
    return config


_HIGHLIGHT = re.compile(r'<div class="highlight">(?P<inner><pre>.*?</code></pre>)', re.S)
_PROMPT = '<span class="gp">$ </span>'
"""How Pygments' console lexer marks a `$ ` prompt: a block with one is a console block."""
_TAG = re.compile(r"<[^>]+>")
_CAT = re.compile(r"^cat [\w./-]+$")


def console_copy(block_html: str) -> str:
    """What copying a rendered console block gives: its commands without the `$ ` prompt and without `cat FILE`,
    one per line; a block that only shows files (`$ cat FILE`) gives their text, which the reader saves."""
    text = html.unescape(_TAG.sub("", block_html))
    commands: list[str] = []
    shown: list[str] = []
    showing = False
    for line in text.splitlines():
        if line.startswith("$ "):
            showing = _CAT.match(line[2:]) is not None
            if not showing:
                commands.append(line[2:])
        elif showing:
            shown.append(line)
    return "\n".join(commands or shown)


def on_page_content(content: str, page: Page, config: Any, files: Files) -> str:
    """Mark each console block (class `console`) and give it a `data-copy`: what its copy button copies."""

    def with_copy(match: re.Match[str]) -> str:
        if _PROMPT not in match["inner"]:
            return match[0]
        copy = html.escape(console_copy(match["inner"]), quote=True)
        return f'<div class="highlight console" data-copy="{copy}">{match["inner"]}'

    return _HIGHLIGHT.sub(with_copy, content)
