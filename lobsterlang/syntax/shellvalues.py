"""Where bash evaluates the value of an expansion, or another program runs it as code: read from the bash parse tree.

`value_uses(script, spans)` says, for each expansion written at `start`..`end` of a parsed script
(a `${arg}`, say), what happens to its value:

- `arithmetic`: bash evaluates it as an arithmetic expression — `$((…))`, `((…))`, `for ((…))`,
  `$[…]`, `let`, `declare -i` (and variables so declared), the operands of `[[ … -eq … ]]`, array
  subscripts, substring offsets — and runs a command found in an array subscript in it (`a[$(touch x)]`);
- `name`: bash reads it as a variable name — `printf -v`, `read`, `mapfile`, the names of
  `declare`/`typeset`/`local`/`export`/`readonly`, `declare -n` targets (and what a nameref is
  assigned), `unset`, `getopts`, `wait -p`, `test -v`, `[[ -v … ]]` — where a subscript in it runs
  a command the same way;
- `words`: bash parses it as shell words, running `$(…)` in it (`declare "a=(…)"`);
- `program`: another program runs it as its code (a here-document or here-string read by
  `python3`, `bash`, `psql`…, see `shellprograms`);
- `unknown`: tree-sitter could not parse the text around it (or before it, when nothing else was found).

A builtin is recognised however its name is spelled (`builtin let`, `command let`, `\\let`,
`"let"`, `l''et`, `$'let'`, `time let`). A value inside `$(…)` whose output lands in one of these
places counts as standing there itself, unless it is the file name of a redirection. What the
script does with a value later (`v=${x}; let "$v"`, `eval`, `sh -c`, a function's `$1`), a command
name computed at run time, and aliases are outside what this module sees.

`shellhints.may_evaluate(text)` is a quick test without a parse: where it is false, no expansion of
the text can stand in one of these places, and `value_uses` answers None for each. Callers that must
start fast import only `shellhints` up front, and this module and tree-sitter for the texts it picks.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from lobsterlang.syntax.shellhints import may_evaluate
from lobsterlang.syntax.shellprograms import passes_stdin_through, stdin_program
from lobsterlang.syntax.shellwords import COMMANDS, builtin_start, literal, prefix, scan_options, words

if TYPE_CHECKING:
    from tree_sitter import Node

    from lobsterlang.syntax.shellparse import Script

Kind = Literal["arithmetic", "name", "words", "program", "unknown"]


@dataclass(frozen=True)
class ValueUse:
    """What the shell (or a program) does with a value: `kind`, and `construct`, the place named for a message."""

    kind: Kind
    construct: str


def value_uses(script: Script, spans: Sequence[tuple[int, int]]) -> list[ValueUse | None]:
    """For each expansion at `start`..`end` (character offsets into `script.text`), what happens to its value."""
    if not may_evaluate(script.text):
        return [None] * len(spans)
    facts = _Facts(script)
    uses = [_Walk(script, start, facts).run(script.node_at(start, end)) for start, end in spans]
    broken = facts.first_error
    return [UNKNOWN if use is None and start >= broken else use for use, (start, _) in zip(uses, spans, strict=True)]


ARITHMETIC_TESTS = frozenset({"-eq", "-ne", "-lt", "-le", "-gt", "-ge"})
DECLARATIONS = frozenset({"declare", "typeset", "local", "export", "readonly", "integer", "float"})
NAMEREFS = frozenset({"declare", "typeset", "local"})
NUMERIC = frozenset({"integer", "float"})
"""ksh's and zsh's `typeset -i`/`-F` under their own names: their values are arithmetic too."""
UNKNOWN = ValueUse("unknown", "shell text that could not be parsed")


class _Facts:
    """What the whole script says: the names it declares integer (`declare -i v`) or nameref (`declare -n r`),
    and where its first parse error is."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self._declared: tuple[set[str], set[str]] | None = None

    @property
    def integers(self) -> set[str]:
        return self._declarations()[0]

    @property
    def namerefs(self) -> set[str]:
        return self._declarations()[1]

    def _declarations(self) -> tuple[set[str], set[str]]:
        if self._declared is None:
            integers: set[str] = set()
            namerefs: set[str] = set()
            pending = [self.script.root]
            while pending:  # a loop, not recursion: a script of 5,000 `a && b` nests that deep
                node = pending.pop()
                if node.type in COMMANDS:
                    self._declaration(node, integers, namerefs)
                pending.extend(node.children)
            self._declared = integers, namerefs
        return self._declared

    def _declaration(self, command: Node, integers: set[str], namerefs: set[str]) -> None:
        """Note the names `declare -i NAME…` / `declare -n NAME…` (or `local`, `builtin declare`…) declares."""
        values = [literal(self.script, word) for word in words(command)]
        start = builtin_start(values)
        if start is None or start >= len(values) or values[start] not in DECLARATIONS:
            return
        args = values[start + 1 :]
        options = scan_options(args, "")
        names = [(arg or "").split("=", 1)[0] for arg in args[options.operands :]]
        if "i" in options.flags or values[start] in NUMERIC:
            integers.update(names)
        if "n" in options.flags and values[start] in NAMEREFS:
            namerefs.update(names)

    @property
    def first_error(self) -> int:
        """Where tree-sitter's first error starts (past the end when there is none): from there on, the tree may mislead."""
        root = self.script.root
        if not root.has_error:
            return len(self.script.text) + 1
        first = root.end_byte
        pending = [root]
        while pending:
            node = pending.pop()
            if node.type == "ERROR" or node.is_missing:
                first = min(first, node.start_byte)
            elif node.has_error:
                pending.extend(node.children)
        return self.script.char(first)


