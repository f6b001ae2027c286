"""Compose YAML 1.2 (core schema) into positioned nodes with pyyaml's C loader."""

from __future__ import annotations

import operator
import re
from typing import Any

import yaml

from lobsterlang.diagnostics import Diagnostic, Severity
from lobsterlang.span import LineIndex
from lobsterlang.syntax.intlimit import HEX_DIGITS_TO_EXCEED, MAX_DIGITS, decimal_digits, too_many_digits

try:
    _BaseLoader: type = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - pyyaml built without libyaml
    _BaseLoader = yaml.SafeLoader

NULL_TAG = "tag:yaml.org,2002:null"
BOOL_TAG = "tag:yaml.org,2002:bool"
INT_TAG = "tag:yaml.org,2002:int"
FLOAT_TAG = "tag:yaml.org,2002:float"
STR_TAG = "tag:yaml.org,2002:str"
SEQ_TAG = "tag:yaml.org,2002:seq"
MAP_TAG = "tag:yaml.org,2002:map"

# YAML 1.2 core schema (what the reference's `yaml` package uses): `yes`, `on`, `<<` are strings.
_CORE_RESOLVERS = (
    (NULL_TAG, r"~|null|Null|NULL|", "~nN"),
    (BOOL_TAG, r"true|True|TRUE|false|False|FALSE", "tTfF"),
    (INT_TAG, r"[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+", "-+0123456789"),
    (
        FLOAT_TAG,
        r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)",
        "-+.0123456789",
    ),
)



def _by_first_character() -> dict[str, tuple[tuple[str, re.Pattern[str]], ...]]:
    """The core-schema resolvers a plain scalar can match, by its first character ("" when empty)."""
    table: dict[str, list[tuple[str, re.Pattern[str]]]] = {"": [(NULL_TAG, re.compile(r"^$"))]}
    for tag, pattern, first in _CORE_RESOLVERS:
        compiled = re.compile(rf"^(?:{pattern})$")
        for char in first:
            table.setdefault(char, []).append((tag, compiled))
    return {char: tuple(resolvers) for char, resolvers in table.items()}


_PLAIN_RESOLVERS = _by_first_character()
_LONG_DIGITS = re.compile(f"[0-9A-Fa-f]{{{HEX_DIGITS_TO_EXCEED},}}")
"""A run of digits that may write an integer of more than MAX_DIGITS decimal digits (E009)."""
_SCALAR, _SEQUENCE = yaml.ScalarNode, yaml.SequenceNode


class CoreLoader(_BaseLoader):  # type: ignore[misc]
    """pyyaml's loader with the YAML 1.2 core-schema resolvers instead of YAML 1.1's.

    The C composer calls `resolve` for every node and `descend_resolver`/`ascend_resolver`
    around it; with no path resolvers those reduce to a table lookup and two no-ops
    (pyyaml's generic versions cost about a quarter of composing a workflow file).
    """

    def resolve(self, kind: type[yaml.Node], value: Any, implicit: Any) -> str:
        """For a scalar, `value` is its text and `implicit` is (plain, quoted); for a collection, None and a flag."""
        if kind is _SCALAR:
            if implicit[0]:  # plain: the core schema may type it
                for tag, pattern in _PLAIN_RESOLVERS.get(value[:1], ()):
                    if pattern.match(value):
                        return tag
            return STR_TAG
        return SEQ_TAG if kind is _SEQUENCE else MAP_TAG

    # Called around every node. With no path resolvers they have nothing to do, and builtins
    # that take the same arguments do nothing without the cost of a Python call.
    descend_resolver = staticmethod(operator.is_)  # (parent, index)
    ascend_resolver = staticmethod(tuple)  # ()


def compose_yaml(text: str, index: LineIndex) -> tuple[yaml.Node | None, list[Diagnostic]]:
    """Compose one YAML document; syntax errors become a diagnostic at the parser's mark, and an integer
    too long to convert is E009, as in a JSON file."""
    try:
        root = yaml.compose(text, Loader=CoreLoader)
    except yaml.MarkedYAMLError as exc:
        return None, [_syntax_error(exc, text, index)]
    except yaml.reader.ReaderError as exc:
        return None, [_unreadable_character(exc, text, index)]
    except yaml.YAMLError as exc:  # pragma: no cover - the reader's and the parser's are all there are
        return None, [Diagnostic("E003", Severity.ERROR, f"YAML error: {exc}", index.span(0, 0))]
    too_long = _long_integer(root, text)
    if too_long is not None:
        node, digits = too_long
        return None, [too_many_digits(digits, index.span(node.start_mark.index, node.end_mark.index))]
    return root, []


