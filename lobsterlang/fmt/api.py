"""Format workflow text, one step of it (range formatting), or write IR as a canonical .lobster file."""

from __future__ import annotations

from pathlib import PurePath

from lobsterlang import ir
from lobsterlang.compile import CompileResult, compile_workflow
from lobsterlang.compile.files import compile_composed
from lobsterlang.diagnostics import Diagnostic
from lobsterlang.fmt.comments import header_gap, with_comments
from lobsterlang.fmt.document import step_document, workflow_document
from lobsterlang.fmt.json_out import json_text
from lobsterlang.fmt.layout import INDENT, Path, document_layout, item_layout
from lobsterlang.fmt.meaning import same_comments, same_meaning
from lobsterlang.fmt.style import DEFAULT_STYLE, Style
from lobsterlang.record import Record
from lobsterlang.span import LineIndex, Span
from lobsterlang.syntax.sourcelayout import SourceLayout, survey


class FormatError(ValueError):
    """The text cannot be formatted: it has compile errors (`diagnostics`, located in `text`), or a step was not found."""

    def __init__(self, message: str, diagnostics: tuple[Diagnostic, ...] = (), text: str = "") -> None:
        super().__init__(message)
        self.diagnostics = diagnostics
        self.text = text


def is_json_path(path: str) -> bool:
    if not path.lower().endswith(".json") and not path.endswith(("/", ".")):
        return False  # the common case, decided without building a PurePath
    return PurePath(path).suffix.lower() == ".json"


def format_text(source: str | bytes, path: str = "<stdin>", *, to_yaml: bool = False, style: Style = DEFAULT_STYLE) -> str:
    """The formatted text of a workflow file; JSON paths stay JSON unless `to_yaml`.

    The author's key order, blank lines and scalar styles are kept (see docs/fmt.md).
    Raises FormatError when the file has compile errors: such a file is never rewritten.
    """
    return format_parsed(parse(source, path), as_json=is_json_path(path) and not to_yaml, style=style)


class Parsed(Record):
    """A workflow file that compiles: its IR and, for a YAML file, the survey of its layout."""

    workflow: ir.Workflow
    layout: SourceLayout | None


def compiled(source: str | bytes, path: str) -> ir.Workflow:
    """The IR of a file that compiles without errors (warnings are fine)."""
    return _checked(compile_workflow(source, path), path)


def parse(source: str | bytes, path: str) -> Parsed:
    """The IR of a file that compiles without errors, and how it is laid out (composing it once)."""
    result, composed = compile_composed(source, path)
    workflow = _checked(result, path)
    layout = None if composed is None or is_json_path(path) else survey(result.text, *composed)
    return Parsed(workflow, layout)


def _checked(result: CompileResult[ir.Workflow], path: str) -> ir.Workflow:
    if not result.ok or result.ir is None:
        errors = [d for d in result.diagnostics if d.is_error]
        message = f"{path}: {errors[0].message}" if errors else f"{path}: not a workflow"
        raise FormatError(message, result.diagnostics, result.text)
    return result.ir


def format_parsed(parsed: Parsed, *, as_json: bool = False, style: Style = DEFAULT_STYLE) -> str:
    """The formatted text of a parsed file: a YAML file keeps its author's layout choices."""
    return format_workflow(parsed.workflow, as_json=as_json, source=None if as_json else parsed.layout, style=style)


def format_workflow(
    workflow: ir.Workflow, *, as_json: bool = False, source: SourceLayout | None = None, style: Style = DEFAULT_STYLE
) -> str:
    """Text from IR: canonical, or keeping the layout choices of `source` (the survey of the file it came from)."""
    doc = workflow_document(workflow, as_written=source is not None)
    if as_json:
        return json_text(doc)
    gap = source is None and header_gap(workflow)
    lines = with_comments(document_layout(doc, source, style), workflow.comments, gap)
    return "\n".join(lines) + "\n"


def emit(workflow: ir.Workflow) -> str:
    """A canonical .lobster (YAML) file for IR, with the IR's comments in place."""
    return format_workflow(workflow)


def verified(workflow: ir.Workflow, text: str, path: str, source: str | None = None) -> bool:
    """Whether `text` compiles to a workflow meaning exactly what `workflow` means, with the same comments.

    Comments are compared twice: as the compiler finds them (each one's text, wherever it went), and,
    given the `source` text, by a count that owes nothing to the compiler: the result holds at least as many
    `#` as the source (a comment the compiler failed to see cannot be dropped unnoticed).
    """
    result = compile_workflow(text, path)
    if not result.ok or result.ir is None or not same_meaning(workflow, result.ir):
        return False
    return same_comments(workflow, result.ir) and (source is None or text.count("#") >= source.count("#"))


def format_step(source: str, path: str, step_id: str, *, style: Style = DEFAULT_STYLE) -> tuple[Span, str]:
    """Range formatting: the span of step `step_id` in `source` and its formatted text.

    The span starts at the step's first key (after `- `) and ends after its last line;
    replacing it with the text formats that step alone. A step written in flow style
    (`[{id: a, ...}]`) cannot be replaced on its own: then the span is the whole file.
    """
    parsed = parse(source, path)
    workflow = parsed.workflow
    found = _find_step(workflow.steps, step_id, ("steps",))
    if found is None:
        raise FormatError(f"{path}: no step {step_id!r}")
    step, step_path = found
    index = LineIndex(source)
    start = step.span.start
    if is_json_path(path) or source[source.rfind("\n", 0, start) + 1 : start].strip() != "-":
        return index.span(0, len(source)), format_parsed(parsed, as_json=is_json_path(path), style=style)
    inside = tuple(c for c in workflow.comments if c.path[: len(step_path)] == step_path and c.span.start > start)
    step_text = _step_text(step, step_path, inside, parsed.layout, style)
    return index.span(start, _step_end(source, step, workflow.comments, inside)), step_text


def _step_text(
    step: ir.Step, step_path: Path, comments: tuple[ir.Comment, ...], source: SourceLayout | None, style: Style
) -> str:
    """The step's formatted lines, its keys at the column of its first key, without the leading `- `."""
    dash = step.span.col - 1 - INDENT
    doc = step_document(step, as_written=source is not None)
    lines = with_comments(item_layout(doc, dash, step_path, source, style), comments, False)
    return "\n".join(lines)[dash + INDENT :]


def _find_step(steps: tuple[ir.Step, ...], step_id: str, path: Path) -> tuple[ir.Step, Path] | None:
    for number, step in enumerate(steps):
        if step.id == step_id:
            return step, (*path, number)
        if isinstance(step.action, ir.ForEach):
            found = _find_step(step.action.steps, step_id, (*path, number, "steps"))
            if found is not None:
                return found
    return None


def _step_end(source: str, step: ir.Step, comments: tuple[ir.Comment, ...], inside: tuple[ir.Comment, ...]) -> int:
    """The end of the step's last line: before comments that belong to what follows it."""
    end = step.span.end
    for comment in comments:
        if comment not in inside and step.span.start < comment.span.start < end:
            end = min(end, comment.span.start - (comment.span.col - 1))
    while end > step.span.start and source[end - 1] in " \t\r\n":
        end -= 1
    return end
