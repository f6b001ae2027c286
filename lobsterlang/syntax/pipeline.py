"""Parse pipeline text into `ir.Pipeline`, token for token as the reference tokenizer does."""

from __future__ import annotations

import re
from collections.abc import Sequence

from lobsterlang import ir
from lobsterlang.diagnostics import Diagnostic, Severity
from lobsterlang.span import Span
from lobsterlang.syntax.expr import parse_template
from lobsterlang.syntax.lexer import pipeline_scanner
from lobsterlang.syntax.locate import Locator
from lobsterlang.syntax.text import js_trim_range

MAX_STAGES = 1000
"""More stages than this is refused: no hand-written or sensible generated pipeline has them."""

UNCLOSED_QUOTE = "Unclosed quote"
EMPTY_PIPELINE = "Empty pipeline"
EMPTY_STAGE = "Empty command stage"

_DQ_ESCAPE = re.compile(r"\\([\s\S])")
_DQ_KEEP = frozenset('"\\$`')


class _Word:
    """A word being built: its value and, per value character, the local source offset."""

    __slots__ = ("end", "offsets", "start", "value")

    def __init__(self, value: str, offsets: Sequence[int], start: int, end: int) -> None:
        self.value = value
        self.offsets = offsets
        self.start = start
        self.end = end


def parse_pipeline(
    text: str, locate: Locator, *, templates: bool = False
) -> tuple[ir.Pipeline | None, list[Diagnostic]]:
    """Parse a pipeline string; on failure return None and every problem found.

    With `templates=True` (pipelines in workflow files), words that embed `${arg}` or
    `$step.path` references carry a template, so values are substituted per word.
    """
    scanned = scan_stages(text)
    if isinstance(scanned, int):
        # The grammar accepts every character sequence except an unterminated quote.
        return None, [_unclosed_quote(text, scanned, locate)]
    groups, pipes = scanned
    problem = _splitter_disagreement(text, pipes)
    if problem is not None:
        return None, [problem_diag(problem, locate)]
    stages: list[ir.Stage] = []
    diagnostics: list[Diagnostic] = []
    if groups and _is_blank(text, groups[-1][0], groups[-1][1]):
        groups.pop()  # the reference ignores a trailing empty stage (`a | b |`)
    if not groups:
        return None, [_error("P002", EMPTY_PIPELINE, locate.span(0, len(text)), "write at least one command")]
    if len(groups) > MAX_STAGES:
        cut = groups[MAX_STAGES][0] - 1
        message = f"pipeline has {len(groups):,} stages; the limit is {MAX_STAGES:,}"
        return None, [_error("P004", message, locate.span(cut, cut + 1), "split the work into several steps")]
    for start, end, tokens in groups:
        stage = _build_stage(text, start, end, tokens, _WordMaker(locate, templates))
        if stage is None:
            diagnostics.append(_empty_stage(text, start, end, locate))
        else:
            stages.append(stage)
    if diagnostics:
        return None, diagnostics
    return ir.Pipeline(text, tuple(stages), locate.span(0, len(text))), []


def problem_diag(problem: tuple[int, str], locate: Locator) -> Diagnostic:
    offset, message = problem
    return _error("P001", message, locate.span(offset, offset + 1), _QUOTE_HINT)


_QUOTE_HINT = (
    "close the quote; inside single quotes only \\' is an escape "
    "(the shell idiom '\\'' is not supported), so prefer double quotes for text with apostrophes"
)


def _error(code: str, message: str, span: Span, hint: str | None = None) -> Diagnostic:
    return Diagnostic(code, Severity.ERROR, message, span, hint=hint)


def _unclosed_quote(text: str, pos: int, locate: Locator) -> Diagnostic:
    return _error("P001", UNCLOSED_QUOTE, locate.span(pos, len(text)), _QUOTE_HINT)


