"""Shell completion for bash, zsh and fish through click's mechanism (`lobster --completion SHELL` prints the script).

The script calls `lobster` back with `_LOBSTER_COMPLETE=<shell>_complete`; the answers cover subcommands,
options, file arguments and the names of pipeline commands (`lobster run exe<TAB>` → `exec`).
"""

from __future__ import annotations

from typing import Any

import click
from click.shell_completion import CompletionItem, get_completion_class

COMPLETE_VAR = "_LOBSTER_COMPLETE"
SHELLS = ("bash", "zsh", "fish")
_VALUES = {"--mode": ("human", "tool"), "--approve": ("yes", "no"), "--decision": ("yes", "no"), "--overlap": ("skip", "queue")}
_FILE_VALUED = ("--file",)


def completion_script(shell: str) -> str:
    """The completion script for `shell` (bash, zsh or fish), as click writes it for `lobster`."""
    from lobsterlang.cli.app import cli

    completion_class = get_completion_class(shell)
    assert completion_class is not None, shell
    return completion_class(cli, {}, "lobster", COMPLETE_VAR).source()


def print_completion_script(ctx: click.Context, param: click.Parameter, shell: str | None) -> None:
    """The eager `--completion SHELL` option: print the script and stop."""
    if shell is None or ctx.resilient_parsing:
        return
    click.echo(completion_script(shell), nl=False)
    ctx.exit(0)


def complete_paths(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """Let the shell complete file names."""
    return [CompletionItem(incomplete, type="file")]


def pipeline_command_items(incomplete: str) -> list[CompletionItem]:
    """Standard pipeline commands whose name starts with `incomplete`, with their summaries."""
    from lobsterlang.commands.specs import COMMANDS

    return [CompletionItem(spec.name, help=spec.summary) for spec in COMMANDS if spec.name.startswith(incomplete)]


def _option_items(options: tuple[str, ...], incomplete: str) -> list[CompletionItem]:
    return [CompletionItem(option) for option in options if option.startswith(incomplete)]


def _after_option(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem] | None:
    """Values for the option just before the cursor (`--mode <TAB>`), or None when there is none."""
    given: Any = ctx.params.get(param.name or "") or ()
    previous = given[-1] if given else ""
    if previous in _VALUES:
        return [CompletionItem(v) for v in _VALUES[previous] if v.startswith(incomplete)]
    if previous in _FILE_VALUED:
        return complete_paths(ctx, param, incomplete)
    return None


def run_options() -> tuple[str, ...]:
    """Every option `lobster run` reads (its parser's own list)."""
    from lobsterlang.cli.run_cmd import RUN_OPTIONS

    return RUN_OPTIONS


def resume_options() -> tuple[str, ...]:
    """Every option `lobster resume` reads (its parser's own list), and `--help`."""
    from lobsterlang.cli.resume_cmd import RESUME_OPTIONS

    return (*RESUME_OPTIONS, "--help")


def complete_graph_format(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """`lobster graph --format <TAB>`: the formats the renderer knows."""
    from lobsterlang.graph import FORMATS

    return [CompletionItem(name) for name in FORMATS if name.startswith(incomplete)]


def complete_help_topic(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """`lobster help <TAB>`: the subcommands and the pipeline commands, as `help` takes both."""
    group = ctx.parent.command if ctx.parent else None
    names = group.list_commands(ctx) if isinstance(group, click.Group) else []
    return [*(CompletionItem(name) for name in names if name.startswith(incomplete)), *pipeline_command_items(incomplete)]


def complete_run_words(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """`lobster run …`: run options, option values, workflow files and pipeline command names."""
    values = _after_option(ctx, param, incomplete)
    if values is not None:
        return values
    if incomplete.startswith("-"):
        return _option_items(run_options(), incomplete)
    return [*complete_paths(ctx, param, incomplete), *pipeline_command_items(incomplete)]


def complete_resume_words(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """`lobster resume …`: its options and `--approve yes|no`."""
    values = _after_option(ctx, param, incomplete)
    if values is not None:
        return values
    return _option_items(resume_options(), incomplete)


def complete_first_word(group: click.Group, ctx: click.Context, incomplete: str) -> list[CompletionItem]:
    """`lobster <TAB>`: subcommands (without importing their modules), the group's options, pipeline commands."""
    if incomplete.startswith("-"):
        return _option_items(("--help", "--version", "--completion"), incomplete)
    names = [CompletionItem(name) for name in group.list_commands(ctx) if name.startswith(incomplete)]
    return [*names, *pipeline_command_items(incomplete)]


class PassThroughCommand(click.Command):
    """A command that takes its words unparsed (`run`, `resume`): its argument completes its options too."""

    def shell_complete(self, ctx: click.Context, incomplete: str) -> list[CompletionItem]:
        if incomplete.startswith("-") and self.params:
            return self.params[0].shell_complete(ctx, incomplete)
        return super().shell_complete(ctx, incomplete)
