"""`lobster explain CODE|NAME`: print the documentation page of a lint rule."""

from __future__ import annotations

from pathlib import Path

import click

from lobsterlang.lint import all_rules
from lobsterlang.lint.registry import Rule

_HERE = Path(__file__).resolve().parent.parent


def rule_doc(code: str) -> Path | None:
    """docs/rules/CODE.md: packaged in the wheel (lobsterlang/lint/rules_docs) or in a source checkout."""
    for folder in (_HERE / "lint" / "rules_docs", _HERE.parent / "docs" / "rules"):
        candidate = folder / f"{code}.md"
        if candidate.is_file():
            return candidate
    return None


def find_rule(code_or_name: str) -> Rule | None:
    """The rule with this code (`L301`, any case) or name (`raw-arg-in-shell`), or None."""
    rules = all_rules()
    by_name = {rule.name: rule for rule in rules.values()}
    return rules.get(code_or_name.upper()) or by_name.get(code_or_name.lower())


@click.command("explain")
@click.argument("code", metavar="CODE|NAME")
@click.pass_context
def explain_command(ctx: click.Context, code: str) -> None:
    """Print what lint rule CODE (e.g. L301) or NAME (e.g. raw-arg-in-shell) checks, why, and how to fix it."""
    rule = find_rule(code)
    if rule is None:
        from lobsterlang.cli.usage import did_you_mean

        names = [n for r in all_rules().values() for n in (r.code, r.name)]
        raise click.UsageError(f"Unknown rule: {code} (lint rules are L001–L503; see docs/lint.md).{did_you_mean(code, names)}", ctx)
    page = rule_doc(rule.code)
    if page is None:
        click.echo(f"{rule.code} [{rule.name}] ({rule.severity.value}): {rule.summary}")
        return
    click.echo(page.read_text(encoding="utf-8"), nl=False)
