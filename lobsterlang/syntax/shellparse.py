"""Parse shell text (`run:`, `command:`, `exec --shell`) with tree-sitter-bash: the one shell parse of lint and runtime.

A `Script` answers: the simple commands (name and argument words, with where each stands), the quoting
context of any offset (code, inside "…", inside '…', a heredoc body quoted or not, a comment), the names
the script binds itself (assignments, `for` and `read` variables, jq `as $x` and `--arg x`), and its
heredocs (quoted or not, body range, the command that reads it). `node_at` and `source` give the
tree itself (with `root`) to modules that read more of it (`shellvalues`: where bash evaluates a value).
Offsets are character offsets into the text given (tree-sitter counts bytes; they are converted).
tree_sitter is imported on the first parse only: linting a file without shell text never loads it,
and the runtime parses only shell text that `shellvalues.may_evaluate` picks out.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from tree_sitter import Language, Node, Parser, Query

Context = Literal["code", "double", "single", "heredoc", "quoted-heredoc", "comment"]
"""Where an offset stands: what the shell does with a `$` there."""

_CONTEXT_NODES: dict[str, Context] = {
    "comment": "comment", "raw_string": "single", "ansi_c_string": "single", "string": "double",
    "translated_string": "double",
}
_CODE_NODES = frozenset({"command_substitution", "process_substitution", "arithmetic_expansion"})
_ARITHMETIC_NODES = frozenset({"arithmetic_expansion", "c_style_for_statement", "subscript"})
_JQ_BINDING = re.compile(r"\bas\s+\$([A-Za-z_][A-Za-z0-9_]*)|--(?:arg|argjson|slurpfile|rawfile)\s+([A-Za-z_][A-Za-z0-9_]*)")
"""Variables a jq program (or its command line) binds: `… as $x`, `--arg x v`."""
_SCRIPT_READERS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "cat"})
"""Readers of a heredoc whose body is (or, for `cat` feeding `bash -c "$(cat <<'EOF' …)"`, may be) a shell script:
the names it binds are the script's own."""
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

    __slots__ = ("body_end", "body_start", "command", "quoted")

    def __init__(self, quoted: bool, body_start: int, body_end: int) -> None:
        self.quoted, self.body_start, self.body_end = quoted, body_start, body_end
        self.command: Command | None = None


