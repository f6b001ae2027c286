"""Printing diagnostics from commands: format and colour choice, summary line."""

from __future__ import annotations

import os
import sys

import click

from lobsterlang.diagnostics import Diagnostic
from lobsterlang.report import Report, render_json, render_text, summary

FORMAT_OPTION = click.option(
    "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
    help="How to print diagnostics (on stderr).",
)
COLOR_OPTION = click.option(
    "--color", type=click.Choice(["auto", "always", "never"]), default="auto", show_default=True,
    help="Colour diagnostics: auto means only on a terminal, and never when NO_COLOR is set.",
)


def use_color(choice: str) -> bool:
    if choice != "auto":
        return choice == "always"
    return sys.stderr.isatty() and not os.environ.get("NO_COLOR")


def print_diagnostics(reports: list[Report], fmt: str, color: str) -> None:
    """Write diagnostics to stderr; text output ends with a `Found …` summary."""
    if fmt == "json":
        click.echo(render_json(reports), err=True, nl=False)
        return
    all_diags: list[Diagnostic] = [d for r in reports for d in r.diagnostics]
    if not all_diags:
        return
    colored = use_color(color)
    click.echo(render_text(reports, color=colored), err=True, nl=False, color=colored)
    click.echo(summary(all_diags), err=True, nl=False)
