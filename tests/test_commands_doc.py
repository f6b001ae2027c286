"""docs/commands.md, docs/commands/*.md and `lobster help CMD` come from the command specs."""

from __future__ import annotations

import pytest
from helpers import ROOT

from lobsterlang.cli import main
from lobsterlang.commands.markdown import command_pages, commands_markdown
from lobsterlang.commands.specs import COMMANDS


def test_commands_page_is_current() -> None:
    page = (ROOT / "docs" / "commands.md").read_text(encoding="utf-8")
    assert page == commands_markdown(), "run: python tools/gen_commands_md.py"


def test_every_command_page_is_current_and_no_page_is_left_over() -> None:
    folder = ROOT / "docs" / "commands"
    expected = command_pages()
    assert {path.name for path in folder.glob("*.md")} == set(expected), "run: python tools/gen_commands_md.py"
    for name, text in expected.items():
        assert (folder / name).read_text(encoding="utf-8") == text, f"docs/commands/{name} is stale: run tools/gen_commands_md.py"


def test_every_command_has_an_example_a_page_and_an_index_row() -> None:
    index = commands_markdown()
    for spec in COMMANDS:
        assert spec.examples, spec.name
        assert command_pages()[f"{spec.name}.md"].startswith(f"# `{spec.name}`")
        assert f"(commands/{spec.name}.md)" in index


@pytest.mark.parametrize("name", [spec.name for spec in COMMANDS])
def test_help_for_each_pipeline_command(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["help", name]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{name} — ")
    assert "Usage:" in out and "Side effects:" in out
