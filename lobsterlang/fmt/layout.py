"""Write a document (mappings, lists, scalars) as YAML lines, noting the line each entry starts on.

Without a source layout the output is canonical; with one (the survey of the file being
formatted) it keeps the author's key order and scalar styles (see docs/fmt.md).
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from lobsterlang.fmt import scalars
from lobsterlang.fmt.pipelines import split_words
from lobsterlang.fmt.style import DEFAULT_STYLE, Style
from lobsterlang.syntax.sourcelayout import SourceLayout

INDENT = 2
MAX_IMPLICIT_KEY = 1024
"""YAML allows an implicit key (`key: value`) of at most 1024 characters; longer ones are written `? key`."""

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
    """A pipeline's stages; `multiline`: its text as written had a line break before its end;
    `newline`: it ended with one (in a block scalar: `>`/`|` rather than `>-`/`|-`); `written`:
    that text (where the author broke its lines)."""

    stages: tuple[str, ...]
    multiline: bool = False
    newline: bool = False
    written: str = ""

    @property
    def text(self) -> str:
        return " | ".join(self.stages)


class ShellText(str):
    """Shell text of `run:`/`command:`: a one-line command that YAML would make us escape is a `|-` block."""


class Spaced(list[Any]):
    """A list written with one blank line between its items (steps), in canonical output."""


class Layout:
    """A document's rendered lines, and the number of the line each entry starts on.

    `starts` maps the path of each mapping and list to the line of each of its keys or indexes
    (one small dict per container is cheaper than a path per entry). `source` is the layout of
    the file being formatted (None: canonical output).
    """

    __slots__ = ("lines", "source", "starts", "style")

    def __init__(self, source: SourceLayout | None = None, style: Style = DEFAULT_STYLE) -> None:
        self.lines: list[str] = []
        self.starts: dict[Path, dict[str | int, int]] = {}
        self.source = source
        self.style = style

    def line_of(self, path: Path) -> int | None:
        """The number of the line the entry at `path` (not the root) starts on; None when it was not written."""
        entries = self.starts.get(path[:-1])
        return None if entries is None else entries.get(path[-1])

    def source_style(self, path: Path) -> str | None:
        """How the scalar at `path` was written (`""`, `'`, `"`, `|`, `>`); None in canonical output."""
        return None if self.source is None else self.source.styles.get(path)

    def blank_lines(self) -> set[int]:
        """The output lines that had a blank line before them in the source."""
        source = self.source
        if source is None:
            return set()
        return {
            number
            for path, entries in self.starts.items()
            for key, number in entries.items()
            if source.blank_before(source.lines.get((*path, key), 0))
        }


def document_layout(doc: dict[str, Any], source: SourceLayout | None = None, style: Style = DEFAULT_STYLE) -> Layout:
    layout = Layout(source, style)
    _mapping(layout, doc, 0, ())
    return layout


def item_layout(item: Any, indent: int, path: Path, source: SourceLayout | None = None, style: Style = DEFAULT_STYLE) -> Layout:
    """The lines of one list item (`- ...`) whose dash is at column `indent`."""
    layout = Layout(source, style)
    layout.starts[path[:-1]] = {path[-1]: 0}
    _item(layout, item, indent, path)
    return layout


def _mapping(layout: Layout, mapping: dict[str, Any], indent: int, path: Path) -> None:
    pad = " " * indent
    lines = layout.lines
    starts: dict[str | int, int] = {}
    layout.starts[path] = starts
    for key, value in _ordered(layout, mapping, path):
        starts[key] = len(lines)
        lead = _KEY_LEADS.get(key) or scalars.string(key) + ":"
        if len(lead) > MAX_IMPLICIT_KEY:
            lines.append(pad + "? " + lead[:-1])
            lead = ":"
        _entry(layout, pad + lead, value, indent, path, key)


def _ordered(layout: Layout, mapping: dict[str, Any], path: Path) -> list[tuple[str, Any]]:
    """The entries in the author's order; a key the source does not have follows the key before it."""
    items = list(mapping.items())
    if layout.source is None or len(items) < 2:
        return items
    offsets = layout.source.offsets
    ranks: list[int] = []
    last = 0
    for key, _ in items:
        last = offsets.get((*path, key), last)
        ranks.append(last)
    order = sorted(range(len(items)), key=ranks.__getitem__)
    return [items[i] for i in order]


