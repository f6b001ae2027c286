"""Regenerate docs/commands.md and docs/commands/*.md from the command specs: `python tools/gen_commands_md.py`.

Each page's example run is then executed (tools/doc_examples.py) and its output written in; output already shown
that still matches (with its `[..]`) is kept.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lobsterlang.commands.markdown import command_pages, commands_markdown  # noqa: E402
from tools.doc_examples import process_page, with_outputs_of  # noqa: E402

DOCS = ROOT / "docs"


def main() -> None:
    (DOCS / "commands.md").write_text(commands_markdown(), encoding="utf-8")
    pages = DOCS / "commands"
    pages.mkdir(exist_ok=True)
    for stale in set(pages.glob("*.md")) - {pages / name for name in command_pages()}:
        stale.unlink()
    for name, text in command_pages().items():
        page = pages / name
        shown = page.read_text(encoding="utf-8") if page.exists() else ""
        page.write_text(with_outputs_of(shown, text), encoding="utf-8")
        process_page(page, write=True)


if __name__ == "__main__":
    main()
