"""Click options several commands share."""

from __future__ import annotations

import click

FORMAT_OPTION = click.option(
    "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
    help="How to print diagnostics (on stderr).",
)
COLOR_OPTION = click.option(
    "--color", type=click.Choice(["auto", "always", "never"]), default="auto", show_default=True,
    help="Colour diagnostics: auto means only on a terminal, and never when NO_COLOR is set.",
)
