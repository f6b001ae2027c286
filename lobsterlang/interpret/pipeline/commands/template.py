"""`template` and `map`: `{{path | filter args}}` placeholders rendered per item."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from lobsterlang.interpret.errors import CommandError
from lobsterlang.interpret.pipeline.args import StageArgs
from lobsterlang.interpret.pipeline.commands.filters import apply_filter
from lobsterlang.interpret.pipeline.paths import get_path
from lobsterlang.interpret.pipeline.runtime import RunContext, StageOutput
from lobsterlang.interpret.pipeline.streams import guarded
from lobsterlang.interpret.values import UNDEFINED, js_string, stringify

PLACEHOLDER = re.compile(r"\{\{\s*([^}]+?)\s*\}\}")


def resolve(item: Any, path: str) -> Any:
    """`.` and `this` are the item itself; anything else is a dot path."""
    return item if path in (".", "this") else get_path(item, path)


def show(value: Any) -> str:
    """A value inside rendered text: nothing for null/undefined, strings raw, others as JavaScript/JSON prints them."""
    if value is None or value is UNDEFINED:
        return ""
    if isinstance(value, (dict, list)):
        return stringify(value)
    return js_string(value)


def split_pipes(expression: str) -> list[str]:
    """Split `a | upper | default "x|y"` on `|` outside quotes."""
    parts: list[str] = []
    current: list[str] = []
    quote = ""
    for char in expression:
        if quote:
            quote = "" if char == quote else quote
        elif char in "\"'":
            quote = char
        elif char == "|":
            parts.append("".join(current).strip())
            current = []
            continue
        current.append(char)
    parts.append("".join(current).strip())
    return parts


def render_text(text: str, item: Any, *, filters: bool = True) -> str:
    """Replace every placeholder in `text` using `item`."""

    def replace(match: re.Match[str]) -> str:
        parts = split_pipes(match.group(1)) if filters else [match.group(1).strip()]
        value = resolve(item, parts[0])
        for expression in parts[1:]:
            value = apply_filter(value, expression)
        return show(value)

    return PLACEHOLDER.sub(replace, text)


def template_text(args: StageArgs, ctx: RunContext) -> str:
    text = args.text("text")
    if text is not None:
        return text
    file = args.text("file")
    if file is not None:
        try:
            return (Path(ctx.cwd) / file).read_text(encoding="utf-8")
        except OSError as exc:
            raise CommandError(f"template --file could not be read: {exc.strerror}: {file}") from None
    if args.positionals:
        return " ".join(args.positionals)
    raise CommandError("template requires --text or --file (or positional text)")


def run_template(input: Iterator[Any], args: StageArgs, ctx: RunContext) -> StageOutput:
    text = template_text(args, ctx)
    return StageOutput(guarded(input, (render_text(text, item) for item in input)))


def run_map(input: Iterator[Any], args: StageArgs, ctx: RunContext) -> StageOutput:
    wrap, unwrap = _key_flag(args, "wrap"), _key_flag(args, "unwrap")
    if wrap is not None and unwrap is not None:
        raise CommandError("map cannot use both --wrap and --unwrap")
    assignments = [tuple(word.split("=", 1)) for word in args.positionals if "=" in word and not word.startswith("=")]
    if unwrap is not None:
        return StageOutput(guarded(input, (_unwrap(item, unwrap) for item in input)))
    return StageOutput(guarded(input, (_reshape(item, wrap, assignments) for item in input)))


def _key_flag(args: StageArgs, name: str) -> str | None:
    value = args.get(name)
    return None if value is None else ("true" if value is True else str(value))


def _unwrap(item: Any, key: str) -> Any:
    if isinstance(item, dict):
        return item.get(key, UNDEFINED)
    return _unwrap_other(item, key)


def _unwrap_other(item: Any, key: str) -> Any:
    return get_path(item, key) if isinstance(item, list) and "." not in key else UNDEFINED


def _reshape(item: Any, wrap_key: str | None, assignments: list[tuple[str, ...]]) -> Any:
    """Wrap, then assign; templates see the item, which (unwrapped objects) gains each assignment in turn."""
    current: Any = {wrap_key: item} if wrap_key is not None else item
    if not assignments:
        return current
    current = {"value": current} if not isinstance(current, dict) else dict(current)
    scope = current if wrap_key is None and isinstance(item, dict) else item
    for key, value in assignments:
        current[key] = render_text(value, scope, filters=False)
    return current
