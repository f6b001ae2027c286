"""docs/commands.md and `lobster help CMD` come from the command specs."""

from __future__ import annotations

import pytest
from helpers import ROOT

from lobsterlang.cli import main
from lobsterlang.commands.markdown import commands_markdown
from lobsterlang.commands.specs import COMMANDS


def test_commands_page_is_current() -> None:
    page = (ROOT / "docs" / "commands.md").read_text(encoding="utf-8")
    assert page == commands_markdown(), "run: python tools/gen_commands_md.py"


def test_every_command_has_an_example_and_a_section() -> None:
    page = commands_markdown()
    for spec in COMMANDS:
        assert spec.examples, spec.name
        assert f"## `{spec.name}`" in page


@pytest.mark.parametrize("name", [spec.name for spec in COMMANDS])
def test_help_for_each_pipeline_command(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["help", name]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{name} — ")
    assert "Usage:" in out and "Side effects:" in out
