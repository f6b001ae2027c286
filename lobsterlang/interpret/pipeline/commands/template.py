"""`template` and `map`: `{{path | filter args}}` placeholders rendered per item."""

from __future__ import annotations

import builtins
import functools
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from types import CodeType, FunctionType
from typing import Any

from lobsterlang.interpret.errors import CommandError
from lobsterlang.interpret.pipeline.args import StageArgs
from lobsterlang.interpret.pipeline.commands.filters import compile_filter
from lobsterlang.interpret.pipeline.paths import get_path, item_getter, read_key
from lobsterlang.interpret.pipeline.runtime import RunContext, StageOutput
from lobsterlang.interpret.pipeline.streams import close, guarded, mapped
from lobsterlang.interpret.values import UNDEFINED, js_string, stringify
from lobsterlang.syntax.source import limit_message, over_limit, read_source

PLACEHOLDER = re.compile(r"\{\{\s*([^}]+?)\s*\}\}")


def show(value: Any) -> str:
    """A value inside rendered text: nothing for null/undefined, strings raw, others as JavaScript/JSON prints them."""
    kind = type(value)
    if kind is str:
        return value  # type: ignore[no-any-return]
    if kind is int:
        return str(value)
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


Renderer = Callable[[Any], str]


def compile_template(text: str, *, filters: bool = True) -> Renderer:
    """`text` split once into literal parts and placeholders; the result renders one item.

    Placeholders are found as the reference finds them (`{{ path | filter args }}`); with
    `filters=False` (map's assignments) the whole expression is the path.
    """
    pieces = PLACEHOLDER.split(text)
    if len(pieces) == 1:
        return lambda item: text
    literals = pieces[0::2]
    values = [_placeholder(expression, filters) for expression in pieces[1::2]]
    if len(values) == 1 and not literals[0] and not literals[1]:
        return values[0]
    rest = list(zip(values, literals[1:], strict=True))
    keyed = _keyed_parts(pieces, filters)
    if keyed is not None:
        return _keys_rendered(*keyed, rest)
    return _parts_rendered(literals[0], rest)


Filters = list[Callable[[Any], Any]]
Keyed = tuple[str, list[tuple[str, Filters, str]]]
"""A template whose placeholders each read one key: the text before the first, then (key, filters, text after it) each."""


def keyed_template(text: str, *, filters: bool = True) -> Keyed | None:
    """`text` as a `Keyed` template, or None when a placeholder reads a path (`a.b`, `.`, `this`)."""
    return _keyed_parts(PLACEHOLDER.split(text), filters)


def _keyed_parts(pieces: list[str], filters: bool) -> Keyed | None:
    keys = [_keyed(expression, filters) for expression in pieces[1::2]]
    if None in keys:
        return None
    return pieces[0], [(*key, literal) for key, literal in zip(keys, pieces[2::2], strict=True)]  # type: ignore[misc]


def _keys_rendered(head: str, keyed: list[tuple[str, Filters, str]], rest: list[tuple[Renderer, str]]) -> Renderer:
    """A template whose placeholders each read one key (`{{name}}`, `{{name | upper}}`): one generated function
    that looks them up directly in an object item, with no loop over placeholders (twice as fast per item).

    Keys, literals and filters are values in the function's globals, never part of its text.
    """
    names: dict[str, Any] = {"__builtins__": builtins, "UNDEFINED": UNDEFINED, "show": show, **keyed_names("", (head, keyed))}
    names["other"] = _parts_rendered(head, rest)
    return FunctionType(_keyed_code(chain_lengths(keyed)), names)


def chain_lengths(keyed: list[tuple[str, Filters, str]]) -> tuple[int, ...]:
    """The shape of a `Keyed` template's code: how many filters each placeholder has."""
    return tuple(len(chain) for _, chain, _ in keyed)


def keyed_names(prefix: str, template: Keyed) -> dict[str, Any]:
    """The globals `keyed_lines(prefix, ...)` reads: the head, each key, filter and literal."""
    head, keyed = template
    names: dict[str, Any] = {f"head{prefix}": head}
    for index, (key, chain, literal) in enumerate(keyed):
        names[f"key{prefix}_{index}"], names[f"literal{prefix}_{index}"] = key, literal
        names.update((f"filter{prefix}_{index}_{step}", apply) for step, apply in enumerate(chain))
    return names


