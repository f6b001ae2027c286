"""`lobster schema`: print the JSON Schema of workflow files (for editors and validators)."""

from __future__ import annotations

import click

from lobsterlang.grammar_files import grammar_file


@click.command("schema")
def schema_command() -> None:
    """Print the JSON Schema of .lobster workflow files (grammar/lobster-workflow.schema.json).

    Save it and point yaml-language-server or your editor at it to get completion and hover.
    """
    click.echo(grammar_file("lobster-workflow.schema.json").read_text(encoding="utf-8"), nl=False)
