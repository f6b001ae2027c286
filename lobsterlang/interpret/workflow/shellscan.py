"""Find the quoting context at the end of a piece of POSIX shell text (quotes, $(…), arithmetic, heredocs, comments)."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

WORD_BREAK = frozenset(" \t\n;&|()")
_DELIM_END = frozenset(" \t\n;&|<>()")
COMMAND_LEVEL = frozenset({"top", "cmd", "paren", "bq"})
ARITHMETIC = frozenset({"arith", "brackets", "subscript", "offset"})
"""Kinds whose text bash evaluates as arithmetic: `$((…))`/`((…))`, `$[…]`, `${name[…]}`, `${name:…}`."""
_SEPARATORS = frozenset(";&|\n")
_PLAIN = {
    **dict.fromkeys(COMMAND_LEVEL, re.compile(r"[^'\"`$\\()#<;&|\n]*")),
    "dq": re.compile(r'[^"`$\\]*'),
    "sq": re.compile(r"[^']*"),
    "comment": re.compile(r"[^\n]*"),
    "param": re.compile(r"[^'\"`$\\\[:(}]*"),
}
"""Per kind, a run of characters `_step` would only step over (skipped in one match)."""
_PARAM_NAME = re.compile(r"[#!]?(?:[A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!-])(?:\[[^\]]*\])?")


@dataclass(frozen=True)
class Heredoc:
    """A here-document whose body starts at the next newline."""

    delimiter: str
    quoted: bool
    strip_tabs: bool


@dataclass(frozen=True)
class ShellContext:
    """Where text would be inserted: `kind` (top, dq, sq, arith, comment, heredoc…), a pending backslash,
    and `command`: the text of the innermost simple command so far (from its last separator)."""

    kind: str
    escaped: bool = False
    heredoc: Heredoc | None = None
    command: str = ""

    @property
    def arithmetic(self) -> bool:
        return self.kind in ARITHMETIC


class _Scanner:
    def __init__(self, text: str) -> None:
        self.text = text
        self.i = 0
        self.stack = ["top"]
        self.starts = [0]
        self.escaped = False
        self.pending: list[Heredoc] = []
        self.body: Heredoc | None = None

    def run(self) -> ShellContext:
        text, end = self.text, len(self.text)
        while self.i < end:
            if self.body is not None:
                if not self._body_line():
                    return ShellContext("heredoc", False, self.body)
                continue
            plain = None if self.escaped else _PLAIN.get(self.stack[-1])
            if plain is not None:
                self.i = plain.match(text, self.i).end()  # type: ignore[union-attr]
                if self.i == end:
                    break
            self._step(text[self.i])
        if self.body is not None:
            return ShellContext("heredoc", False, self.body)
        return ShellContext(self.stack[-1], self.escaped, None, self._command())

    def _command(self) -> str:
        for kind, start in zip(reversed(self.stack), reversed(self.starts), strict=True):
            if kind in COMMAND_LEVEL:
                return self.text[start:]
        return ""

    def push(self, kind: str, skip: int = 0) -> None:
        """Enter `kind`; its text starts after the current character and `skip` more."""
        self.stack.append(kind)
        self.starts.append(self.i + 1 + skip)

    def pop(self) -> None:
        self.stack.pop()
        self.starts.pop()

    def _body_line(self) -> bool:
        end = self.text.find("\n", self.i)
        if end < 0:
            return False
        assert self.body is not None
        line = self.text[self.i : end]
        if (line.lstrip("\t") if self.body.strip_tabs else line) == self.body.delimiter:
            self.body = self.pending.pop(0) if self.pending else None
        self.i = end + 1
        return True

    def _step(self, ch: str) -> None:
        kind = self.stack[-1]
        if self.escaped:
            self.escaped = False
        elif kind == "sq":
            self._pop_if(ch == "'")
        elif kind == "comment":
            self._pop_if(ch == "\n")
            self._newline(ch)
        elif ch == "\\":
            self.escaped = True
        elif kind == "dq":
            self._in_double_quotes(ch)
        else:
            self._unquoted(ch, kind)
        self.i += 1

    def _pop_if(self, condition: bool) -> None:
        if condition:
            self.pop()

    def _newline(self, ch: str) -> None:
        if ch == "\n" and self.pending and self.stack[-1] in ("top", "cmd", "paren"):
            self.body = self.pending.pop(0)

    def _in_double_quotes(self, ch: str) -> None:
        if ch == '"':
            self.pop()
        elif ch == "`":
            self.push("bq")
        elif ch == "$":
            self._dollar()

    def _dollar(self) -> None:
        ahead = self.text[self.i + 1 : self.i + 3]
        if ahead == "((":
            self.push("arith", 2)
            self.i += 2
        elif ahead[:1] == "(":
            self.push("cmd", 1)
            self.i += 1
        elif ahead[:1] == "{":
            self.push("param", 1)
            self.i += 1
        elif ahead[:1] == "[":
            self.push("brackets", 1)
            self.i += 1

    def _unquoted(self, ch: str, kind: str) -> None:
        if kind in ARITHMETIC or kind == "aparen":
            self._arith(ch, kind)
        elif ch == "'":
            self.push("sq")
        elif ch == '"':
            self.push("dq")
        elif ch == "`" and kind == "bq":
            self.pop()
        elif ch == "`":
            self.push("bq")
        elif ch == "$":
            self._dollar()
        elif kind == "param" and ch in "[:" and self._param_operator(ch):
            self.push("subscript" if ch == "[" else "offset")
        else:
            self._structure(ch, kind)

    def _param_operator(self, ch: str) -> bool:
        """`[` right after the name in `${name…}` starts a subscript, `:` after it (or after `name[…]`) an offset."""
        if ch == ":" and self.text[self.i + 1 : self.i + 2] in ("-", "=", "+", "?"):
            return False
        name = self.text[self.starts[-1] : self.i]
        return _PARAM_NAME.fullmatch(name) is not None and (ch == ":" or not name.endswith("]"))

    def _arith(self, ch: str, kind: str) -> None:
        """Arithmetic text: nested parentheses, `))`, `]` or `}` close it; `$` expansions nest inside."""
        if ch == "$":
            self._dollar()
        elif ch == '"':
            return
        elif ch == "(" or (ch == "[" and kind in ("subscript", "brackets")):
            self.push("aparen" if ch == "(" else "subscript")
        elif ch == ")" and kind == "aparen":
            self.pop()
        elif ch == ")" and kind == "arith" and self.text[self.i + 1 : self.i + 2] == ")":
            self.pop()
            self.i += 1
        elif ch == "]" and kind in ("subscript", "brackets"):
            self.pop()
        elif ch == "}" and kind == "offset":
            self.pop()
            self.pop()

    def _structure(self, ch: str, kind: str) -> None:
        if ch == "(" and self.text[self.i + 1 : self.i + 2] == "(" and kind in COMMAND_LEVEL:
            self.push("arith", 1)
            self.i += 1
        elif ch == "(":
            self.push("paren")
        elif (ch == ")" and kind in ("cmd", "paren")) or (ch == "}" and kind == "param"):
            self.pop()
        elif ch == "#" and kind != "param" and (self.i == 0 or self.text[self.i - 1] in WORD_BREAK):
            self.push("comment")
        elif ch == "<" and self.text[self.i + 1 : self.i + 2] == "<" and kind != "param":
            self._heredoc()
        elif ch in _SEPARATORS and kind in COMMAND_LEVEL:
            self.starts[-1] = self.i + 1
            self._newline(ch)
        else:
            self._newline(ch)

    def _heredoc(self) -> None:
        j = self.i + 2
        strip = self.text[j : j + 1] == "-"
        j += strip
        while j < len(self.text) and self.text[j] in " \t":
            j += 1
        start = j
        while j < len(self.text) and self.text[j] not in _DELIM_END:
            j += 1
        word = self.text[start:j]
        if word and j < len(self.text):
            quoted = any(q in word for q in "'\"\\")
            delimiter = word.replace("'", "").replace('"', "").replace("\\", "")
            self.pending.append(Heredoc(delimiter, quoted, strip))
        self.i = j - 1


@functools.lru_cache(maxsize=1024)
def context_at_end(text: str) -> ShellContext:
    """The quoting context in effect right after `text` (remembered: a dry run checks each command, then renders it)."""
    return _Scanner(text).run()