def keyed_lines(prefix: str, lengths: tuple[int, ...], indent: str) -> tuple[list[str], str]:
    """Source lines that read each placeholder's key with `get` and apply its filters, and the f-string of the
    rendered text (a value shown as `show` shows it); the names they use are `keyed_names(prefix, ...)`."""
    lines, parts = [], [f"{{head{prefix}}}"]
    for index, length in enumerate(lengths):
        value, name = f"get(key{prefix}_{index}, UNDEFINED)", f"value{prefix}_{index}"
        for step in range(length):
            value = f"filter{prefix}_{index}_{step}({value})"
        lines.append(f"{indent}{name} = {value}")
        parts += [f"{{{name} if type({name}) is str else show({name})}}", f"{{literal{prefix}_{index}}}"]
    return lines, 'f"' + "".join(parts) + '"'


def function_code(source: list[str]) -> CodeType:
    """The code of the one function `source` defines."""
    module = compile("\n".join(source), "<template>", "exec")
    return next(code for code in module.co_consts if isinstance(code, CodeType))


@functools.lru_cache(maxsize=256)
def _keyed_code(lengths: tuple[int, ...]) -> CodeType:
    """The code of `render` for placeholders with these numbers of filters (made once per shape)."""
    lines, text = keyed_lines("", lengths, "    ")
    return function_code(["def render(item):", "    if type(item) is not dict:", "        return other(item)", "    get = item.get", *lines, f"    return {text}"])


def _parts_rendered(head: str, rest: list[tuple[Renderer, str]]) -> Renderer:
    """Any template: each placeholder's renderer, then the literal after it."""

    def render(item: Any) -> str:
        out = [head]
        for value_of, literal in rest:
            out.append(value_of(item))
            out.append(literal)
        return "".join(out)

    return render


def _keyed(expression: str, filters: bool) -> tuple[str, Filters] | None:
    """The key a placeholder reads and its filters, when its path is one key; else None."""
    parts = split_pipes(expression) if filters else [expression.strip()]
    path = parts[0]
    if not _one_key(path):
        return None
    return path, [compile_filter(part) for part in parts[1:]]


def _one_key(path: str) -> bool:
    """Whether a placeholder's path is one key (`.`, `this`, a blank and dotted paths are not)."""
    return bool(path) and "." not in path and path != "this"


def _placeholder(expression: str, filters: bool) -> Renderer:
    """One placeholder's text from an item: its path resolved, then its filters applied in turn."""
    parts = split_pipes(expression) if filters else [expression.strip()]
    path = parts[0]
    chain = [compile_filter(part) for part in parts[1:]]
    if not chain and _one_key(path):
        return _key_shown(path)
    getter = item_getter("." if path == "this" else path)  # `.`: the item itself
    if not chain:
        return lambda item: show(getter(item))
    if len(chain) == 1:
        apply = chain[0]
        return lambda item: show(apply(getter(item)))

    def filtered(item: Any) -> str:
        value = getter(item)
        for apply in chain:
            value = apply(value)
        return show(value)

    return filtered


def _key_shown(key: str) -> Renderer:
    """`{{key}}` in one call per item: the most common placeholder."""

    def shown(item: Any) -> str:
        return show(item.get(key, UNDEFINED) if type(item) is dict else read_key(item, key))

    return shown


def template_text(args: StageArgs, ctx: RunContext) -> str:
    text = args.text("text")
    if text is not None:
        return text
    file = args.text("file")
    if file is not None:
        try:
            data = read_source(Path(ctx.cwd) / file)
        except OSError as exc:
            raise CommandError(f"template --file could not be read: {exc.strerror}: {file}") from None
        if over_limit(data):
            raise CommandError(f"template --file could not be read: {limit_message()}: {file}")
        return data.decode("utf-8", "replace")
    if args.positionals:
        return " ".join(args.positionals)
    raise CommandError("template requires --text or --file (or positional text)")


def run_template(input: Iterator[Any], args: StageArgs, ctx: RunContext) -> StageOutput:
    return StageOutput(mapped(input, compile_template(template_text(args, ctx))))


