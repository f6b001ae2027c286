"""Mapping keys by level (the workflow, a step, a branch, an approval…), with their docs from the workflow JSON Schema."""

from __future__ import annotations

import json
import re
from functools import cache, lru_cache
from typing import Any

from lobsterlang.grammar_files import grammar_file

_LINE_RE = re.compile(r"([ \t]*)(-[ \t]+)?(?:([A-Za-z_][A-Za-z0-9_]*)[ \t]*:[ \t]*(\S?))?")

_CHILD_LEVEL = {
    "steps": "step", "branches": "branch", "approval": "approval_object", "input": "input",
    "parallel": "parallel", "retry": "retry", "cost_limit": "cost_limit",
}
_NESTED_STEPS = "substep"
_EXTRA_LEVELS = {
    "retry": {"max": "attempts in all (a positive integer)", "backoff": '"fixed" or "exponential"',
              "delay_ms": "delay before the first retry", "max_delay_ms": "upper bound of the delay",
              "jitter": "randomise delays (boolean)"},
    "cost_limit": {"max_usd": "stop or warn when the run's LLM spend passes this many US dollars",
                   "action": '"warn" or "stop" (default)'},
}


@lru_cache(maxsize=1)
def _schema() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(grammar_file("lobster-workflow.schema.json").read_text(encoding="utf-8"))
    return data


@cache
def keys_of(level: str) -> dict[str, str]:
    """The keys allowed at `level` (`root`, `step`, `substep`, `branch`, `parallel`, `approval_object`, `input`,
    `arg`, `retry`, `cost_limit`), each with its description."""
    return {key: doc for key, doc in _documented(level).items() if not key.startswith("$")}


@cache
def _documented(level: str) -> dict[str, str]:
    """Every key of the level's schema, `$schema` included, with its description."""
    if level in _EXTRA_LEVELS:
        return dict(_EXTRA_LEVELS[level])
    schema = _schema()
    node = schema if level == "root" else schema["definitions"].get(level, {})
    return {key: _describe(value) for key, value in node.get("properties", {}).items()}


def _describe(value: dict[str, Any]) -> str:
    """A property's own description, else that of the definition it refers to (`stdin: {$ref: …}`)."""
    own = value.get("markdownDescription") or value.get("description")
    if own or "$ref" not in value:
        return str(own or "")
    return _describe(_schema()["definitions"].get(str(value["$ref"]).rsplit("/", 1)[-1], {}))


def key_doc(text: str, offset: int, key: str) -> str:
    """The description of `key` written on the line of `offset`, for the level where it stands (a top-level `steps:`
    and a for_each loop's `steps:` differ); "" when that level has no such key."""
    level = level_at(text, offset)
    return _documented(level).get(key, "") if level is not None else ""


def level_at(text: str, offset: int) -> str | None:
    """Which level a key typed at `offset` belongs to (None: a free-form mapping such as `env:` or `args:`)."""
    line_start = text.rfind("\n", 0, offset) + 1
    head = _LINE_RE.match(text, line_start)
    assert head is not None
    column = len(head.group(1)) + len(head.group(2) or "")
    chain = _parent_keys(text, line_start, column)
    if not chain:
        return "root"
    parent = chain[0]
    if parent == "steps":
        return _NESTED_STEPS if len(chain) > 1 else "step"
    if len(chain) >= 2 and chain[1] == "args":
        return "arg"
    return _CHILD_LEVEL.get(parent)


def sibling_keys(text: str, offset: int) -> set[str]:
    """The keys already written in the mapping a key typed at `offset` would join (its own line excluded)."""
    line_start = text.rfind("\n", 0, offset) + 1
    head = _LINE_RE.match(text, line_start)
    assert head is not None
    column = len(head.group(1)) + len(head.group(2) or "")
    found: set[str] = set()
    if not head.group(2):
        _scan(text, line_start, column, found, upward=True)
    line_end = text.find("\n", offset)
    if line_end != -1:
        _scan(text, line_end + 1, column, found, upward=False)
    return found


def _scan(text: str, position: int, column: int, found: set[str], *, upward: bool) -> None:
    """Collect keys at `column`, line by line, until the mapping ends (a shallower line or the next list item)."""
    while 0 < position <= len(text) if upward else position < len(text):
        if upward:
            end = position - 1
            position = text.rfind("\n", 0, end) + 1
        else:
            end = text.find("\n", position)
            end = len(text) if end == -1 else end
        body = text[position:end]
        next_position = end + 1
        if body.strip() and not body.lstrip().startswith("#"):
            line = _LINE_RE.match(body)
            assert line is not None
            indent = len(line.group(1))
            key_column = indent + len(line.group(2) or "")
            if indent < column and not (line.group(2) and key_column == column and upward):
                return
            if line.group(2) and key_column == column and not upward:
                return  # the next item of the same list
            if key_column == column and line.group(3):
                found.add(line.group(3))
            if line.group(2) and upward and key_column == column:
                return  # the first line of this item
        if not upward:
            position = next_position


def _parent_keys(text: str, line_start: int, column: int) -> list[str]:
    """The keys of the enclosing mappings, innermost first (list items are stepped through)."""
    chain: list[str] = []
    target = column
    position = line_start
    while position > 0 and target > 0:
        end = position - 1  # the newline before the line below
        position = text.rfind("\n", 0, end) + 1
        body = text[position:end]
        if not body.strip() or body.lstrip().startswith("#"):
            continue
        line = _LINE_RE.match(body)
        assert line is not None
        indent = len(line.group(1))
        if indent >= target:
            continue
        if line.group(2):  # `- key: …`: a list item; its parent key is further up
            target = indent
            continue
        if line.group(3):
            chain.append(line.group(3))
        target = indent
    return chain
