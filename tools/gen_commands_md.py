"""Regenerate docs/commands.md and docs/commands/*.md from the command specs: `python tools/gen_commands_md.py`."""

from __future__ import annotations

from pathlib import Path

from lobsterlang.commands.markdown import command_pages, commands_markdown

DOCS = Path(__file__).resolve().parent.parent / "docs"


def main() -> None:
    (DOCS / "commands.md").write_text(commands_markdown(), encoding="utf-8")
    pages = DOCS / "commands"
    pages.mkdir(exist_ok=True)
    for stale in set(pages.glob("*.md")) - {pages / name for name in command_pages()}:
        stale.unlink()
    for name, text in command_pages().items():
        (pages / name).write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