def run_map(input: Iterator[Any], args: StageArgs, ctx: RunContext) -> StageOutput:
    wrap, unwrap = _key_flag(args, "wrap"), _key_flag(args, "unwrap")
    if wrap is not None and unwrap is not None:
        raise CommandError("map cannot use both --wrap and --unwrap")
    words = [word for word in args.positionals if "=" in word and not word.startswith("=")]
    assignments = [_assignment(word) for word in words]
    if unwrap is not None:
        return StageOutput(guarded(input, (_unwrap(item, unwrap) for item in input)))
    if wrap is None and assignments:
        return StageOutput(_assigned(input, assignments, [keyed_template(word.split("=", 1)[1], filters=False) for word in words]))
    return StageOutput(guarded(input, (_reshape(item, wrap, assignments) for item in input)))


def _assigned(input: Iterator[Any], assignments: list[tuple[str, Renderer]], keyed: list[Keyed | None]) -> Iterator[Any]:
    """`_reshape` with no wrap, in one generated loop for object items: a copy that gains each assignment in
    turn, a `Keyed` template's text made inline (no call per assignment), any other by its renderer.
    Closes `input` however it ends. Keys, literals and filters are values in the loop's globals, never its text."""
    names: dict[str, Any] = {"__builtins__": builtins, "UNDEFINED": UNDEFINED, "show": show, "close": close}
    names["reshape"] = functools.partial(_reshape, wrap_key=None, assignments=assignments)
    for index, ((key, render), template) in enumerate(zip(assignments, keyed, strict=True)):
        names[f"target{index}"] = key
        if template is None:
            names[f"render{index}"] = render
        else:
            names.update(keyed_names(str(index), template))
    shapes = tuple(None if template is None else chain_lengths(template[1]) for template in keyed)
    loop = FunctionType(_assigned_code(shapes), names)
    return loop(input)  # type: ignore[no-any-return]


@functools.lru_cache(maxsize=256)
def _assigned_code(shapes: tuple[tuple[int, ...] | None, ...]) -> CodeType:
    """The code of the `map` loop for assignments of these shapes (None: rendered by a call), made once per shape."""
    body: list[str] = []
    held = ["item", "current", "get"]
    for index, lengths in enumerate(shapes):
        if lengths is None:
            body.append(f"            current[target{index}] = render{index}(current)")
            continue
        lines, text = keyed_lines(str(index), lengths, " " * 12)
        body += [*lines, f"            current[target{index}] = {text}"]
        held += [f"value{index}_{place}" for place in range(len(lengths))]
    return function_code([
        "def assigned(input):",
        f"    {' = '.join(held)} = None",
        "    try:",
        "        for item in input:",
        "            if type(item) is not dict:",
        "                yield reshape(item)",
        "                continue",
        "            current = item.copy()",
        "            get = current.get",
        *body,
        "            yield current",
        "    finally:",
        f"        {' = '.join(held)} = None",  # let go of the last item before the stages above free theirs (in arrival order)
        "        close(input)",
    ])


def _assignment(word: str) -> tuple[str, Renderer]:
    key, value = word.split("=", 1)
    return key, compile_template(value, filters=False)


def _key_flag(args: StageArgs, name: str) -> str | None:
    value = args.get(name)
    return None if value is None else ("true" if value is True else str(value))


def _unwrap(item: Any, key: str) -> Any:
    if isinstance(item, dict):
        return item.get(key, UNDEFINED)
    return _unwrap_other(item, key)


def _unwrap_other(item: Any, key: str) -> Any:
    return get_path(item, key) if isinstance(item, list) and "." not in key else UNDEFINED


def _reshape(item: Any, wrap_key: str | None, assignments: list[tuple[str, Renderer]]) -> Any:
    """Wrap, then assign; templates see the item, which (unwrapped objects) gains each assignment in turn."""
    current: Any = {wrap_key: item} if wrap_key is not None else item
    if not assignments:
        return current
    current = {"value": current} if not isinstance(current, dict) else dict(current)
    scope = current if wrap_key is None and isinstance(item, dict) else item
    for key, render in assignments:
        current[key] = render(scope)
    return current