def _sequence(layout: Layout, items: list[Any], indent: int, path: Path) -> None:
    lines = layout.lines
    starts: dict[str | int, int] = {}
    layout.starts[path] = starts
    spaced = isinstance(items, Spaced) and layout.source is None
    for index, item in enumerate(items):
        if spaced and index:
            lines.append("")
        starts[index] = len(lines)
        _item(layout, item, indent, (*path, index))


def _entry(layout: Layout, lead: str, value: Any, indent: int, path: Path, key: str) -> None:
    """`lead` (`key:` at its indentation) and the value on the same line, or the value's lines below it."""
    if isinstance(value, str):
        _string(layout, lead, value, indent, (*path, key))
    elif _kept_flow(layout, lead, value, (*path, key)):
        return
    elif isinstance(value, dict) and value:
        layout.lines.append(lead)
        _mapping(layout, value, indent + INDENT, (*path, key))
    elif isinstance(value, list) and value:
        layout.lines.append(lead)
        _sequence(layout, value, indent + INDENT, (*path, key))
    elif isinstance(value, PipelineText):
        _pipeline(layout, lead, value, indent, (*path, key))
    else:
        layout.lines.append(lead + " " + scalar_text(value))


def _item(layout: Layout, item: Any, indent: int, path: Path) -> None:
    """`- item`; a non-empty mapping or list starts on the dash's line."""
    lines = layout.lines
    first = len(lines)
    if _kept_flow(layout, " " * indent + "-", item, path):
        return
    if isinstance(item, dict) and item:
        _mapping(layout, item, indent + INDENT, path)
    elif isinstance(item, list) and item:
        _sequence(layout, item, indent + INDENT, path)
    elif isinstance(item, str):
        _string(layout, " " * indent + "-", item, indent, path)
        return
    else:
        lines.append(" " * indent + "- " + scalar_text(item))
        return
    lines[first] = " " * indent + "- " + lines[first][indent + INDENT :]


def _string(layout: Layout, lead: str, value: str, indent: int, path: Path) -> None:
    """A string as the author wrote it (quoted, plain, literal or folded block) where that can hold it;
    else (and in canonical output) plain where safe, a block where it has line breaks, else quoted."""
    written = layout.source_style(path)
    if written in _QUOTES:
        layout.lines.append(lead + " " + _in_quotes(layout, value, written))
        return
    block = _kept_block(layout, value, indent, path, written) if written in _BLOCKS else None
    if block is None:
        block = _canonical_block(layout, lead, value, indent)
    if block is None:
        plain = written == "" and scalars.kept_plain(value)  # `10-fetch.lobster` as written, not quoted
        layout.lines.append(lead + " " + (value if plain else _quoted(layout, value)))
        return
    header, contents = block
    layout.lines.append(lead + " " + header)
    _block(layout.lines, indent + INDENT, contents)


_QUOTES = ("'", '"')
_BLOCKS = ("|", ">")


def _kept_flow(layout: Layout, lead: str, value: Any, path: Path) -> bool:
    """A mapping or list the author wrote in flow style stays so (`{ a: 1 }`, `[a, b]`) when it fits on its line."""
    if layout.source is None or path not in layout.source.flow or not isinstance(value, (dict, list)) or not value:
        return False
    text = _flow_text(layout, value, path)
    if text is None or len(lead) + 1 + len(text) > layout.style.line_width:
        return False
    line = len(layout.lines)
    _note_entries(layout, value, path, line)
    layout.lines.append(lead + " " + text)
    return True


def _flow_text(layout: Layout, value: Any, path: Path) -> str | None:
    """`value` on one line in flow style; None when part of it cannot be (a block scalar, a line break)."""
    if isinstance(value, dict):
        parts = [_flow_pair(layout, key, item, (*path, key)) for key, item in _ordered(layout, value, path)]
        return None if None in parts else "{ " + ", ".join(str(p) for p in parts) + " }" if parts else "{}"
    if isinstance(value, list):
        items = [_flow_text(layout, item, (*path, i)) for i, item in enumerate(value)]
        return None if None in items else "[" + ", ".join(str(i) for i in items) + "]"
    if isinstance(value, str):
        return _flow_string(layout, value, path)
    if isinstance(value, PipelineText):
        return None if value.multiline else _flow_string(layout, value.text, path)
    return scalar_text(value)


def _flow_pair(layout: Layout, key: str, value: Any, path: Path) -> str | None:
    text = _flow_text(layout, value, path)
    key_text = scalars.flow_string(key)
    return None if text is None or len(key_text) > MAX_IMPLICIT_KEY else key_text + ": " + text


