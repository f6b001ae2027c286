"""`lobster graph`: print a workflow file's steps and data flow as Mermaid, DOT or text."""

from __future__ import annotations

import json
from typing import Any, NoReturn

import click

from lobsterlang.cli.completion import complete_graph_format, complete_paths
from lobsterlang.cli.options import MAX_INPUT_BYTES_OPTION
from lobsterlang.cli.usage import did_you_mean, workflow_path_problem
from lobsterlang.graph import FORMATS, render_graph
from lobsterlang.interpret.workflow.errors import WorkflowError
from lobsterlang.interpret.workflow.loader import load_workflow


@click.command("graph")
@click.argument("path", required=False, metavar="FILE", shell_complete=complete_paths)
@click.option("--file", "file", metavar="FILE", shell_complete=complete_paths, help="The workflow file (or give it as FILE).")
@click.option("--format", "fmt", default="mermaid", metavar="mermaid|dot|ascii", shell_complete=complete_graph_format, help="Output format.  [default: mermaid]")
@click.option("--args-json", "args_json", metavar="JSON", help="Arg values (a JSON object) used in the labels.")
@MAX_INPUT_BYTES_OPTION
@click.pass_context
def graph_command(ctx: click.Context, path: str | None, file: str | None, fmt: str, args_json: str | None) -> None:
    """Draw a workflow: one node per step (approvals as diamonds), with next/stdin/for_each/when edges.

    Labels are escaped, so a step id or command cannot inject Mermaid or DOT syntax.
    Exit 0 on success, 1 when the file cannot be loaded, 2 on usage errors (including a missing
    file, a directory or another extension).
    """
    target = file or path
    if not target:
        _usage(ctx, "graph requires a workflow file path (use --file <path>)")
    if fmt not in FORMATS:
        suggestion = did_you_mean(fmt, FORMATS)
        _usage(ctx, "graph --format must be one of: mermaid, dot, ascii" + (f".{suggestion}" if suggestion else ""))
    given = _args(ctx, args_json)
    problem = workflow_path_problem(target)
    if problem is not None:
        raise click.UsageError(problem, ctx)
    try:
        workflow, _ = load_workflow(target)
    except WorkflowError as exc:
        click.echo(f"Error: {exc}", err=True)
        ctx.exit(1)
    click.echo(render_graph(workflow, fmt, given))


def _args(ctx: click.Context, text: str | None) -> dict[str, Any] | None:
    if text is None:
        return None
    try:
        value = json.loads(text)
    except ValueError:
        _usage(ctx, "graph --args-json must be valid JSON")
    if not isinstance(value, dict):
        _usage(ctx, "graph --args-json must be a JSON object")
    return value


def _usage(ctx: click.Context, message: str) -> NoReturn:
    """A usage error in the reference's words, printed as every usage error is (`Error: …`, exit 2)."""
    raise click.UsageError(message, ctx)
