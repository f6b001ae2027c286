"""L309: what still runs differently from the reference's raw `${arg}` text substitution.

The file's own defaults are author text: in shell text (`run:`, `exec --shell`) they run as written, as in the
reference, so they are not reported there. What still differs: a default in a pipeline word (the reference
re-tokenises the pipeline text, here the value stays one word), a default that holds a `$step.field` reference (the
reference resolves it, here it stays text), and `$${x}` building a reference.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from lobsterlang import ir
from lobsterlang.diagnostics import Diagnostic, Severity
from lobsterlang.lint.context import LintContext
from lobsterlang.lint.registry import rule
from lobsterlang.lint.rules.references import joined_text

_PIPELINE_SPECIAL = re.compile(r"[\s'\"|]")
_QUOTING = re.compile(r"['\"\\]")
_STEP_REF = re.compile(r"\$[A-Za-z0-9_-]+\.[A-Za-z0-9_]")
_HINT = "lobsterlang substitutes args as data; run with `--raw-args` for the reference's raw text substitution, or rewrite"


@rule("L309", "needs-raw-args", Severity.WARNING, "the file relies on raw `${arg}` text substitution (`--raw-args`; target `lobsterlang`)")
def needs_raw_args(ctx: LintContext) -> Iterator[Diagnostic]:
    """Only for files written for lobsterlang: under the reference, raw substitution is what happens."""
    if ctx.target != "lobsterlang":
        return
    defaults = _string_defaults(ctx)
    building = _may_build_references(ctx.shared(joined_text))
    referencing = {name: value for name, value in defaults.items() if _STEP_REF.search(value)}
    if building or referencing:
        for unit in ctx.units:
            for template, _field in unit.templates:
                if building and _may_build_references(template.text):
                    yield from _reference_building(ctx, template)
                if referencing:
                    yield from _default_references(ctx, template, referencing)
    pipeline_defaults = {name: value for name, value in defaults.items() if _PIPELINE_SPECIAL.search(value)}
    if pipeline_defaults:
        for pipeline, _unit in ctx.pipelines:
            yield from _pipeline_retokenising(ctx, pipeline, pipeline_defaults)


def _may_build_references(text: str) -> bool:
    """Whether `text` may hold what `_reference_building` flags: true of every text where it finds something."""
    return "$${" in text


def _string_defaults(ctx: LintContext) -> dict[str, str]:
    args = ctx.workflow.args if ctx.workflow else None
    return {a.name: a.default for a in args or () if a.has_default and isinstance(a.default, str)}


def _reference_building(ctx: LintContext, template: ir.Template) -> Iterator[Diagnostic]:
    """`$${x}.json`: the reference re-scans the substituted text, so `$` and the value make a `$step` ref.

    `"${slug}.txt"` or `"${TMP_DB}.new"` build nothing: only a value that itself starts with `$`
    would, and that is about the value, not the file.
    """
    text = template.text
    for start, part in ctx.offsets(template):
        if isinstance(part, ir.ArgRef) and text[start - 1 : start] == "$" and part.name in ctx.arg_names:
            message = f"`${{{part.name}}}` builds a `$step.field` reference; lobsterlang never reads arg values as references"
            yield ctx.diag("L309", part.span, message, _HINT)


def _default_references(ctx: LintContext, template: ir.Template, defaults: dict[str, str]) -> Iterator[Diagnostic]:
    """`${x}` whose default holds `$step.field`: the reference re-scans the substituted text and reads the step's
    output there; lobsterlang never reads an arg value as a reference. `defaults` holds only such defaults."""
    for part in template.parts:
        value = defaults.get(part.name) if isinstance(part, ir.ArgRef) else None
        if value is not None:
            assert isinstance(part, ir.ArgRef)
            message = f"the default of `{part.name}` ({_show(value)}) holds a step reference, which the reference resolves; here it stays text"
            yield ctx.diag("L309", part.span, message, _HINT)


def _pipeline_retokenising(ctx: LintContext, pipeline: ir.Pipeline, defaults: dict[str, str]) -> Iterator[Diagnostic]:
    """`${x}` in a pipeline word whose default has spaces, quotes or `|`: the reference re-tokenises it.

    Inside a quoted word (`--prompt "Summarise ${topic}"`) a value without quotes or backslashes stays in the one
    token, as here: both runtimes give the command the same word. `defaults` holds only such defaults.
    """
    for stage in pipeline.stages:
        for word in _words(stage):
            quoted = ctx.source_char(word.span.start) in ("'", '"')
            for ref in word.template.refs if word.template else ():
                if not isinstance(ref, ir.ArgRef):
                    continue
                value = defaults.get(ref.name)
                if value is not None and not (quoted and not _QUOTING.search(value)):
                    message = f"the default of `{ref.name}` ({_show(value)}) would be split into words by the reference; here it stays one word"
                    yield ctx.diag("L309", ref.span, message, _HINT)


def _words(stage: ir.Stage) -> Iterator[ir.Word]:
    yield stage.name
    for arg in stage.args:
        value: Any = arg.value
        if isinstance(value, ir.Word):
            yield value


def _show(value: str) -> str:
    return repr(value if len(value) <= 30 else value[:27] + "...")
