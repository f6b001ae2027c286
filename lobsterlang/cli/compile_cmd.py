"""`lobster compile`: print the IR of a workflow file or a pipeline as JSON."""

from __future__ import annotations

import json

import click

from lobsterlang.cli.files import read_workflow_bytes, write_atomic
from lobsterlang.cli.output import COLOR_OPTION, FORMAT_OPTION, print_diagnostics
from lobsterlang.compile import CompileResult, compile_pipeline, compile_workflow
from lobsterlang.diagnostics import has_errors
from lobsterlang.ir_codec import to_json
from lobsterlang.report import Report


@click.command("compile")
@click.argument("file", required=False, metavar="[FILE]")
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
    result: CompileResult[object]
    if pipeline_text is not None:
        result, path = compile_pipeline(pipeline_text), "<pipeline>"  # type: ignore[assignment]
    else:
        assert file is not None
        data, path = read_workflow_bytes(file, stdin_filename)
        result = compile_workflow(data, path)  # type: ignore[assignment]
    print_diagnostics([Report(path, result.text, result.diagnostics)], fmt, color)
    if has_errors(result.diagnostics) or result.ir is None:
        ctx.exit(1)
    text = json.dumps(to_json(result.ir), indent=None if compact else 2, ensure_ascii=False) + "\n"
    if output:
        write_atomic(output, text)
    else:
        click.echo(text, nl=False)