def _flow_string(layout: Layout, value: str, path: Path) -> str | None:
    if "\n" in value or "\r" in value:
        return None
    written = layout.source_style(path)
    if written in _QUOTES:
        return _in_quotes(layout, value, written)
    return value if scalars.flow_string(value) == value else _with_quotes(layout, value)


def _note_entries(layout: Layout, value: Any, path: Path, line: int) -> None:
    """Every entry of a flow collection starts on its one line (for the comments that belong to them)."""
    if isinstance(value, dict):
        layout.starts[path] = dict.fromkeys(value, line)
        for key, item in value.items():
            _note_entries(layout, item, (*path, key), line)
    elif isinstance(value, list):
        layout.starts[path] = dict.fromkeys(range(len(value)), line)
        for number, item in enumerate(value):
            _note_entries(layout, item, (*path, number), line)


def _in_quotes(layout: Layout, value: str, written: str | None) -> str:
    """`value` quoted with the author's character, or the configured one; a configured character gives way
    to the other where that spares escapes (`"it's"`, `'say "hi"'`)."""
    chosen = layout.style.quote_style
    if chosen == "preserve":
        return scalars.quoted_with(value, written or "'")
    quote, other = ("'", '"') if chosen == "single" else ('"', "'")
    if quote in value and other not in value and "\\" not in value:
        quote = other
    return scalars.quoted_with(value, quote)


def _quoted(layout: Layout, value: str) -> str:
    """Plain when safe, else quoted with the configured character (or the canonical choice)."""
    return value if scalars.is_plain_safe(value) else _with_quotes(layout, value)


def _with_quotes(layout: Layout, value: str) -> str:
    """Quoted with the configured character, or the canonical choice (`preserve`)."""
    chosen = layout.style.quote_style
    return scalars.quoted(value) if chosen == "preserve" else _in_quotes(layout, value, "'")


def _kept_block(layout: Layout, value: str, indent: int, path: Path, written: str | None) -> tuple[str, list[str]] | None:
    """The author's literal (`|`) or folded (`>`) block, where it can hold the value."""
    if written == "|":
        return scalars.literal_block(value) or scalars.one_line_block(value)
    as_written = layout.source.written.get(path) if layout.source is not None else None
    if as_written is not None and as_written.value == value:
        return as_written.header, list(as_written.lines)
    folds = layout.source.folds.get(path) if layout.source is not None else None
    return scalars.folded_block(value, folds, layout.style.line_width - indent - INDENT)


def _canonical_block(layout: Layout, lead: str, value: str, indent: int) -> tuple[str, list[str]] | None:
    """A multi-line string is a literal block (`|`); in canonical output a long one is a folded block (`>-`),
    and a one-line command that quoting would escape is the single line of a `|-` block."""
    if "\n" in value:
        return scalars.literal_block(value)
    width = layout.style.line_width
    if type(value) is ShellText and _fits_unescaped(lead, value, width):
        return "|-", [value]
    if layout.source is not None or len(lead) + 1 + len(scalars.string(value)) <= width:
        return None
    folded = scalars.folded_lines(value, width - indent - INDENT)
    return None if folded is None else (">-", folded)


def _fits_unescaped(lead: str, text: str, width: int) -> bool:
    """A short command that quoting would escape reads better as the single line of a `|-` block."""
    return scalars.needs_escaping(text) and len(lead) + 1 + len(scalars.string(text)) <= width


def _block(lines: list[str], indent: int, contents: list[str]) -> None:
    pad = " " * indent
    lines.extend([pad + line if line else "" for line in contents])


def _pipeline(layout: Layout, lead: str, pipeline: PipelineText, indent: int, path: Path) -> None:
    """One line when it fits; else one stage per line in a block scalar, each stage after the first
    led by `| `. A pipeline the author wrote one stage per line in a block stays so."""
    text = pipeline.text
    written = layout.source_style(path)
    kept_block = written == "|" or written == ">"
    stacked = kept_block and _stacked(layout, pipeline, path)
    stackable = all(_stackable(stage) for stage in pipeline.stages)
    if stackable and (stacked or (not _fits(layout, lead, text, written) and _breakable(pipeline.stages))):
        header = (str(written) if kept_block else ">") + ("" if kept_block and pipeline.newline else "-")
        width = layout.style.line_width - indent - INDENT if header[0] == ">" else None
        lines = _stage_lines(layout, pipeline, path, written) if stacked else _one_per_line(pipeline.stages, width)
        if lines is None and len(pipeline.stages) > 1:
            lines = _one_per_line(pipeline.stages)
        if lines is not None:  # else one stage broken inside a word: the block below keeps it as written
            layout.lines.append(lead + " " + header)
            _block(layout.lines, indent + INDENT, lines)
            return
    if written in ("", None) and scalars.needs_escaping(text) and _stackable(text):
        layout.lines.append(lead + " |-")  # rather than a quoted scalar full of escapes or doubled `''`
        _block(layout.lines, indent + INDENT, [text])
        return
    _string(layout, lead, text + ("\n" if kept_block and pipeline.newline else ""), indent, path)