_ON = ValueUse("unknown", "")
"""Returned by a step of the walk: nothing decided here, go on to the parent."""


class _Walk:
    """From the expansion up through its ancestors until one of them decides what happens to the value."""

    def __init__(self, script: Script, offset: int, facts: _Facts) -> None:
        self.script, self.offset, self.facts = script, offset, facts
        self.array: str | None = None
        """`key` or `element` when the value is in an array literal `(…)`."""
        self.in_output = False
        """The value is an argument of a command: only a `$(…)` around it brings it back into a word."""
        self.resume: Node | None = None
        """Where to go on from, when not the parent (a heredoc goes on from the command reading it)."""

    def run(self, node: Node) -> ValueUse | None:
        if node.type == "ERROR":
            return UNKNOWN
        child = node
        while child.parent is not None:
            parent = child.parent
            if parent.type == "ERROR":
                return UNKNOWN
            use = self._output(parent) if self.in_output else self._step(parent, child)
            if use is not _ON:
                return use
            child, self.resume = (self.resume or parent), None
        return None

    def _output(self, node: Node) -> ValueUse | None:
        if node.type == "command_substitution":
            self.in_output = False
        elif node.type in ("process_substitution", "function_definition"):
            return None
        return _ON

    def _step(self, node: Node, child: Node) -> ValueUse | None:
        step = _STEPS.get(node.type)
        return _ON if step is None else step(self, node, child)

    def prefix(self, word: Node) -> str:
        return prefix(self.script, word, self.offset)

    def stdin(self, reader: Node, redirect: Node, what: str) -> ValueUse | None:
        """A here-document or here-string: a program when its reader (or what `cat` passes it to) runs it."""
        values = self.values(reader) if reader.type in COMMANDS else []
        program = stdin_program(values)
        if program is None and passes_stdin_through(values):
            following = _next_in_pipeline(reader, redirect)
            program = stdin_program(self.values(following)) if following is not None else None
        if program is not None:
            return ValueUse("program", f"{what} that {program} runs as its program")
        self.in_output, self.resume = True, reader
        return _ON

    def values(self, command: Node) -> list[str | None]:
        return [literal(self.script, word) for word in words(command)]

    def builtin(self, nodes: list[Node], index: int) -> ValueUse | None:
        """What the builtin whose words are `nodes` does with word `index` (None: not a builtin that evaluates it)."""
        values = [literal(self.script, word) for word in nodes]
        values[index] = self.prefix(nodes[index])
        start = builtin_start([*values[:index], None])
        if start is None or start >= index or values[start] is None:
            return None
        name = values[start] or ""
        rule = _BUILTINS.get(name)
        return None if rule is None else rule(self, name, values[start + 1 :], index - start - 1)


def _arithmetic(walk: _Walk, node: Node, child: Node) -> ValueUse | None:
    return ValueUse("arithmetic", "$[…]" if node.children[0].type == "$[" else "$((…))")


def _compound(walk: _Walk, node: Node, child: Node) -> ValueUse | None:
    return ValueUse("arithmetic", "((…))") if node.children[0].type == "((" else _ON


def _c_style_for(walk: _Walk, node: Node, child: Node) -> ValueUse | None:
    return _ON if child == node.child_by_field_name("body") else ValueUse("arithmetic", "for ((…))")


