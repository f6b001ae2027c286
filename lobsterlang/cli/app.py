"""The click command group behind `lobster`; each command lives in its own module, imported on use."""

from __future__ import annotations

import importlib

import click
from click.shell_completion import CompletionItem

from lobsterlang import __version__

LAZY_COMMANDS: dict[str, str] = {
    "compile": "lobsterlang.cli.compile_cmd:compile_command",
    "graph": "lobsterlang.cli.graph_cmd:graph_command",
    "runs": "lobsterlang.cli.runs_cmd:runs_command",
    "lint": "lobsterlang.cli.lint_cmd:lint_command",
    "explain": "lobsterlang.cli.explain_cmd:explain_command",
    "fmt": "lobsterlang.cli.fmt_cmd:fmt_command",
    "schema": "lobsterlang.cli.schema_cmd:schema_command",
    "run": "lobsterlang.cli.runtime_cmds:run_command",
    "resume": "lobsterlang.cli.runtime_cmds:resume_command",
    "doctor": "lobsterlang.cli.runtime_cmds:doctor_command",
    "tool": "lobsterlang.cli.runtime_cmds:tool_command",
    "mcp": "lobsterlang.cli.runtime_cmds:mcp_command",
    "lsp": "lobsterlang.cli.lsp_cmd:lsp_command",
    "worker": "lobsterlang.cli.worker_cmd:worker_command",
    "cancel": "lobsterlang.cli.cancel_cmd:cancel_command",
    "schedule": "lobsterlang.cli.schedule_cmd:schedule_group",
}
"""Command name → `module:attribute`. A command's imports cost nothing until it runs."""


class LazyGroup(click.Group):
    """A group that imports a command's module only when that command is used."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *LAZY_COMMANDS})

    def resolve_command(self, ctx: click.Context, args: list[str]) -> tuple[str | None, click.Command | None, list[str]]:
        """click's lookup, with "did you mean" from the registered commands for an unknown name."""
        name = args[0] if args else ""
        if args and ctx.resilient_parsing and self.get_command(ctx, name) is None:
            return "run", self.get_command(ctx, "run"), args  # completing `lobster '<pipeline>' …`, the run shorthand
        if args and self.get_command(ctx, name) is None and not name.startswith("-"):
            from lobsterlang.cli.usage import did_you_mean

            raise click.UsageError(f"No such command '{name}'.{did_you_mean(name, self.list_commands(ctx))}", ctx)
        return super().resolve_command(ctx, args)

    def shell_complete(self, ctx: click.Context, incomplete: str) -> list[CompletionItem]:
        from lobsterlang.cli.completion import complete_first_word

        return complete_first_word(self, ctx, incomplete)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = LAZY_COMMANDS.get(cmd_name)
        if target is None:
            return super().get_command(ctx, cmd_name)
        module, attribute = target.split(":")
        command = getattr(importlib.import_module(module), attribute)
        assert isinstance(command, click.Command)
        return command


def _print_completion(ctx: click.Context, param: click.Parameter, shell: str | None) -> None:
    from lobsterlang.cli.completion import print_completion_script

    print_completion_script(ctx, param, shell)


def _complete_help_topic(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    from lobsterlang.cli.completion import complete_help_topic

    return complete_help_topic(ctx, param, incomplete)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--completion", type=click.Choice(["bash", "zsh", "fish"]), expose_value=False, is_eager=True,
              callback=_print_completion, help="Print the shell completion script for SHELL and exit.")
def cli() -> None:
    """lobster — the Lobster workflow language toolchain."""


@cli.command("help")
@click.argument("command", required=False, shell_complete=_complete_help_topic)
@click.pass_context
def help_command(ctx: click.Context, command: str | None) -> None:
    """Show help for COMMAND (or for lobster)."""
    group = ctx.parent.command if ctx.parent else cli
    assert isinstance(group, click.Group)
    target = group.get_command(ctx, command) if command else group
    if target is None and command is not None and _print_pipeline_command_help(command):
        return
    if target is None:
        from lobsterlang.cli.usage import did_you_mean
        from lobsterlang.commands.specs import COMMANDS

        known = [*group.list_commands(ctx), *(spec.name for spec in COMMANDS)]
        raise click.UsageError(f"Unknown command: {command}.{did_you_mean(str(command), known)}", ctx)
    assert target is not None
    with click.Context(target, info_name=command or "lobster", parent=ctx.parent) as sub:
        click.echo(target.get_help(sub))


def _print_pipeline_command_help(name: str) -> bool:
    """Help of a standard pipeline command (`lobster help exec`); False if there is no such command."""
    from lobsterlang.commands.help import help_text
    from lobsterlang.commands.specs import command

    spec = command(name)
    if spec is not None:
        click.echo(help_text(spec), nl=False)
    return spec is not None


@cli.command("version")
def version_command() -> None:
    """Print the lobsterlang version."""
    click.echo(__version__)




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
