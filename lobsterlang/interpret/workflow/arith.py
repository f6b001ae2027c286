"""Args where bash evaluates arithmetic: only integers may go there, since bash runs `a[$(…)]` found in a value.

Bash evaluates a variable's value as an arithmetic expression in `$((…))`, `((…))`, `$[…]`, `let`,
`declare -i`, `[[ … -eq … ]]`, array subscripts `${a[…]}` and substring offsets `${x:…}`; an
array subscript inside that value (`a[$(touch x)]`), or the name of a variable holding one, runs
a command. Quoting does not help. So an arg whose reference stands in one of those places must be
a plain integer, or the step fails before it starts.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from lobsterlang.interpret.workflow.errors import WorkflowError
from lobsterlang.interpret.workflow.shellscan import ShellContext

INTEGER = re.compile(r"\s*[+-]?(?:0[xX][0-9A-Fa-f]+|[0-9]+)\s*", re.ASCII)
TEST_OPERATORS = frozenset({"-eq", "-ne", "-lt", "-le", "-gt", "-ge"})
DECLARE = frozenset({"declare", "typeset", "local", "export", "readonly"})
_KIND_NAMES = {"arith": "$((…)) / ((…))", "brackets": "$[…]", "subscript": "an array subscript ${a[…]}", "offset": "a substring offset ${x:…}"}
RESERVED = frozenset({"{", "!", "if", "then", "elif", "else", "while", "until", "do", "time"})
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")


class ArithmeticArg(WorkflowError):
    """An arg that is not an integer, used where bash evaluates arithmetic."""


def arithmetic_use(context: ShellContext, after: Callable[[], str]) -> str | None:
    """Which arithmetic context a reference at `context` (followed by the text `after()`) stands in, or None."""
    if context.arithmetic:
        return _KIND_NAMES[context.kind]
    if context.kind not in ("top", "dq", "cmd", "paren", "bq"):
        return None
    words = _command_words(context.command)
    if not words:
        return None
    if words[0] == "let":
        return "let"
    if words[0] in DECLARE and any(w.startswith("-") and "i" in w[1:] for w in words[1:]):
        return f"{words[0]} -i"
    if "[[" in words and "]]" not in words[words.index("[[") :] and _beside_test_operator(context.command, after()):
        return "[[ … -eq … ]]"
    return None


def _command_words(command: str) -> list[str]:
    """The words of a simple command, without leading reserved words, function heads and assignments."""
    words = command.split()
    while words and (words[0] in RESERVED or words[0].endswith("()") or _ASSIGNMENT.match(words[0])):
        words = words[1:]
    return words


def _beside_test_operator(before: str, after: str) -> bool:
    """Whether the word holding the reference is an operand of `-eq`, `-lt`, … (the word before or after it)."""
    words_before = before.split()
    previous = words_before[-1] if before[-1:].isspace() and words_before else None
    if previous is None and len(words_before) > 1:
        previous = words_before[-2]
    words_after = after.split()
    following = words_after[0] if after[:1].isspace() and words_after else None
    if following is None and len(words_after) > 1:
        following = words_after[1]
    return previous in TEST_OPERATORS or following in TEST_OPERATORS


def check_arithmetic(name: str, value: str, use: str | None) -> None:
    """Refuse a non-integer `value` for arg `name` when it stands in arithmetic context `use`."""
    if use is not None and not INTEGER.fullmatch(value):
        shown = value if len(value) <= 60 else value[:57] + "..."
        raise ArithmeticArg(
            f"arg {name} is used in {use}, where bash evaluates it as arithmetic (and runs commands found in it); "
            f"it must be an integer, got {shown!r}"
        )
