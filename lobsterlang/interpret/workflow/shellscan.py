"""Find the quoting context at the end of a piece of POSIX shell text (quotes, $(…), heredocs, comments)."""

from __future__ import annotations

from dataclasses import dataclass

WORD_BREAK = frozenset(" \t\n;&|()")
_DELIM_END = frozenset(" \t\n;&|<>()")


@dataclass
class Heredoc:
    """A here-document whose body starts at the next newline."""

    delimiter: str
    quoted: bool
    strip_tabs: bool


@dataclass
class ShellContext:
    """Where text would be inserted: `kind` (top, dq, sq, arith, comment, heredoc…) and a pending backslash."""

    kind: str
    escaped: bool = False
    heredoc: Heredoc | None = None


class _Scanner:
    def __init__(self, text: str) -> None:
        self.text = text
        self.i = 0
        self.stack = ["top"]
        self.escaped = False
        self.pending: list[Heredoc] = []
        self.body: Heredoc | None = None

    def run(self) -> ShellContext:
        while self.i < len(self.text):
            if self.body is not None:
                if not self._body_line():
                    return ShellContext("heredoc", False, self.body)
                continue
            self._step(self.text[self.i])
        if self.body is not None:
            return ShellContext("heredoc", False, self.body)
        return ShellContext(self.stack[-1], self.escaped)

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
            self.stack.pop()

    def _newline(self, ch: str) -> None:
        if ch == "\n" and self.pending and self.stack[-1] in ("top", "cmd", "paren"):
            self.body = self.pending.pop(0)

    def _in_double_quotes(self, ch: str) -> None:
        if ch == '"':
            self.stack.pop()
        elif ch == "`":
            self.stack.append("bq")
        elif ch == "$":
            self._dollar()

    def _dollar(self) -> None:
        ahead = self.text[self.i + 1 : self.i + 3]
        if ahead == "((":
            self.stack.append("arith")
            self.i += 2
        elif ahead[:1] == "(":
            self.stack.append("cmd")
            self.i += 1
        elif ahead[:1] == "{":
            self.stack.append("param")
            self.i += 1

    def _unquoted(self, ch: str, kind: str) -> None:
        if kind == "arith":
            self._arith(ch)
        elif ch == "'":
            self.stack.append("sq")
        elif ch == '"':
            self.stack.append("dq")
        elif ch == "`" and kind == "bq":
            self.stack.pop()
        elif ch == "`":
            self.stack.append("bq")
        elif ch == "$":
            self._dollar()
        else:
            self._structure(ch, kind)

    def _arith(self, ch: str) -> None:
        if ch == ")" and self.text[self.i + 1 : self.i + 2] == ")":
            self.stack.pop()
            self.i += 1
        elif ch == "$":
            self._dollar()

    def _structure(self, ch: str, kind: str) -> None:
        if ch == "(":
            self.stack.append("paren")
        elif (ch == ")" and kind in ("cmd", "paren")) or (ch == "}" and kind == "param"):
            self.stack.pop()
        elif ch == "#" and kind != "param" and (self.i == 0 or self.text[self.i - 1] in WORD_BREAK):
            self.stack.append("comment")
        elif ch == "<" and self.text[self.i + 1 : self.i + 2] == "<" and kind != "param":
            self._heredoc()
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


def context_at_end(text: str) -> ShellContext:
    """The quoting context in effect right after `text`."""
    return _Scanner(text).run()