class Script:
    """The parse of one shell text. `commands`, `heredocs` and `bound` are worked out on first use."""

    def __init__(self, text: str) -> None:
        self.text = text
        data = text.encode("utf-8")
        self._chars = _char_offsets(text, data)
        self._tree = _parser().parse(_without_foreign_templates(data))
        self._commands: list[Command] | None = None
        self._heredocs: list[Heredoc] = []
        self._bound: set[str] = set()
        self._functions: set[str] = set()
        self._pipelines: list[list[Command]] = []

    @property
    def has_error(self) -> bool:
        """Whether the text does not parse as shell (tree-sitter-bash found an error)."""
        return bool(self._tree.root_node.has_error)

    def char(self, byte: int) -> int:
        """The character offset of byte offset `byte`."""
        return self._chars[byte] if self._chars is not None else byte

    @property
    def root(self) -> Node:
        """The tree's root (`program`)."""
        return self._tree.root_node

    def node_at(self, start: int, end: int) -> Node:
        """The smallest node of the tree that spans characters `start`..`end`."""
        node: Node | None = self._tree.root_node.descendant_for_byte_range(self._byte(start), self._byte(end))
        return node if node is not None else self._tree.root_node

    def source(self, node: Node) -> str:
        """The text of `node`."""
        return self.text[self.char(node.start_byte) : self.char(node.end_byte)]

    def _byte(self, offset: int) -> int:
        if self._chars is None:
            return offset
        return len(self.text[:offset].encode("utf-8"))

    @property
    def commands(self) -> list[Command]:
        """The simple commands, in order."""
        if self._commands is None:
            self._read()
        assert self._commands is not None
        return self._commands

    @property
    def heredocs(self) -> list[Heredoc]:
        self.commands  # noqa: B018  (reads the tree on first use)
        return self._heredocs

    @property
    def pipelines(self) -> list[list[Command]]:
        """The commands of each pipeline (`a | b | c`), in order."""
        self.commands  # noqa: B018
        return self._pipelines

    @property
    def functions(self) -> set[str]:
        """The names of the functions the script defines."""
        self.commands  # noqa: B018
        return self._functions

    @property
    def bound(self) -> set[str]:
        """Names the script binds: assignments, `for`/`read`/`local`… variables, jq variables."""
        self.commands  # noqa: B018
        return self._bound

    def _read(self) -> None:
        """Fill commands, heredocs and bound names from one query over the tree (matched in C)."""
        from tree_sitter import QueryCursor

        found = QueryCursor(_query()).captures(self._tree.root_node)
        commands = [self._command(node) for node in found.get("command", ())]
        commands.sort(key=lambda c: c.start)
        self._commands = commands
        self._bound = set(jq_bindings(self.text))
        self._bound.update(n.text.decode("utf-8", "replace") for n in found.get("bind", ()) if n.text is not None)
        for command in commands:
            if command.program in _BINDING_COMMANDS:
                self._bound.update(w.value.split("=", 1)[0] for w in command.args if not w.value.startswith("-") and w.literal)
            elif command.program == "getopts" and len(command.args) >= 2:
                self._bound.add(command.args[1].value)
        self._functions = {n.text.decode("utf-8", "replace") for n in found.get("function", ()) if n.text is not None}
        by_start = {c.start: c for c in commands}
        for node in found.get("heredoc", ()):
            self._heredoc(node, by_start)
        for heredoc in self._heredocs:
            if heredoc.command is not None and heredoc.command.program in _SCRIPT_READERS:
                self._bound |= parse(self.text[heredoc.body_start : heredoc.body_end]).bound
        for node in found.get("pipeline", ()):
            stages = [child.child_by_field_name("body") if child.type == "redirected_statement" else child for child in node.named_children]
            self._pipelines.append([by_start[self.char(n.start_byte)] for n in stages if n is not None and self.char(n.start_byte) in by_start])

    def _command(self, node: Node) -> Command:
        name_node = node.child_by_field_name("name")
        args = [self._word(child) for child in node.children_by_field_name("argument")]
        name = ""
        if name_node is not None and name_node.named_child_count == 1 and name_node.named_children[0].type in ("word", "string", "raw_string"):
            name = self._word(name_node.named_children[0]).value
        start = self.char(node.start_byte)
        name_end = self.char(name_node.end_byte) if name_node is not None else start
        return Command(name, start, name_end, self.char(node.end_byte), args)

    def _word(self, node: Node) -> Word:
        start, end = self.char(node.start_byte), self.char(node.end_byte)
        return Word(_unquote(self.text[start:end]), start, end, node.type)

    def _heredoc(self, redirect: Node, by_start: dict[int, Command]) -> None:
        """Record a heredoc, with the command of its redirected statement (the one that reads the body)."""
        statement = redirect.parent
        body = statement.child_by_field_name("body") if statement is not None else None
        reader = by_start.get(self.char(body.start_byte)) if body is not None else None
        start = next((c for c in redirect.children if c.type == "heredoc_start"), None)
        text = start.text.decode("utf-8", "replace") if start is not None and start.text else ""
        quoted = any(q in text for q in "'\"\\")
        for part in redirect.children:
            if part.type == "heredoc_body":
                heredoc = Heredoc(quoted, self.char(part.start_byte), self.char(part.end_byte))
                heredoc.command = reader
                self._heredocs.append(heredoc)

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

    def command_at(self, offset: int) -> Command | None:
        """The innermost simple command whose text holds `offset`."""
        found = None
        for command in self.commands:
            if command.start <= offset < command.end and (found is None or command.start >= found.start):
                found = command
        return found

    def foreign_code(self, offset: int, dollar_languages: bool = False) -> bool:
        """Whether `offset` is in code of another language that the shell leaves alone: a single-quoted argument of
        `node`/`python3`/`ruby`/`perl`… (such as `node -e '…'`), or a quoted heredoc body such a program reads;
        with `dollar_languages`, also `jq`/`awk`/`sed` programs, whose `$` is their own."""
        if self.context(offset) not in ("single", "quoted-heredoc"):
            return False
        heredoc = self.heredoc_at(offset)
        command = heredoc.command if heredoc is not None else self.command_at(offset)
        if command is None or (heredoc is None and offset < command.name_end):
            return False
        return _foreign(command.program) or (dollar_languages and command.program in DOLLAR_LANGUAGES)

    def in_arithmetic(self, offset: int) -> bool:
        """Whether `offset` is in an arithmetic context (`$((…))`, `((…))`, `for ((…))`, an array subscript), where
        a variable is read by its bare name."""
        byte = self._byte(offset)
        node: Node | None = self._tree.root_node.descendant_for_byte_range(byte, byte + 1)
        while node is not None:
            kind = node.type
            if kind in _ARITHMETIC_NODES or (kind == "compound_statement" and node.child_count and node.children[0].type == "(("):
                return True
            if kind in _CONTEXT_NODES or kind in ("command", "program", "command_substitution"):
                return False
            node = node.parent
        return False

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


