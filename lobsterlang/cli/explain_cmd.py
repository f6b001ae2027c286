"""`lobster explain CODE`: print the documentation page of a lint rule."""

from __future__ import annotations

from pathlib import Path

import click

from lobsterlang.lint import all_rules

_HERE = Path(__file__).resolve().parent.parent


def rule_doc(code: str) -> Path | None:
    """docs/rules/CODE.md: packaged in the wheel (lobsterlang/lint/rules_docs) or in a source checkout."""
    for folder in (_HERE / "lint" / "rules_docs", _HERE.parent / "docs" / "rules"):
        candidate = folder / f"{code}.md"
        if candidate.is_file():
            return candidate
    return None


@click.command("explain")
@click.argument("code")
@click.pass_context
def explain_command(ctx: click.Context, code: str) -> None:
    """Print what lint rule CODE (e.g. L301) checks, why, and how to fix it."""
    rule = all_rules().get(code.upper())
    if rule is None:
        click.echo(f"Unknown rule: {code} (lint rules are L001–L503; see docs/lint.md)", err=True)
        ctx.exit(2)
    assert rule is not None
    page = rule_doc(rule.code)
    if page is None:
        click.echo(f"{rule.code} [{rule.name}] ({rule.severity.value}): {rule.summary}")
        return
    click.echo(page.read_text(encoding="utf-8"), nl=False)