def _subscript(walk: _Walk, node: Node, child: Node) -> ValueUse | None:
    return ValueUse("arithmetic", "an array subscript") if child == node.child_by_field_name("index") else _ON


def _expansion(walk: _Walk, node: Node, child: Node) -> ValueUse | None:
    """`${x:OFFSET:LENGTH}` evaluates both as arithmetic; after other operators (`:-`, `/`…) the value is a word."""
    operator = None
    for index, part in enumerate(node.children):
        if part == child:
            break
        if node.field_name_for_child(index) == "operator":
            operator = walk.script.source(part)
    return ValueUse("arithmetic", "a substring offset ${x:…}") if operator == ":" else _ON


def _binary(walk: _Walk, node: Node, child: Node) -> ValueUse | None:
    operator = node.child_by_field_name("operator")
    text = walk.script.source(operator) if operator is not None else ""
    if text not in ARITHMETIC_TESTS or not _in_double_brackets(node):
        return _ON
    return ValueUse("arithmetic", f"[[ … {text} … ]]")


def _unary(walk: _Walk, node: Node, child: Node) -> ValueUse | None:
    operator = node.child_by_field_name("operator")
    text = walk.script.source(operator) if operator is not None else ""
    if text not in ("-v", "-R"):
        return _ON
    return _name(f"[[ {text} … ]]" if _in_double_brackets(node) else f"[ {text} … ]", walk.prefix(child))


def _stop(walk: _Walk, node: Node, child: Node) -> ValueUse | None:
    """A test's operand, a redirection's file name, a process substitution: the value goes no further."""
    return None


def _array(walk: _Walk, node: Node, child: Node) -> ValueUse | None:
    before = walk.prefix(child)
    walk.array = "key" if before.startswith("[") and "]=" not in before else "element"
    return _ON


def _assignment(walk: _Walk, node: Node, child: Node) -> ValueUse | None:
    """`name=VALUE` outside `declare`: arithmetic when `name` is declared integer (and for an array literal's keys),
    a variable name when `name` is a nameref (assigning an unset nameref sets what it refers to)."""
    if node.parent is not None and node.parent.type == "declaration_command":
        return _ON
    name_node = node.child_by_field_name("name")
    name = walk.script.source(name_node) if name_node is not None else ""
    if walk.array == "key":
        return ValueUse("arithmetic", "an array subscript")
    if child == name_node:
        return None
    if name in walk.facts.integers:
        return ValueUse("arithmetic", f"an integer variable (declare -i {name})")
    return ValueUse("name", f"a nameref (declare -n {name})") if name in walk.facts.namerefs else None


def _command(walk: _Walk, node: Node, child: Node) -> ValueUse | None:
    nodes = words(node)
    if child.type == "command_name" and child.named_child_count:
        child = child.named_children[0]
    if child not in nodes:
        return None
    use = walk.builtin(nodes, nodes.index(child))
    walk.in_output = use is None
    return _ON if use is None else use


def _herestring(walk: _Walk, node: Node, child: Node) -> ValueUse | None:
    reader = node.parent
    if reader is not None and reader.type == "redirected_statement":
        reader = reader.child_by_field_name("body")
    return walk.stdin(reader, node, "a here-string") if reader is not None else None


def _heredoc(walk: _Walk, node: Node, child: Node) -> ValueUse | None:
    if child.type != "heredoc_body":
        return _ON
    statement = node.parent
    reader = statement.child_by_field_name("body") if statement is not None else None
    return walk.stdin(reader, node, "a here-document") if reader is not None else None


def _let(walk: _Walk, name: str, args: list[str | None], at: int) -> ValueUse | None:
    return ValueUse("arithmetic", name)


def _declaration(walk: _Walk, name: str, args: list[str | None], at: int) -> ValueUse | None:
    """The name in `declare NAME=…` (and its relatives), the value under `-i`/`-n`, a quoted `"a=(…)"`."""
    options = scan_options(args, "", partial=at)
    if at < options.operands:
        return None
    before = args[at] or ""
    if "=" not in before:
        return _name(name, before)
    flags = options.flags + ("i" if name in NUMERIC else "")
    if walk.array is not None:
        integer = "i" in flags or (walk.array == "key" and "A" not in flags)
        return ValueUse("arithmetic", f"{name} -{'i' if 'i' in flags else 'a'}") if integer else None
    if before.split("=", 1)[1].startswith("("):
        return ValueUse("words", f'{name} "a=(…)" (a quoted array assignment)')
    if "i" in flags:
        return ValueUse("arithmetic", name if name in NUMERIC else f"{name} -i")
    return _name(f"{name} -n", "") if "n" in flags and name in NAMEREFS else None


