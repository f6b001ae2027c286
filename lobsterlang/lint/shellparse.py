"""Parse shell text (`run:`, `command:`, `exec --shell`) with tree-sitter-bash into what the rules ask about.

A `Script` answers: the simple commands (name and argument words, with where each stands), the quoting
context of any offset (code, inside "…", inside '…', a heredoc body quoted or not, a comment), the names
the script binds itself (assignments, `for` and `read` variables, jq `as $x` and `--arg x`), and its
heredocs. Offsets are character offsets into the text given (tree-sitter counts bytes; they are
converted). tree_sitter is imported on the first parse only: linting a file without shell text never
loads it, and the runtime never imports this module.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from tree_sitter import Node, Parser

Context = Literal["code", "double", "single", "heredoc", "quoted-heredoc", "comment"]
"""Where an offset stands: what the shell does with a `$` there."""

_CONTEXT_NODES: dict[str, Context] = {
    "comment": "comment", "raw_string": "single", "ansi_c_string": "single", "string": "double",
    "translated_string": "double",
}
_CODE_NODES = frozenset({"command_substitution", "process_substitution", "arithmetic_expansion"})
_JQ_BINDING = re.compile(r"\bas\s+\$([A-Za-z_][A-Za-z0-9_]*)|--(?:arg|argjson|slurpfile|rawfile)\s+([A-Za-z_][A-Za-z0-9_]*)")
"""Variables a jq program (or its command line) binds: `… as $x`, `--arg x v`."""
_BINDING_COMMANDS = frozenset({"read", "local", "export", "declare", "typeset", "readonly", "mapfile", "readarray"})


class Word:
    """One word of a command: its text with quotes removed (expansions kept as written) and where it stands."""

    __slots__ = ("end", "node_type", "start", "value")

    def __init__(self, value: str, start: int, end: int, node_type: str) -> None:
        self.value, self.start, self.end, self.node_type = value, start, end, node_type

    @property
    def literal(self) -> bool:
        """Whether the word has no expansion (its value is what the command receives)."""
        return "$" not in self.value or self.node_type == "raw_string"

    def __repr__(self) -> str:
        return f"Word({self.value!r})"


class Command:
    """A simple command: `name` (empty when the name is not a plain word) and its argument words."""

    __slots__ = ("args", "end", "name", "name_end", "start")

    def __init__(self, name: str, start: int, name_end: int, end: int, args: list[Word]) -> None:
        self.name, self.start, self.name_end, self.end, self.args = name, start, name_end, end, args

    @property
    def program(self) -> str:
        """The name without its directory (`/usr/bin/curl` → `curl`)."""
        return self.name.rsplit("/", 1)[-1]

    def positionals(self) -> list[str]:
        return [w.value for w in self.args if not w.value.startswith("-")]

    def __repr__(self) -> str:
        return f"Command({self.name!r}, {[w.value for w in self.args]!r})"


class Heredoc:
    """A here-document: its body's range, whether its delimiter is quoted, and the command that reads it."""

    __slots__ = ("body_end", "body_start", "command", "quoted", "reader")

    def __init__(self, quoted: bool, body_start: int, body_end: int, reader: int) -> None:
        self.quoted, self.body_start, self.body_end, self.reader = quoted, body_start, body_end, reader
        self.command: Command | None = None


