"""Args that stand where bash, or a program fed the shell's text, evaluates them: values that could run are refused.

A caller's value reaches the shell as a quoted variable, yet bash still evaluates that variable's
value in arithmetic (`let`, `declare -i`, `$((…))`, subscripts…), reads it as a variable name
(`printf -v`, `read`, `declare NAME=…`, `[[ -v … ]]`…) or parses it as words (`declare "a=(…)"`),
and a program fed a here-document or here-string runs it as code; an array subscript in the value
(`a[$(touch x)]`) or the value itself then runs. Where a `${arg}` stands is read from the bash
parse tree (`lobsterlang.syntax.shellvalues`); tree-sitter is loaded only for shell text that
`shellhints.may_evaluate` picks out, and each text is parsed once per process.
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING

from lobsterlang.interpret.workflow.argvars import arg_var_name
from lobsterlang.interpret.workflow.errors import WorkflowError
from lobsterlang.syntax.shellhints import may_evaluate

if TYPE_CHECKING:
    from lobsterlang.syntax.shellvalues import ValueUse

INTEGER = re.compile(r"\s*[+-]?(?:0[xX][0-9A-Fa-f]+|[0-9]+)\s*", re.ASCII)
NAME = re.compile(r"[A-Za-z0-9_]*", re.ASCII)
PLAIN_WORDS = re.compile(r"[A-Za-z0-9_.,:/@%+= \t-]*", re.ASCII)


class EvaluatedArg(WorkflowError):
    """An arg whose value would run as code where its reference stands."""


@functools.lru_cache(maxsize=512)
def value_uses(text: str, spans: tuple[tuple[int, int], ...]) -> tuple[ValueUse | None, ...]:
    """What the shell does with the value of each reference at `spans` of shell text `text` (None: keeps it as data)."""
    if not may_evaluate(text):
        return (None,) * len(spans)
    from lobsterlang.syntax.shellparse import Script
    from lobsterlang.syntax.shellvalues import value_uses as uses_in

    return tuple(uses_in(Script(text), spans))


def check_value(name: str, value: str, use: ValueUse | None) -> None:
    """Refuse `value` for arg `name` when, standing where `use` says, it could run as code."""
    if use is None:
        return
    allowed, says, must = _RULES[use.kind]
    if allowed.fullmatch(value):
        return
    shown = value if len(value) <= 60 else value[:57] + "..."
    if use.kind == "program":
        says = says.format(var=arg_var_name(name) or "LOBSTER_ARGS_JSON")
    raise EvaluatedArg(f"arg {name} is used in {use.construct}, {says}; {must}, got {shown!r}")


_RULES: dict[str, tuple[re.Pattern[str], str, str]] = {
    "arithmetic": (INTEGER, "where bash evaluates it as arithmetic (and runs commands found in it)", "it must be an integer"),
    "name": (NAME, "where bash reads it as a variable name (and runs commands found in a subscript in it)",
             "it must be a name (letters, digits and _)"),
    "words": (PLAIN_WORDS, "where bash parses it as shell words (and runs commands found in it)",
              "it may hold only letters, digits, spaces and . , : / @ % + = _ -"),
    "program": (INTEGER, "where its value becomes code; let the program read it from the environment variable {var} "
                "instead, or run with --raw-args", "here it must be an integer"),
    "unknown": (INTEGER, "which lobster cannot parse, so it cannot tell whether bash evaluates the value",
                "it must be an integer (or simplify the shell text, or run with --raw-args)"),
}
"""Per kind of use: the values allowed, what happens there, and what the value must be."""
