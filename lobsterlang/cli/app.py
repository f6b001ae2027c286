"""The click command group behind `lobster`; each command lives in its own module."""

from __future__ import annotations

import click

from lobsterlang import __version__
from lobsterlang.cli.compile_cmd import compile_command
from lobsterlang.cli.schema_cmd import schema_command


@click.group(context_settings={"help_option_names": ["-h", "--help"]}, add_help_option=True)
def cli() -> None:
    """lobster — the Lobster workflow language toolchain."""


@cli.command("help")
@click.argument("command", required=False)
@click.pass_context
def help_command(ctx: click.Context, command: str | None) -> None:
    """Show help for COMMAND (or for lobster)."""
    group = ctx.parent.command if ctx.parent else cli
    assert isinstance(group, click.Group)
    target = group.get_command(ctx, command) if command else group
    if target is None:
        click.echo(f"Unknown command: {command}", err=True)
        ctx.exit(2)
    assert target is not None
    with click.Context(target, info_name=command or "lobster", parent=ctx.parent) as sub:
        click.echo(target.get_help(sub))


@cli.command("version")
def version_command() -> None:
    """Print the lobsterlang version."""
    click.echo(__version__)


cli.add_command(compile_command)
cli.add_command(schema_command)


def run(args: list[str]) -> int:
    """Invoke the group; turns click's exits into a return code."""
    try:
        code = cli.main(args=args, prog_name="lobster", standalone_mode=False)
    except click.exceptions.NoArgsIsHelpError as exc:
        click.echo(exc.ctx.get_help() if exc.ctx else str(exc))
        return 0
    except click.UsageError as exc:
        exc.show()
        return 2
    except click.ClickException as exc:
        exc.show()
        return exc.exit_code
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except click.Abort:
        click.echo("Aborted.", err=True)
        return 130
    return code if isinstance(code, int) else 0
