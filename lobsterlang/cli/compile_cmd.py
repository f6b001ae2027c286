"""`lobster compile`: print the IR of a workflow file or a pipeline as JSON."""

from __future__ import annotations

import click

from lobsterlang.cli.compile_main import compile_input, print_result
from lobsterlang.cli.completion import complete_paths
from lobsterlang.cli.files import read_workflow_bytes
from lobsterlang.cli.options import COLOR_OPTION, FORMAT_OPTION


@click.command("compile")
@click.argument("file", required=False, metavar="[FILE]", shell_complete=complete_paths)
@click.option("--pipeline", "pipeline_text", metavar="TEXT", help="Compile this pipeline string instead of a file.")
@click.option("-o", "--output", metavar="OUT", help="Write the IR to OUT (atomically) instead of stdout.")
@click.option("--compact", is_flag=True, help="Print the IR on one line.")
@click.option("--stdin-filename", metavar="NAME", help="Name to report for FILE `-` (a .json name reads JSON).")
@FORMAT_OPTION
@COLOR_OPTION
@click.pass_context
def compile_command(
    ctx: click.Context, file: str | None, pipeline_text: str | None, output: str | None,
    compact: bool, stdin_filename: str | None, fmt: str, color: str,
) -> None:
    """Compile FILE (.lobster, .yaml, .yml or .json; `-` for stdin) or --pipeline TEXT to IR JSON.

    Every problem is reported at once on stderr as `path:line:col: CODE message` with the
    source line and a caret. Exit 0 when the input compiles (warnings allowed), 1 when it
    has errors, 2 on usage errors.
    """
    if (file is None) == (pipeline_text is None):
        raise click.UsageError("give a workflow FILE or --pipeline TEXT (exactly one)")
    source = None if file is None else read_workflow_bytes(file, stdin_filename)
    result, path = compile_input(pipeline_text, source)
    ctx.exit(print_result(result, path, output, compact, fmt, color))