class Script:
    """The parse of one shell text."""

    def __init__(self, text: str) -> None:
        self.text = text
        data = text.encode("utf-8")
        self._chars = _char_offsets(text, data)
        self._tree = _parser().parse(data)
        self.commands: list[Command] = []
        self.heredocs: list[Heredoc] = []
        self.comments: list[tuple[int, int]] = []
        self.bound: set[str] = set(jq_bindings(text))
        """Names the script binds: assignments, `for`/`read`/`local`… variables, jq variables."""
        self._walk(self._tree.root_node)

    def char(self, byte: int) -> int:
        return self._chars[byte] if self._chars is not None else byte

    def _byte(self, offset: int) -> int:
        if self._chars is None:
            return offset
        return len(self.text[:offset].encode("utf-8"))

    def _walk(self, root: Node) -> None:
        pending = [root]
        while pending:
            node = pending.pop()
            kind = node.type
            if kind == "command":
                self._command(node)
            elif kind == "variable_assignment" or kind == "for_statement":
                self._bind(node.child_by_field_name("name") or node.child_by_field_name("variable"))
            elif kind == "comment":
                self.comments.append((self.char(node.start_byte), self.char(node.end_byte)))
            elif kind == "redirected_statement":
                self._heredocs(node)
            pending.extend(reversed(node.children))
        self.commands.sort(key=lambda c: c.start)
        by_start = {c.start: c for c in self.commands}
        for heredoc in self.heredocs:
            heredoc.command = by_start.get(heredoc.reader)

    def _bind(self, name: Node | None) -> None:
        if name is not None and name.text is not None:
            self.bound.add(name.text.decode("utf-8", "replace"))

    def _command(self, node: Node) -> None:
        name_node = node.child_by_field_name("name")
        args = [self._word(child) for child in node.children_by_field_name("argument")]
        name = ""
        if name_node is not None and name_node.named_child_count == 1 and name_node.named_children[0].type in ("word", "string", "raw_string"):
            name = self._word(name_node.named_children[0]).value
        start = self.char(node.start_byte)
        name_end = self.char(name_node.end_byte) if name_node is not None else start
        command = Command(name, start, name_end, self.char(node.end_byte), args)
        self.commands.append(command)
        if command.program in _BINDING_COMMANDS:
            self.bound.update(w.value.split("=", 1)[0] for w in args if not w.value.startswith("-") and w.literal)

    def _word(self, node: Node) -> Word:
        start, end = self.char(node.start_byte), self.char(node.end_byte)
        return Word(_unquote(self.text[start:end]), start, end, node.type)

    def _heredocs(self, node: Node) -> None:
        """Record the heredocs of a redirected statement; `_walk` links each to its command afterwards."""
        body = node.child_by_field_name("body")
        reader = self.char(body.start_byte) if body is not None and body.type == "command" else -1
        for redirect in node.children:
            if redirect.type != "heredoc_redirect":
                continue
            start = next((c for c in redirect.children if c.type == "heredoc_start"), None)
            text = start.text.decode("utf-8", "replace") if start is not None and start.text else ""
            quoted = any(q in text for q in "'\"\\")
            for part in redirect.children:
                if part.type == "heredoc_body":
                    self.heredocs.append(Heredoc(quoted, self.char(part.start_byte), self.char(part.end_byte), reader))

    def context(self, offset: int) -> Context:
        """What the shell does at `offset` (the start of an expansion or reference)."""
        byte = self._byte(offset)
        node: Node | None = self._tree.root_node.descendant_for_byte_range(byte, byte + 1)
        while node is not None:
            kind = node.type
            if kind in _CODE_NODES:
                return "code"
            found = _CONTEXT_NODES.get(kind)
            if found is not None:
                return found
            if kind == "heredoc_body":
                return self._heredoc_context(offset)
            node = node.parent
        return self._heredoc_context(offset)

    def _heredoc_context(self, offset: int) -> Context:
        heredoc = self.heredoc_at(offset)
        if heredoc is None:
            return "code"
        return "quoted-heredoc" if heredoc.quoted else "heredoc"

    def heredoc_at(self, offset: int) -> Heredoc | None:
        for heredoc in self.heredocs:
            if heredoc.body_start <= offset < heredoc.body_end:
                return heredoc
        return None

    def in_assignment(self, offset: int) -> bool:
        """Whether `offset` is in the value of an assignment (`X=…`), where the shell splits no words."""
        byte = self._byte(offset)
        node: Node | None = self._tree.root_node.descendant_for_byte_range(byte, byte + 1)
        while node is not None:
            if node.type == "variable_assignment":
                return True
            if node.type in ("command", "program"):
                return False
            node = node.parent
        return False


def _unquote(raw: str) -> str:
    """A word's text with its outer quoting removed (good enough for names, flags and paths)."""
    if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "'\"":
        return raw[1:-1]
    if raw.startswith("$'") and raw.endswith("'"):
        return raw[2:-1]
    return raw.replace("\\\n", "").replace('"', "").replace("'", "") if ("'" in raw or '"' in raw) else raw


def jq_bindings(text: str) -> list[str]:
    if "as $" not in text and "--arg" not in text and "--slurpfile" not in text and "--rawfile" not in text:
        return []
    return [a or b for a, b in _JQ_BINDING.findall(text)]


def _char_offsets(text: str, data: bytes) -> list[int] | None:
    """Byte offset → character offset, or None when they are the same (ASCII text)."""
    if len(data) == len(text):
        return None
    table = []
    for index, ch in enumerate(text):
        table.extend([index] * len(ch.encode("utf-8")))
    table.append(len(text))
    return table


@lru_cache(maxsize=1)
def _parser() -> Parser:
    from tree_sitter import Language, Parser
    from tree_sitter_bash import language

    return Parser(Language(language()))


@lru_cache(maxsize=512)
def parse(text: str) -> Script:
    """The parse of `text`, cached: workflow files repeat the same scripts."""
    return Script(text)