FOREIGN_INTERPRETERS = frozenset({"node", "nodejs", "deno", "bun", "python", "ruby", "perl", "php", "osascript", "awk", "gawk"})
"""Programs whose code arguments and heredocs are another language (python3.11 and such count as python)."""


DOLLAR_LANGUAGES = frozenset({"jq", "gojq", "yq", "awk", "gawk", "mawk", "sed", "perl", "mlr"})
"""Programs whose own language uses `$` (`jq '$x'`, `awk '{print $1}'`)."""


def _foreign(program: str) -> bool:
    return program in FOREIGN_INTERPRETERS or program.startswith("python")


_FOREIGN_TEMPLATE = re.compile(rb"\$\{(\{[^{}\n]*\}|[A-Za-z_][A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]+)+)\}")
"""`${{ x.y }}` and `${a.b}`: other tools' template syntax, which no shell can parse (bash stops with `bad
substitution`); tree-sitter's error recovery would drop the commands around it."""


def _without_foreign_templates(data: bytes) -> bytes:
    """`data` with the inside of each `_FOREIGN_TEMPLATE` made a name of the same length (`${a.b}` → `${a_b}`), so
    that the rest of the script parses and every offset stays where it was."""
    if b"${" not in data:
        return data
    return _FOREIGN_TEMPLATE.sub(lambda m: b"${" + re.sub(rb"[^A-Za-z0-9_]", b"_", m.group(1)) + b"}", data)


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


_QUERY = """
(command) @command
(variable_assignment name: (variable_name) @bind)
(for_statement variable: (variable_name) @bind)
(heredoc_redirect) @heredoc
(pipeline) @pipeline
(function_definition name: (word) @function)
"""
"""What `Script` reads from the tree: commands, bound names, heredocs, pipelines."""


@lru_cache(maxsize=1)
def _language() -> Language:
    from tree_sitter import Language
    from tree_sitter_bash import language

    return Language(language())


@lru_cache(maxsize=1)
def _query() -> Query:
    from tree_sitter import Query

    query: Query = Query(_language(), _QUERY)
    return query


@lru_cache(maxsize=1)
def _parser() -> Parser:
    from tree_sitter import Parser

    return Parser(_language())


@lru_cache(maxsize=256)
def parse(text: str) -> Script:
    """The parse of `text`, cached while one file is checked (several rules read the same script)."""
    return Script(text)


def forget_scripts() -> None:
    """Drop the cached parses (the engine calls this after each file)."""
    parse.cache_clear()
