"""Canonical pipeline text from `ir.Pipeline`: ` | ` between stages, one space between words, canonical quoting."""

from __future__ import annotations

from lobsterlang import ir
from lobsterlang.syntax.lexer import pipeline_word_scanner
from lobsterlang.syntax.text import JS_WHITESPACE

_BARE_UNSAFE = frozenset(" \t\n\r|'\"") | JS_WHITESPACE


def stage_texts(pipeline: ir.Pipeline, *, as_written: bool = False) -> list[str]:
    """One text per stage; joined with ` | ` they parse back to the same stages.

    Words are quoted canonically, or `as_written` (only the spaces between them normalized).
    """
    if as_written:
        return [_written_stage(stage) for stage in pipeline.stages]
    return [stage_text(stage) for stage in pipeline.stages]


def _written_stage(stage: ir.Stage) -> str:
    """The stage's words as the author spelled them, one space between them."""
    words = split_words(stage.raw)
    return " ".join(words) if words else stage_text(stage)


def split_words(text: str) -> list[str] | None:
    """The words of a piece of pipeline text as spelled (quotes kept), `|` included as a word;
    None when the text does not scan completely (an unclosed quote)."""
    words = []
    consumed = 0
    for space, pipe, bare, single, double, other in pipeline_word_scanner().findall(text):
        word = pipe or bare or single or double or other
        consumed += len(space) + len(word)
        words.append(word)
    return words if consumed == len(text.rstrip(" \t\n\r")) else None


def pipeline_text(pipeline: ir.Pipeline) -> str:
    return " | ".join(stage_texts(pipeline))


def stage_text(stage: ir.Stage) -> str:
    """Stages that use `${arg}` keep their text as written: with raw argument substitution
    (the reference's behaviour, `--raw-args`) their quoting decides how a value splits."""
    if "${" in stage.raw:
        return stage.raw
    return " ".join([word(stage.name.value), *[_arg_text(arg) for arg in stage.args]])


def _arg_text(arg: ir.StageArg) -> str:
    if isinstance(arg, ir.Positional):
        return word(arg.value.value)
    flag = "--" + arg.name
    if arg.value is None:
        return word(flag)
    value = arg.value.value
    if arg.style == "equals":
        prefix = flag + "="
        if _is_bare(prefix):
            return prefix + word(value) if value else prefix
        return word(prefix + value)
    return word(flag) + " " + word(value)


def word(value: str) -> str:
    """A token's value written so the pipeline tokenizer reads it back unchanged.

    Bare when nothing in it is special; else single quotes (literal, but `\\'` is an escape,
    so no apostrophe and no final backslash); else double quotes escaping `\\` and `"`.
    """
    if _is_bare(value):
        return value
    if "'" not in value and not value.endswith("\\"):
        return "'" + value + "'"
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _is_bare(value: str) -> bool:
    return bool(value) and _BARE_UNSAFE.isdisjoint(value)
