"""`lobster compile` without click: printing a compile result, and a fast path for plain calls."""

from __future__ import annotations

import json
import sys

from lobsterlang.cli.files import workflow_source, write_atomic
from lobsterlang.cli.output import print_diagnostics
from lobsterlang.compile import CompileResult, compile_pipeline, compile_workflow, finish
from lobsterlang.diagnostics import has_errors
from lobsterlang.ir_codec import to_json
from lobsterlang.report import Report
from lobsterlang.syntax.source import decode_source, read_source_stream

_CHOICES = {"--format": ("text", "json"), "--color": ("auto", "always", "never")}
_VALUED = ("--pipeline", "--stdin-filename", *_CHOICES)


def compile_input(pipeline_text: str | None, source: tuple[bytes, str] | None) -> tuple[CompileResult[object], str]:
    """Compile the pipeline text, or else the workflow source (bytes and name); returns the name too."""
    if pipeline_text == "-":  # `--pipeline -` reads stdin
        decoded, problems = decode_source(read_source_stream())
        if problems:
            return finish(None, problems, decoded.text, False), "<pipeline>"
        pipeline_text = decoded.text
    if pipeline_text is not None:
        return compile_pipeline(pipeline_text), "<pipeline>"  # type: ignore[return-value]
    assert source is not None
    data, path = source
    return compile_workflow(data, path), path  # type: ignore[return-value]


def print_result(result: CompileResult[object], path: str, output: str | None, compact: bool, fmt: str, color: str) -> int:
    """Report the diagnostics on stderr and write the IR (stdout or `output`); returns the exit code."""
    print_diagnostics([Report(path, result.text, result.diagnostics)], fmt, color)
    if has_errors(result.diagnostics) or result.ir is None:
        return 1
    text = json.dumps(to_json(result.ir), indent=None if compact else 2, ensure_ascii=False) + "\n"
    if output:
        write_atomic(output, text)
    else:
        sys.stdout.write(text)
        sys.stdout.flush()
    return 0


def fast_compile(args: list[str]) -> int | None:
    """Run `compile` when its arguments are plain and valid; None hands them to the click command.

    Only the shapes below are taken here: `-o`, help, `--`, unknown or invalid options and
    unreadable files all go to click, which owns the usage messages.
    """
    options = _parse(args)
    if options is None:
        return None
    file, pipeline_text = options.get("file"), options.get("--pipeline")
    if (file is None) == (pipeline_text is None):
        return None
    source = None if file is None else workflow_source(file, options.get("--stdin-filename"))
    if isinstance(source, str):
        return None
    result, path = compile_input(pipeline_text, source)
    fmt, color = options.get("--format", "text"), options.get("--color", "auto")
    return print_result(result, path, None, "--compact" in options, fmt, color)


def _parse(args: list[str]) -> dict[str, str] | None:
    """Options by name (`file` for the argument), or None for anything this path does not take."""
    options: dict[str, str] = {}
    rest = iter(args)
    for arg in rest:
        name, has_value, value = arg.partition("=")
        if arg == "--compact":
            options[arg] = ""
        elif name in _VALUED:
            value = value if has_value else next(rest, "-")
            if value.startswith("-") or name in options or value not in _CHOICES.get(name, (value,)):
                return None
            options[name] = value
        elif (arg == "-" or not arg.startswith("-")) and "file" not in options:
            options["file"] = arg
        else:
            return None
    return options