def _one_per_line(stages: tuple[str, ...], width: int | None = None) -> list[str]:
    """One stage per line; in a folded block (`width` given) a stage longer than `width` also breaks
    before each of its flags (`--model x`): folding joins those lines with single spaces again, so
    no line break enters the value."""
    lines: list[str] = []
    for index, stage in enumerate(stages):
        line = ("| " if index else "") + stage
        groups = _flag_groups(stage) if width is not None and len(line) > width else None
        if groups is None:
            lines.append(line)
        else:
            lines.extend([("| " if index else "") + groups[0], *groups[1:]])
    return lines


_FLAG = re.compile(r"--?[A-Za-z]")


def _flag_groups(stage: str) -> list[str] | None:
    """The stage cut before each flag (a word `-x` or `--name`), each flag with the words after it;
    None when it has no flag after its first word or its words are not one space apart."""
    words = split_words(stage)
    if words is None:
        return None
    groups = [[words[0]]]
    for word in words[1:]:
        if _FLAG.match(word):
            groups.append([word])
        else:
            groups[-1].append(word)
    texts = [" ".join(group) for group in groups]
    return texts if len(texts) > 1 and " ".join(texts) == stage else None


def _breakable(stages: tuple[str, ...]) -> bool:
    """Whether a pipeline can be laid out on several lines: several stages, or one with flags."""
    return len(stages) > 1 or _flag_groups(stages[0]) is not None


def _stage_lines(layout: Layout, pipeline: PipelineText, path: Path, written: str | None) -> list[str] | None:
    """One stage per line, each stage also broken before the words where the author broke it
    (continuation lines indented two more spaces in a literal block); None when the author's
    breaks are not all between words."""
    folds = layout.source.folds.get(path) if layout.source is not None else None
    starts = _line_starts(pipeline.written.rstrip("\n"), folds)
    stage_words = [split_words(stage) for stage in pipeline.stages]
    if starts is None or any(words is None for words in stage_words):
        return None
    lines: list[str] = []
    more = "  " if written == "|" else ""
    number = 0
    for index, words in enumerate(stage_words):
        assert words is not None
        line = ("| " if index else "") + words[0]
        for word in words[1:]:
            number += 1
            if number in starts:
                lines.append(line)
                line = more + word
            else:
                line += " " + word
        number += 1
        lines.append(line)
    return lines if number == starts.total else None


def _line_starts(text: str, folds: tuple[int, ...] | None) -> _WordBreaks | None:
    """The numbers of the words (counting all words of the pipeline, not `|`) that begin a line of `text`."""
    lines = scalars.split_at(text, folds) if folds else text.split("\n")
    if lines is None:
        return None
    starts = _WordBreaks()
    for line in lines:
        words = split_words(line)
        if words is None:
            return None
        words = [word for word in words if word != "|"]
        if words:
            starts.add(starts.total)
        starts.total += len(words)
    return starts


class _WordBreaks(set[int]):
    """Word numbers that begin a line, and how many words there are."""

    total = 0


def _stacked(layout: Layout, pipeline: PipelineText, path: Path) -> bool:
    """Whether the author's block held the pipeline on several lines."""
    return pipeline.multiline or (layout.source is not None and path in layout.source.folds)


def _fits(layout: Layout, lead: str, text: str, written: str | None) -> bool:
    one_line = _in_quotes(layout, text, written) if written in _QUOTES else scalars.string(text)
    return len(lead) + 1 + len(one_line) <= layout.style.line_width


def _stackable(stage: str) -> bool:
    """A stage that can be one line of a block: no line break, nothing YAML must escape, no edge spaces."""
    return stage == stage.strip() and scalars.foldable(stage)


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