def _unreadable_character(exc: yaml.reader.ReaderError, text: str, index: LineIndex) -> Diagnostic:
    """A character YAML does not allow in a document (a control character, a lone surrogate), where it is (libyaml
    counts the position in UTF-8 bytes, PyYAML's own reader in characters)."""
    position = exc.position if isinstance(exc.position, int) else 0
    if exc.encoding != "unicode":
        position = len(text.encode("utf-8", "surrogatepass")[:position].decode("utf-8", "ignore"))
    offset = position if 0 <= position < len(text) else 0
    code = ord(text[offset]) if text else 0
    return Diagnostic("E003", Severity.ERROR, f"YAML error: the character U+{code:04X} is not allowed in YAML",
                      index.span(offset, offset + 1),
                      hint=f'remove it, or write it as an escape in a double-quoted string ("\\u{code:04x}")')


def _long_integer(root: yaml.Node | None, text: str) -> tuple[yaml.ScalarNode, int] | None:
    """The first integer scalar of more than MAX_DIGITS decimal digits, and its digits (only a text with a run of
    digits long enough is walked). A run of digits lies within one line: the regex, which reads every character at
    some cost (about 1 ms for a 500-step file, compiled at every edit in the language server), only reads a text
    with a line that long."""
    if root is None or max(map(len, text.split("\n"))) < HEX_DIGITS_TO_EXCEED or _LONG_DIGITS.search(text) is None:
        return None
    seen: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:  # an alias repeats a node
            continue
        seen.add(id(node))
        if isinstance(node, yaml.ScalarNode):
            digits = _integer_digits(node) if node.tag == INT_TAG else 0
            if digits > MAX_DIGITS:
                return node, digits
        elif isinstance(node, yaml.MappingNode):
            stack.extend(n for pair in reversed(node.value) for n in reversed(pair))
        else:
            stack.extend(reversed(node.value))
    return None


def _integer_digits(node: yaml.ScalarNode) -> int:
    """Decimal digits of a core-schema integer: as written, or of its value for `0x…`/`0o…`."""
    body = node.value.lstrip("+-")
    if body[:2] in ("0x", "0o"):
        return decimal_digits(int(body[2:], 16 if body[1] == "x" else 8))
    return len(body)


def _syntax_error(exc: yaml.MarkedYAMLError, text: str, index: LineIndex) -> Diagnostic:
    if _unclosed_quote(exc):
        return _unclosed_quote_error(exc, text, index)
    mark = exc.problem_mark or exc.context_mark
    offset = min(mark.index, len(text)) if mark is not None else 0
    problem = exc.problem or "invalid YAML"
    if offset < len(text) and text[offset] == "\t":
        problem = "tabs are not allowed as indentation"
    context = f" ({exc.context})" if exc.context and exc.context not in problem else ""
    span = index.span(offset, offset + 1)
    return Diagnostic("E003", Severity.ERROR, f"YAML syntax error: {problem}{context}", span, hint=_hint(problem, text, offset))


def _unclosed_quote(exc: yaml.MarkedYAMLError) -> bool:
    """A quoted scalar that runs to the end of the file: pyyaml marks the end, the quote is where it opened."""
    return exc.context == "while scanning a quoted scalar" and exc.context_mark is not None and "end of stream" in str(exc.problem)


def _unclosed_quote_error(exc: yaml.MarkedYAMLError, text: str, index: LineIndex) -> Diagnostic:
    assert exc.context_mark is not None
    offset = min(exc.context_mark.index, len(text))
    quote = text[offset:offset + 1] or '"'
    end = text.find("\n", offset)
    span = index.span(offset, len(text) if end < 0 else end)
    hint = f"close the quote with {quote} on this line (for text over several lines, use a `|` block)"
    return Diagnostic("E003", Severity.ERROR, f"YAML syntax error: unclosed quote: this {quote} is never closed",
                      span, hint=hint)


def _hint(problem: str, text: str, offset: int) -> str | None:
    if "'\\t'" in problem or (offset < len(text) and text[offset] == "\t"):
        return "YAML does not allow tabs for indentation; indent with spaces"
    if "nesting depth" in problem:
        return "flatten the data: workflow values need no more than a few levels of nesting"
    if "undefined alias" in problem:
        return "define the anchor (&name) before the alias (*name) that uses it"
    if "single document" in problem:
        return "a workflow file holds one YAML document; remove the extra `---`"
    return None
