"""Regenerate docs/commands.md from the command specs: `python tools/gen_commands_md.py`."""

from __future__ import annotations

from pathlib import Path

from lobsterlang.commands.markdown import commands_markdown

TARGET = Path(__file__).resolve().parent.parent / "docs" / "commands.md"


def main() -> None:
    TARGET.write_text(commands_markdown(), encoding="utf-8")


if __name__ == "__main__":
    main()