def _named_by_option(walk: _Walk, name: str, args: list[str | None], at: int) -> ValueUse | None:
    """`printf -v NAME`, `read [-a NAME] NAME…`, `mapfile NAME`, `unset NAME`, `getopts OPTS NAME`, `wait -p NAME`."""
    takes, names, operands_are_names = _NAME_OPTIONS[name]
    options = scan_options(args, takes, partial=at)
    letter = options.value_of.get(at) or options.attached.get(at)
    before = args[at] or ""
    if letter is not None and letter in names:
        value = before[before.index(letter, 1) + 1 :] if at in options.attached else before
        return _name(f"{name} -{letter}", value)
    if letter is None and at >= options.operands and operands_are_names(options.flags, at - options.operands):
        return _name(name, before)
    return None


def _test(walk: _Walk, name: str, args: list[str | None], at: int) -> ValueUse | None:
    flag = args[at - 1] if at > 0 else None
    return _name(f"{name} {flag}", args[at] or "") if flag in ("-v", "-R") else None

def _name(construct: str, before: str) -> ValueUse:
    """A variable-name context; with `[` open before the value, the value is in the name's subscript."""
    if "[" in before and "]" not in before[before.rindex("[") :]:
        return ValueUse("arithmetic", f"an array subscript in {construct}")
    return ValueUse("name", construct)


def _in_double_brackets(node: Node) -> bool:
    while node.parent is not None and node.type != "test_command":
        node = node.parent
    return node.type == "test_command" and node.children[0].type == "[["


def _next_in_pipeline(reader: Node, redirect: Node) -> Node | None:
    """The command after `reader` in its pipeline (tree-sitter hangs `<<EOF | next` under the heredoc)."""
    hung = next((part for part in redirect.children if part.type == "pipeline"), None)
    if hung is not None:
        return next((part for part in hung.named_children if part.type in COMMANDS), None)
    statement = reader.parent if reader.parent is not None and reader.parent.type == "redirected_statement" else reader
    pipeline = statement.parent
    if pipeline is None or pipeline.type != "pipeline":
        return None
    following = statement.next_named_sibling
    if following is not None and following.type == "redirected_statement":
        following = following.child_by_field_name("body")
    return following if following is not None and following.type in COMMANDS else None


def _all(flags: str, operand: int) -> bool:
    return True


def _unset_names(flags: str, operand: int) -> bool:
    return "f" not in flags


def _second(flags: str, operand: int) -> bool:
    return operand == 1


def _never(flags: str, operand: int) -> bool:
    return False


_NAME_OPTIONS: dict[str, tuple[str, str, Callable[[str, int], bool]]] = {
    "printf": ("v", "v", _never),
    "read": ("adinNptu", "a", _all),
    "mapfile": ("dnOsuCc", "", _all),
    "readarray": ("dnOsuCc", "", _all),
    "unset": ("", "", _unset_names),
    "getopts": ("", "", _second),
    "wait": ("p", "p", _never),
}
"""Per builtin: letters taking a value, those whose value is a variable name, and which operands are names."""

_BUILTINS: dict[str, Callable[[_Walk, str, list[str | None], int], ValueUse | None]] = {
    "let": _let,
    **dict.fromkeys(DECLARATIONS, _declaration),
    **dict.fromkeys(_NAME_OPTIONS, _named_by_option),
    "test": _test,
    "[": _test,
}
"""What each builtin does with its arguments (`_Walk.builtin` finds the builtin behind `builtin`, `command`, `time`)."""

_STEPS: dict[str, Callable[[_Walk, Node, Node], ValueUse | None]] = {
    "arithmetic_expansion": _arithmetic,
    "compound_statement": _compound,
    "c_style_for_statement": _c_style_for,
    "subscript": _subscript,
    "expansion": _expansion,
    "binary_expression": _binary,
    "unary_expression": _unary,
    "test_command": _stop,
    "array": _array,
    "variable_assignment": _assignment,
    **dict.fromkeys(COMMANDS, _command),
    "herestring_redirect": _herestring,
    "heredoc_redirect": _heredoc,
    "file_redirect": _stop,
    "process_substitution": _stop,
}
"""What each type of ancestor decides; other types (quotes, lists, pipelines, `$(…)`) pass the value up."""
