"""Write a canonical document (mappings, lists, scalars) as YAML lines, noting the line each entry starts on."""

from __future__ import annotations

from typing import Any, NamedTuple

from lobsterlang.fmt import scalars

INDENT = 2
MAX_WIDTH = 100

Path = tuple[str | int, ...]

_LANGUAGE_KEYS = (
    "name", "description", "args", "env", "cwd", "cost_limit", "steps", "id", "run", "command", "pipeline",
    "workflow", "workflow_args", "parallel", "for_each", "item_var", "index_var", "batch_size", "pause_ms",
    "approval", "input", "stdin", "when", "condition", "retry", "timeout_ms", "on_error", "wait", "branches",
    "default", "prompt", "items", "max", "backoff", "delay_ms", "max_delay_ms", "jitter", "max_usd", "action",
)
_KEY_LEADS = {key: scalars.string(key) + ":" for key in _LANGUAGE_KEYS}
"""`key:` for the workflow language's own keys, looked up rather than checked each time (other keys go through
`scalars.string`)."""


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


class Layout:
    """A document's rendered lines, and the number of the line each entry starts on.

    `starts` maps the path of each mapping and list to the line of each of its keys or indexes
    (one small dict per container is cheaper than a path per entry).
    """

    __slots__ = ("lines", "starts")

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.starts: dict[Path, dict[str | int, int]] = {}

    def line_of(self, path: Path) -> int | None:
        """The number of the line the entry at `path` (not the root) starts on; None when it was not written."""
        entries = self.starts.get(path[:-1])
        return None if entries is None else entries.get(path[-1])


def document_layout(doc: dict[str, Any]) -> Layout:
    layout = Layout()
    _mapping(layout, doc, 0, ())
    return layout


def item_layout(item: Any, indent: int, path: Path) -> Layout:
    """The lines of one list item (`- ...`) whose dash is at column `indent`."""
    layout = Layout()
    layout.starts[path[:-1]] = {path[-1]: 0}
    _item(layout, item, indent, path)
    return layout


def _mapping(layout: Layout, mapping: dict[str, Any], indent: int, path: Path) -> None:
    pad = " " * indent
    lines = layout.lines
    starts: dict[str | int, int] = {}
    layout.starts[path] = starts
    for key, value in mapping.items():
        starts[key] = len(lines)
        _entry(layout, pad + (_KEY_LEADS.get(key) or scalars.string(key) + ":"), value, indent, path, key)


def _sequence(layout: Layout, items: list[Any], indent: int, path: Path) -> None:
    lines = layout.lines
    starts: dict[str | int, int] = {}
    layout.starts[path] = starts
    spaced = isinstance(items, Spaced)
    for index, item in enumerate(items):
        if spaced and index:
            lines.append("")
        starts[index] = len(lines)
        _item(layout, item, indent, (*path, index))


def _entry(layout: Layout, lead: str, value: Any, indent: int, path: Path, key: str) -> None:
    """`lead` (`key:` at its indentation) and the value on the same line, or the value's lines below it."""
    if isinstance(value, str):
        if type(value) is ShellText and _one_line_block(lead, value):
            layout.lines.extend((lead + " |-", " " * (indent + INDENT) + value))
        else:
            _string(layout.lines, lead, value, indent)
    elif isinstance(value, dict) and value:
        layout.lines.append(lead)
        _mapping(layout, value, indent + INDENT, (*path, key))
    elif isinstance(value, list) and value:
        layout.lines.append(lead)
        _sequence(layout, value, indent + INDENT, (*path, key))
    elif isinstance(value, PipelineText):
        _pipeline(layout.lines, lead, value, indent)
    else:
        layout.lines.append(lead + " " + scalar_text(value))


def _one_line_block(lead: str, text: str) -> bool:
    """A short command that quoting would escape reads better as the single line of a `|-` block."""
    return scalars.needs_escaping(text) and len(lead) + 1 + len(scalars.string(text)) <= MAX_WIDTH


def _item(layout: Layout, item: Any, indent: int, path: Path) -> None:
    """`- item`; a non-empty mapping or list starts on the dash's line."""
    lines = layout.lines
    first = len(lines)
    if isinstance(item, dict) and item:
        _mapping(layout, item, indent + INDENT, path)
    elif isinstance(item, list) and item:
        _sequence(layout, item, indent + INDENT, path)
    elif isinstance(item, str):
        _string(lines, " " * indent + "-", item, indent)
        return
    else:
        lines.append(" " * indent + "- " + scalar_text(item))
        return
    lines[first] = " " * indent + "- " + lines[first][indent + INDENT :]


def _string(lines: list[str], lead: str, value: str, indent: int) -> None:
    """A multi-line string is a literal block (`|`), a long one a folded block (`>-`)."""
    block = scalars.literal_block(value) if "\n" in value else None
    if block is None:
        line = lead + " " + scalars.string(value)
        folded = scalars.folded_lines(value, MAX_WIDTH - indent - INDENT) if len(line) > MAX_WIDTH else None
        if folded is None:
            lines.append(line)
            return
        block = (">-", folded)
    header, contents = block
    lines.append(lead + " " + header)
    _block(lines, indent + INDENT, contents)


def _block(lines: list[str], indent: int, contents: list[str]) -> None:
    pad = " " * indent
    lines.extend([pad + line if line else "" for line in contents])


def _pipeline(lines: list[str], lead: str, pipeline: PipelineText, indent: int) -> None:
    """A long pipeline of several stages is folded: one stage per line, each after the first led by `| `."""
    text = pipeline.text
    one_line = len(lead) + 1 + len(scalars.string(text))
    if one_line <= MAX_WIDTH or len(pipeline.stages) < 2 or not _foldable(text):
        _string(lines, lead, text, indent)
        return
    lines.append(lead + " >-")
    _block(lines, indent + INDENT, [("| " if i else "") + stage for i, stage in enumerate(pipeline.stages)])


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