def _empty_stage(text: str, start: int, end: int, locate: Locator) -> Diagnostic:
    """Point at the `|` that opens the empty stage (or closes it, for a leading one)."""
    anchor = start - 1 if start > 0 else min(end, max(len(text) - 1, 0))
    return _error(
        "P003",
        EMPTY_STAGE,
        locate.span(anchor, min(anchor + 1, len(text))),
        "remove the extra `|` or put a command between the pipes",
    )


Part = tuple[str, int, int]
"""A word part: terminal name (BARE, SQ_STRING or DQ_STRING), start and end offsets."""
Group = tuple[int, int, list[list[Part]]]
"""A stage: start and end offsets and its words, each a list of adjacent parts."""


def scan_stages(text: str) -> tuple[list[Group], list[int]] | int:
    """Stages and `|` offsets per grammar/pipeline.lark, or the offset of an unclosed quote.

    pipeline: stage (PIPE stage)*; stage: _WS? (word _WS)* word?; word: part+.
    """
    groups: list[Group] = []
    pipes: list[int] = []
    words: list[list[Part]] = []
    word: list[Part] = []
    stage_start = expected = 0
    for match in pipeline_scanner().finditer(text):
        start, end = match.span()
        if start != expected:
            return expected
        expected = end
        kind = match.lastgroup or ""
        if kind in ("WS", "PIPE"):
            if word:
                words.append(word)
                word = []
            if kind == "PIPE":
                groups.append((stage_start, start, words))
                pipes.append(start)
                stage_start, words = end, []
        else:
            word.append((kind, start, end))
    if expected != len(text):
        return expected
    if word:
        words.append(word)
    groups.append((stage_start, len(text), words))
    return groups, pipes


class _WordMaker:
    """Turns built words into IR words, attaching templates when asked to."""

    def __init__(self, locate: Locator, templates: bool) -> None:
        self.locate = locate
        self.templates = templates

    def word(self, word: _Word, skip: int = 0) -> ir.Word:
        """The IR word for `word.value[skip:]`; its span covers the source text, quotes included."""
        start = word.start if skip == 0 else word.offsets[skip - 1] + 1
        value = word.value[skip:]
        tpl = None
        if self.templates and "$" in value:
            tpl = parse_template(value, _WordLocator(word.offsets[skip:], word.end, self.locate))
        return ir.Word(value, self.locate.span(start, word.end), tpl)


class _WordLocator:
    """Maps offsets in a word's value to the file, through the word's source offsets."""

    def __init__(self, offsets: Sequence[int], end: int, outer: Locator) -> None:
        self._offsets = offsets
        self._end = end
        self._outer = outer

    def span(self, start: int, end: int) -> Span:
        lo = self._offsets[start] if start < len(self._offsets) else self._end
        hi = self._offsets[end - 1] + 1 if 0 < end <= len(self._offsets) else lo
        return self._outer.span(lo, max(lo, hi))


def _build_stage(text: str, start: int, end: int, words: list[list[Part]], make: _WordMaker) -> ir.Stage | None:
    lo, hi = js_trim_range(text, start, end)
    built = [w for w in (_build_word(text, parts, lo, hi) for parts in words) if w is not None and w.value]
    if not built:
        return None
    name, *rest = built
    args = _classify_args(rest, make)
    return ir.Stage(make.word(name), tuple(args), text[lo:hi], make.locate.span(lo, hi))


def _is_blank(text: str, start: int, end: int) -> bool:
    lo, hi = js_trim_range(text, start, end)
    return lo >= hi


def _build_word(text: str, parts: list[Part], lo: int, hi: int) -> _Word | None:
    if len(parts) == 1 and parts[0][0] == "BARE" and lo <= parts[0][1] and parts[0][2] <= hi:
        _, start, end = parts[0]  # the common case: one bare token, offsets are start + i
        return _Word(text[start:end], range(start, end), start, end)
    value: list[str] = []
    offsets: list[int] = []
    first = last = -1
    for kind, start, end in parts:
        s, e = max(start, lo), min(end, hi)
        if s >= e:
            continue
        first = s if first < 0 else first
        last = e
        _decode_part(kind, text[s:e], s, value, offsets)
    if first < 0:
        return None
    return _Word("".join(value), offsets, first, last)


