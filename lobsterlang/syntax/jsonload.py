"""Load `.json` workflow files into the same positioned node tree the YAML loader produces."""

from __future__ import annotations

import json
import re
from json.decoder import scanstring  # type: ignore[attr-defined]

import yaml

from lobsterlang.diagnostics import Diagnostic, Severity
from lobsterlang.span import LineIndex
from lobsterlang.syntax.intlimit import MAX_DIGITS, too_many_digits
from lobsterlang.syntax.yamlload import BOOL_TAG, FLOAT_TAG, INT_TAG, MAP_TAG, NULL_TAG, SEQ_TAG, STR_TAG

_WS = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")


def compose_json(text: str, index: LineIndex) -> tuple[yaml.Node | None, list[Diagnostic]]:
    """Parse JSON (strictly, as `JSON.parse` does) into yaml nodes with positions."""
    if text.startswith("\ufeff"):
        hint = "save the file without a byte order mark (JSON.parse refuses it)"
        return None, [Diagnostic("E004", Severity.ERROR, "JSON syntax error: unexpected byte order mark", index.span(0, 1), hint=hint)]
    try:
        json.loads(text, parse_constant=_refuse_constant, parse_int=_check_digits)
    except _TooManyDigits as too_long:
        return None, [_too_many_digits(text, index, too_long.word)]
    except _NonStandardNumber as refused:
        found = re.search(rf"(?<![\w\"]){re.escape(refused.word)}(?![\w\"])", text)
        pos = found.start() if found else 0
        span = index.span(pos, pos + len(refused.word))
        return None, [Diagnostic("E004", Severity.ERROR, f"JSON syntax error: {refused.word} is not valid JSON", span)]
    except json.JSONDecodeError as invalid:
        span = index.span(invalid.pos, invalid.pos + 1)
        return None, [Diagnostic("E004", Severity.ERROR, f"JSON syntax error: {invalid.msg}", span)]
    except RecursionError:
        hint = "flatten the data: workflow values need no more than a few levels of nesting"
        return None, [Diagnostic("E006", Severity.ERROR, "JSON is nested too deeply", index.span(0, 1), hint=hint)]
    return _Composer(text, index).compose(), []


class _NonStandardNumber(ValueError):
    def __init__(self, word: str) -> None:
        super().__init__(word)
        self.word = word


class _TooManyDigits(ValueError):
    def __init__(self, word: str) -> None:
        super().__init__(word)
        self.word = word


def _check_digits(word: str) -> int:
    if len(word.lstrip("-")) > MAX_DIGITS:
        raise _TooManyDigits(word)
    return 0  # the value is not kept: this pass only validates


def _too_many_digits(text: str, index: LineIndex, word: str) -> Diagnostic:
    pos = text.find(word)
    return too_many_digits(len(word.lstrip("-")), index.span(pos, pos + len(word)))


def _refuse_constant(word: str) -> None:
    """`NaN`, `Infinity` and `-Infinity` are Python extensions that JSON.parse refuses."""
    raise _NonStandardNumber(word)


class _Composer:
    """Walks text already known to be valid JSON, building nodes without recursion."""

    def __init__(self, text: str, index: LineIndex) -> None:
        self.text = text
        self.index = index
        self.pos = 0

    def mark(self, offset: int) -> yaml.Mark:
        line, col = self.index.line_col(offset)
        return yaml.Mark("<json>", offset, line - 1, col - 1, None, None)  # type: ignore[arg-type]

    def skip_ws(self) -> None:
        match = _WS.match(self.text, self.pos)
        self.pos = match.end() if match else self.pos

    def compose(self) -> yaml.Node:
        self.skip_ws()
        root: list[yaml.Node] = []
        stack: list[yaml.Node] = []  # containers still open
        self._value(root, stack)
        while stack:
            self._continue(stack)
        return root[0]

    def _value(self, out: list[yaml.Node], stack: list[yaml.Node]) -> None:
        """Parse a value at `pos`; containers are pushed on the stack and filled later."""
        text, start = self.text, self.pos
        ch = text[start]
        if ch in "{[":
            tag = MAP_TAG if ch == "{" else SEQ_TAG
            cls = yaml.MappingNode if ch == "{" else yaml.SequenceNode
            node = cls(tag, [], self.mark(start), self.mark(start), flow_style=True)
            out.append(node)
            self.pos += 1
            stack.append(node)
            return
        out.append(self._scalar(start))

    def _scalar(self, start: int) -> yaml.ScalarNode:
        text = self.text
        ch = text[start]
        if ch == '"':
            value, end = scanstring(text, start + 1, True)
            tag, style = STR_TAG, '"'
        elif ch in "tfn":
            word = "true" if ch == "t" else "false" if ch == "f" else "null"
            value, end = word, start + len(word)
            tag, style = (NULL_TAG if ch == "n" else BOOL_TAG), None
        else:
            match = _NUMBER.match(text, start)
            assert match is not None
            value, end = match.group(0), match.end()
            tag, style = (FLOAT_TAG if match.group(1) or match.group(2) else INT_TAG), None
        self.pos = end
        return yaml.ScalarNode(tag, value, self.mark(start), self.mark(end), style=style)

    def _continue(self, stack: list[yaml.Node]) -> None:
        node = stack[-1]
        self.skip_ws()
        ch = self.text[self.pos]
        if ch in "}]":
            self.pos += 1
            node.end_mark = self.mark(self.pos)
            stack.pop()
            return
        if ch == ",":
            self.pos += 1
            self.skip_ws()
        if isinstance(node, yaml.MappingNode):
            key = self._scalar(self.pos)
            self.skip_ws()
            self.pos += 1  # the colon
            self.skip_ws()
            slot: list[yaml.Node] = []
            self._value(slot, stack)
            node.value.append((key, slot[0]))
        else:
            self._value(node.value, stack)
