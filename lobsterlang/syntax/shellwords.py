"""Words of a shell command in a tree-sitter-bash parse: their literal values, the argv, and builtin options.

A word is literal when the shell gives it one value whatever the environment holds: plain text,
quotes, backslashes and `$'…'` escapes (`l''et`, `\\let`, `"let"` and `$'\\154et'` are all `let`).
A word with an expansion has no literal value (None).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tree_sitter import Node

    from lobsterlang.syntax.shellparse import Script

COMMANDS = frozenset({"command", "declaration_command", "unset_command"})
"""Node types holding a simple command's words (the name first)."""
_ANSI_C = re.compile(r"\\(?:([abeEfnrtv\\'\"?])|([0-7]{1,3})|x([0-9A-Fa-f]{1,2})|u([0-9A-Fa-f]{1,4})|U([0-9A-Fa-f]{1,8})|c(.))", re.DOTALL)
_ANSI_C_LETTERS = {"a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}
_DOUBLE_QUOTE_ESCAPE = re.compile(r'\\([$`"\\\n])')
_BACKSLASH = re.compile(r"\\(.)", re.DOTALL)
_QUOTES = re.compile(r"[\\'\"]")


def literal(script: Script, node: Node) -> str | None:
    """The value the shell gives word `node`, or None when it holds an expansion."""
    kind, text = node.type, script.source(node)
    if not node.is_named or kind == "variable_name":  # a keyword (`declare`, `unset`) or a bare name
        return text
    if kind in ("word", "number"):
        return None if "$" in text or "`" in text else _BACKSLASH.sub(_unescape, text)
    if kind == "raw_string":
        return text[1:-1]
    if kind == "ansi_c_string":
        return _ANSI_C.sub(_ansi_c_escape, text[2:-1])
    if kind in ("string", "translated_string"):
        if any(child.is_named and child.type != "string_content" for child in node.children):
            return None
        body = text[text.index('"') + 1 : -1]
        return _DOUBLE_QUOTE_ESCAPE.sub(lambda m: "" if m.group(1) == "\n" else m.group(1), body)
    if kind == "concatenation":
        parts = [literal(script, child) for child in node.children]
        return None if any(part is None for part in parts) else "".join(part or "" for part in parts)
    if kind == "variable_assignment":
        return _assignment(script, node)
    return None


def _unescape(match: re.Match[str]) -> str:
    return "" if match.group(1) == "\n" else match.group(1)


def _ansi_c_escape(match: re.Match[str]) -> str:
    letter, octal, hex2, hex4, hex8, control = match.groups()
    if letter is not None:
        return _ANSI_C_LETTERS.get(letter, letter)
    if control is not None:
        return chr(ord(control) & 0x1F)
    number = int(octal, 8) if octal else int(hex2 or hex4 or hex8, 16)
    return chr(min(number, 0x10FFFF))


def _assignment(script: Script, node: Node) -> str | None:
    value = node.child_by_field_name("value")
    name = node.child_by_field_name("name")
    head = script.source(node)[: (value.start_byte - node.start_byte) if value is not None else None]
    if name is None or value is None:
        return head
    rest = literal(script, value)
    return None if rest is None else head + rest


def words(node: Node) -> list[Node]:
    """The words of a simple command node (`COMMANDS`): the name first, then the arguments (no redirections)."""
    if node.type == "command":
        name = node.child_by_field_name("name")
        head = [name.named_children[0]] if name is not None and name.named_child_count else []
        return head + node.children_by_field_name("argument")
    return [child for child in node.children if child.type != "comment" and child.type not in _REDIRECTS]


_REDIRECTS = frozenset({"file_redirect", "heredoc_redirect", "herestring_redirect"})


def prefix(script: Script, word: Node, offset: int) -> str:
    """The text of `word` before `offset`, with quotes and backslashes removed (enough to find `=`, `[` and `(`)."""
    start = script.char(word.start_byte)
    return _QUOTES.sub("", script.text[start:offset])


BUILTIN_WRAPPERS = {"builtin": "", "command": "p", "time": "p"}
"""Words that run the builtin named after them (and their flags); `command -v`/`-V` only look it up."""


def builtin_start(values: list[str | None]) -> int | None:
    """Where the builtin's name is in `values` once `builtin`, `command` and `time` are stepped over; None: nothing runs."""
    at = 0
    while at < len(values) and values[at] in BUILTIN_WRAPPERS:
        flags = BUILTIN_WRAPPERS[values[at] or ""]
        at += 1
        while at < len(values) and (values[at] or "").startswith("-") and len(values[at] or "") > 1:
            if values[at] == "--":
                at += 1
                break
            if any(letter not in flags for letter in (values[at] or "")[1:]):
                return None
            at += 1
    return at


@dataclass
class Options:
    """A builtin's arguments read the way bash reads them: option letters until the first operand.

    `flags`: every letter given with `-` (letters after `+` turn an attribute off and are left out);
    `value_of`: argument index → the option letter whose value that argument is (a separate word);
    `attached`: argument index → the option letter whose value follows it in the same word (`-vNAME`);
    `operands`: the index of the first operand.
    """

    flags: str = ""
    value_of: dict[int, str] = field(default_factory=dict)
    attached: dict[int, str] = field(default_factory=dict)
    operands: int = 0


def scan_options(
    args: list[str | None], takes_value: str, partial: int | None = None, long_values: frozenset[str] = frozenset(),
) -> Options:
    """Read options from `args` (None: a word with an expansion, which ends the options).

    `takes_value`: the letters that take a value; `partial`: the index of a word given only up to
    a point (the rest of it is an expansion), so a value-taking letter at its end has its value attached;
    `long_values`: `--long` options followed by a value (other `--long` options are stepped over).
    """
    found = Options()
    at = 0
    while at < len(args):
        word = args[at]
        if word is None or len(word) < 2 or word[0] not in "-+" or word == "--":
            found.operands = at + (word == "--")
            return found
        if word.startswith("--"):
            at += 2 if word in long_values else 1
            continue
        at = _option_word(found, word, at, takes_value, at == partial) + 1
    found.operands = at
    return found


def _option_word(found: Options, word: str, at: int, takes_value: str, continues: bool) -> int:
    """Record the letters of option word `word` at `at`; the index of the last word it used."""
    for position, letter in enumerate(word[1:], 1):
        if word[0] == "-":
            found.flags += letter
        if letter in takes_value:
            if position + 1 < len(word) or continues:
                found.attached[at] = letter
                return at
            found.value_of[at + 1] = letter
            return at + 1
    return at
