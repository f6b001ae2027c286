"""docs/commands.md, docs/commands/*.md and `lobster help CMD` come from the command specs."""

from __future__ import annotations

import pytest
from helpers import ROOT

from lobsterlang.cli import main
from lobsterlang.commands.markdown import command_pages, commands_markdown
from lobsterlang.commands.specs import COMMANDS, CommandSpec
from tools.doc_examples import parse_blocks, without_outputs


def test_commands_page_is_current() -> None:
    page = (ROOT / "docs" / "commands.md").read_text(encoding="utf-8")
    assert page == commands_markdown(), "run: python tools/gen_commands_md.py"


def test_every_command_page_is_current_and_no_page_is_left_over() -> None:
    folder = ROOT / "docs" / "commands"
    expected = command_pages()
    assert {path.name for path in folder.glob("*.md")} == set(expected), "run: python tools/gen_commands_md.py"
    for name, text in expected.items():
        page = without_outputs((folder / name).read_text(encoding="utf-8"))  # test_doc_examples.py checks the outputs
        assert page == text, f"docs/commands/{name} is stale: run tools/gen_commands_md.py"


@pytest.mark.parametrize("spec", COMMANDS, ids=lambda spec: spec.name)
def test_every_command_page_runs_a_realistic_example_of_its_command(spec: CommandSpec) -> None:
    """Issue 30 item 13: each page shows a run of its command (executed by tests/test_doc_examples.py) and its output."""
    page = (ROOT / "docs" / "commands" / f"{spec.name}.md").read_text(encoding="utf-8")
    [block] = [block for block in parse_blocks(page) if block.skip_reason is None]
    assert any(f"{spec.name} " in ex.command or ex.command.endswith(spec.name + '"') for ex in block.examples), block
    assert all(ex.command.startswith("lobster ") and ex.shown for ex in block.examples), "each command shows its output"


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
