"""Write a canonical document (mappings, lists, scalars) as YAML lines, each remembering which entries start on it."""

from __future__ import annotations

from typing import Any, NamedTuple

from lobsterlang.fmt import scalars

INDENT = 2
MAX_WIDTH = 100

Path = tuple[str | int, ...]


class PipelineText(NamedTuple):
    """A pipeline's canonical stages: one line when it fits in MAX_WIDTH, else a folded block."""

    stages: tuple[str, ...]

    @property
    def text(self) -> str:
        return " | ".join(self.stages)


class ShellText(str):
    """Shell text of `run:`/`command:`: a one-line command that YAML would make us escape is a `|-` block."""


class Spaced(list[Any]):
    """A list written with one blank line between its items (steps)."""


class Line(NamedTuple):
    """One output line; `paths` are the entries that start on it (a list item and its first key)."""

    indent: int
    text: str
    paths: tuple[Path, ...] = ()

    def render(self) -> str:
        return " " * self.indent + self.text if self.text else ""


BLANK = Line(0, "")


def document_lines(doc: dict[str, Any]) -> list[Line]:
    out: list[Line] = []
    _mapping(out, doc, 0, ())
    return out


def item_lines(item: Any, indent: int, path: Path) -> list[Line]:
    """The lines of one list item (`- ...`) whose dash is at column `indent`."""
    out: list[Line] = []
    _item(out, item, indent, path)
    return out


def _mapping(out: list[Line], mapping: dict[str, Any], indent: int, path: Path) -> None:
    for key, value in mapping.items():
        _entry(out, scalars.string(key) + ":", value, indent, (*path, key))


def _sequence(out: list[Line], items: list[Any], indent: int, path: Path) -> None:
    spaced = isinstance(items, Spaced)
    for index, item in enumerate(items):
        if spaced and index:
            out.append(BLANK)
        _item(out, item, indent, (*path, index))


def _entry(out: list[Line], key: str, value: Any, indent: int, path: Path) -> None:
    """`key: value`, or `key:` with the value's lines below it."""
    if isinstance(value, dict) and value:
        out.append(Line(indent, key, (path,)))
        _mapping(out, value, indent + INDENT, path)
    elif isinstance(value, list) and value:
        out.append(Line(indent, key, (path,)))
        _sequence(out, value, indent + INDENT, path)
    elif isinstance(value, PipelineText):
        _pipeline(out, key, value, indent, path)
    elif isinstance(value, ShellText) and _one_line_block(key, value, indent):
        out.append(Line(indent, f"{key} |-", (path,)))
        out.append(Line(indent + INDENT, str(value)))
    else:
        _scalar(out, key, str(value) if isinstance(value, ShellText) else value, indent, path)


def _one_line_block(key: str, text: str, indent: int) -> bool:
    """A short command that quoting would escape reads better as the single line of a `|-` block."""
    fits = indent + len(key) + 1 + len(scalars.string(text)) <= MAX_WIDTH
    return fits and scalars.needs_escaping(text)


def _item(out: list[Line], item: Any, indent: int, path: Path) -> None:
    """`- item`; a non-empty mapping or list starts on the dash's line."""
    if isinstance(item, (dict, list)) and item:
        inner: list[Line] = []
        if isinstance(item, dict):
            _mapping(inner, item, indent + INDENT, path)
        else:
            _sequence(inner, item, indent + INDENT, path)
        first = inner[0]
        out.append(Line(indent, "- " + first.text, (path, *first.paths)))
        out.extend(inner[1:])
    else:
        _scalar(out, "-", item, indent, path)


def _scalar(out: list[Line], lead: str, value: Any, indent: int, path: Path) -> None:
    """A multi-line string is a literal block (`|`), a long one a folded block (`>-`)."""
    text = scalar_text(value)
    if isinstance(value, str):
        block = scalars.literal_block(value)
        if block is None and indent + len(lead) + 1 + len(text) > MAX_WIDTH:
            folded = scalars.folded_lines(value, MAX_WIDTH - indent - INDENT)
            block = (">-", folded) if folded else None
        if block is not None:
            header, lines = block
            out.append(Line(indent, f"{lead} {header}", (path,)))
            out.extend(Line(indent + INDENT, line) if line else BLANK for line in lines)
            return
    out.append(Line(indent, f"{lead} {text}", (path,)))


def _pipeline(out: list[Line], lead: str, pipeline: PipelineText, indent: int, path: Path) -> None:
    """A long pipeline of several stages is folded: one stage per line, each after the first led by `| `."""
    text = pipeline.text
    one_line = indent + len(lead) + 1 + len(scalars.string(text))
    if one_line <= MAX_WIDTH or len(pipeline.stages) < 2 or not _foldable(text):
        _scalar(out, lead, text, indent, path)
        return
    out.append(Line(indent, f"{lead} >-", (path,)))
    out.extend(Line(indent + INDENT, ("| " if i else "") + stage) for i, stage in enumerate(pipeline.stages))


def _foldable(text: str) -> bool:
    """Folding joins lines with one space: the text must have no line break and nothing YAML must escape."""
    return text == text.strip() and scalars.foldable(text)


def scalar_text(value: Any) -> str:
    """A one-line scalar: strings (quoted where needed), numbers, booleans, null, `{}` and `[]`."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return scalars.number(value)
    if isinstance(value, str):
        return scalars.string(value)
    if isinstance(value, dict) and not value:
        return "{}"
    if isinstance(value, list) and not value:
        return "[]"
    raise TypeError(f"not a JSON scalar: {type(value).__name__}")