def _decode_part(kind: str, raw: str, base: int, value: list[str], offsets: list[int]) -> None:
    if kind == "BARE":
        value.append(raw)
        offsets.extend(range(base, base + len(raw)))
    elif kind == "SQ_STRING":
        _decode_single(raw, base, value, offsets)
    else:
        _decode_double(raw, base, value, offsets)


def _decode_single(raw: str, base: int, value: list[str], offsets: list[int]) -> None:
    if "\\" not in raw:
        value.append(raw[1:-1])
        offsets.extend(range(base + 1, base + len(raw) - 1))
        return
    i, n = 1, len(raw) - 1
    while i < n:
        if raw[i] == "\\" and i + 1 < n and raw[i + 1] == "'":
            value.append("'")
            offsets.append(base + i)
            i += 2
            continue
        value.append(raw[i])
        offsets.append(base + i)
        i += 1


def _decode_double(raw: str, base: int, value: list[str], offsets: list[int]) -> None:
    if "\\" not in raw:
        value.append(raw[1:-1])
        offsets.extend(range(base + 1, base + len(raw) - 1))
        return
    i, n = 1, len(raw) - 1
    while i < n:
        ch = raw[i]
        if ch == "\\" and i + 1 < n:
            nxt = raw[i + 1]
            if nxt in _DQ_KEEP:
                value.append(nxt)
                offsets.append(base + i)
            elif nxt != "\n":
                value.append(ch + nxt)
                offsets.extend((base + i, base + i + 1))
            i += 2
            continue
        value.append(ch)
        offsets.append(base + i)
        i += 1


def _classify_args(words: list[_Word], make: _WordMaker) -> list[ir.StageArg]:
    locate = make.locate
    args: list[ir.StageArg] = []
    i = 0
    while i < len(words):
        word = words[i]
        i += 1
        if not word.value.startswith("--"):
            value = make.word(word)
            args.append(ir.Positional(value, value.span))
            continue
        eq = word.value.find("=")
        if eq >= 0:
            name_span = locate.span(word.start, word.offsets[eq])
            value = make.word(word, eq + 1)
            span = locate.span(word.start, word.end)
            args.append(ir.Flag(word.value[2:eq], value, "equals", span, name_span))
            continue
        name_span = locate.span(word.start, word.end)
        if i < len(words) and not words[i].value.startswith("--"):
            nxt = words[i]
            i += 1
            span = locate.span(word.start, nxt.end)
            args.append(ir.Flag(word.value[2:], make.word(nxt), "separate", span, name_span))
        else:
            args.append(ir.Flag(word.value[2:], None, "bare", name_span, name_span))
    return args


def _splitter_disagreement(text: str, ours: list[int]) -> tuple[int, str] | None:
    """Check the one case where the reference's stage splitter and tokenizer disagree.

    Inside single quotes the reference's splitter treats `\\\\` as an escaped pair while its
    tokenizer treats `\\'` as an escaped quote. Only a single-quoted string containing
    `\\\\'` can tell them apart; then the stage boundaries must still agree.
    """
    if "\\\\'" not in text:
        return None
    theirs, unclosed_at = _reference_split(text)
    if unclosed_at is not None:
        return unclosed_at, UNCLOSED_QUOTE
    if ours != theirs:
        where = next((a for a, b in zip(ours, theirs, strict=False) if a != b), (ours or theirs)[0])
        return where, "Ambiguous quoting: `\\\\'` inside single quotes splits stages differently"
    return None


def _reference_split(text: str) -> tuple[list[int], int | None]:
    """The reference's stage splitter: `|` positions outside quotes, or an unclosed quote."""
    pipes: list[int] = []
    quote = ""
    opened = 0
    i = 0
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 2
                continue
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote, opened = ch, i
        elif ch == "|":
            pipes.append(i)
        i += 1
    return pipes, (opened if quote else None)
