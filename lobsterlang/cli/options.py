"""Click options several commands share."""

from __future__ import annotations

import os

import click

FORMAT_OPTION = click.option(
    "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
    help="How to print diagnostics (on stderr).",
)
COLOR_OPTION = click.option(
    "--color", type=click.Choice(["auto", "always", "never"]), default="auto", show_default=True,
    help="Colour diagnostics: auto means only on a terminal, and never when NO_COLOR is set.",
)


def _set_max_input_bytes(ctx: click.Context, param: click.Parameter, value: int | None) -> None:
    """The option sets the environment variable, so worker processes and nested workflows see it too."""
    if value is not None:
        from lobsterlang.syntax.source import MAX_INPUT_BYTES_ENV

        os.environ[MAX_INPUT_BYTES_ENV] = str(value)


MAX_INPUT_BYTES_OPTION = click.option(
    "--max-input-bytes", type=click.IntRange(min=1), envvar="LOBSTER_MAX_INPUT_BYTES", metavar="N",
    callback=_set_max_input_bytes, expose_value=False, is_eager=True,
    help="Refuse workflow files larger than N bytes (E008).  [env: LOBSTER_MAX_INPUT_BYTES; default: 67108864 (64 MiB)]",
)
