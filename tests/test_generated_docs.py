"""Generated reference pages (CLI help, IR schema, the rule index) are current: regenerate, never hand-edit."""

from __future__ import annotations

from helpers import ROOT

from tools.gen_reference_docs import cli_reference, ir_schema_page
from tools.gen_rule_docs import index_page


def test_cli_reference_matches_the_clis_own_help() -> None:
    page = (ROOT / "docs" / "cli-reference.md").read_text(encoding="utf-8")
    assert page == cli_reference(), "run: python tools/gen_reference_docs.py"


def test_cli_reference_has_every_command() -> None:
    page = cli_reference()
    for name in ("compile", "lint", "fmt", "run", "resume", "tool", "mcp", "explain"):
        assert f"## `lobster {name}`" in page
        assert f"Usage: lobster {name}" in page or name == "run"


def test_ir_schema_page_matches_the_schema() -> None:
    page = (ROOT / "docs" / "ir-schema.md").read_text(encoding="utf-8")
    assert page == ir_schema_page(), "run: python tools/gen_reference_docs.py"
    assert "## Workflow" in page and "## Pipeline" in page


def test_rule_index_is_current() -> None:
    page = (ROOT / "docs" / "rules" / "index.md").read_text(encoding="utf-8")
    assert page == index_page(), "run: python tools/gen_rule_docs.py"
