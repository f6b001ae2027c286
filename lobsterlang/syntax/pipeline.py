"""Parse pipeline text into `ir.Pipeline`, token for token as the reference tokenizer does."""

from __future__ import annotations

import re
from collections.abc import Sequence

from lobsterlang import ir
from lobsterlang.diagnostics import Diagnostic, Severity
from lobsterlang.span import Span
from lobsterlang.syntax.expr import parse_template
from lobsterlang.syntax.lexer import pipeline_scanner, pipeline_space, pipeline_word_scanner
from lobsterlang.syntax.locate import Locator
from lobsterlang.syntax.text import JS_WHITESPACE, js_trim_range

MAX_STAGES = 500
"""More stages than this is refused: no sensible pipeline has them, and each stage is a nested generator
that running and closing the stream walk through (1,000 reached Python's recursion limit in a workflow step)."""

UNCLOSED_QUOTE = "Unclosed quote"
EMPTY_PIPELINE = "Empty pipeline"
EMPTY_STAGE = "Empty command stage"

_DQ_KEEP = frozenset('"\\$`')

BOOLEAN_FLAGS: dict[str, frozenset[str]] = {"exec": frozenset({"json"})}
"""Per command, the flags that never take the next word as their value: as in the reference's parser,
`exec --json echo '[1,2]'` keeps `echo` as the command (it has done so since 2026.9)."""


def parse_pipeline(
    text: str, locate: Locator, *, templates: bool = False
) -> tuple[ir.Pipeline | None, list[Diagnostic]]:
    """Parse a pipeline string; on failure return None and every problem found.

    With `templates=True` (pipelines in workflow files), words that embed `${arg}` or
    `$step.path` references carry a template, so values are substituted per word.
    """
    scanned = _stages(text)
    if isinstance(scanned, int):
        # The grammar accepts every character sequence except an unterminated quote.
        return None, [_unclosed_quote(text, scanned, locate)]
    staged, pipes = scanned
    problem = _splitter_disagreement(text, pipes)
    if problem is not None:
        return None, [problem_diag(problem, locate)]
    if staged[-1][2] >= staged[-1][3]:
        staged.pop()  # the reference ignores a trailing empty stage (`a | b |`)
    if not staged:
        return None, [_error("P002", EMPTY_PIPELINE, locate.span(0, len(text)), "write at least one command")]
    if len(staged) > MAX_STAGES:
        cut = staged[MAX_STAGES][0] - 1
        message = f"pipeline has {len(staged):,} stages; the limit is {MAX_STAGES:,}"
        return None, [_error("P004", message, locate.span(cut, cut + 1), "split the work into several steps")]
    build = _Builder(text, locate, templates)
    stages: list[ir.Stage] = []
    diagnostics: list[Diagnostic] = []
    for start, end, lo, hi, words in staged:
        if words:
            stages.append(build.stage(words, lo, hi))
        else:
            diagnostics.append(_empty_stage(text, start, end, locate))
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


Word = tuple[str, int, int, "Sequence[int] | None"]
"""A word: its value, source start and end, and per value character the source offset.

None stands for `start + i`: the value is the source text itself. `_scan_words` leaves every
word so, quotes included, until `_stage_words` decodes it.
"""
Staged = tuple[int, int, int, int, list[Word]]
"""A stage: its offsets between the pipes, its bounds after a JavaScript trim (the reference
trims each stage), and its words; a quoted empty word (`''`, `""`) is a word."""
Group = tuple[int, int, list[Word], bool]
"""A stage as scanned: its start and end offsets, its words, and whether any word has quotes."""
Part = tuple[str, int, int]
"""A word part: terminal name (BARE, SQ_STRING or DQ_STRING), start and end offsets."""


def _stages(text: str) -> tuple[list[Staged], list[int]] | int:
    """The stages and `|` offsets per grammar/pipeline.lark, or the offset of an unclosed quote.

    pipeline: stage (PIPE stage)*; stage: _WS? (word _WS)* word?; word: part+.
    """
    if text.isprintable():  # the common case: the only whitespace is the space
        split = _split_stages(text)
        if split is not None:
            return split
    scanned = _scan_words(text)
    if isinstance(scanned, int):
        return scanned
    groups, pipes = scanned
    return [_stage_words(text, *group) for group in groups], pipes


def _split_stages(text: str) -> tuple[list[Staged], list[int]] | None:
    """`_stages` of text whose only whitespace is the space, split at every `|`.

    None when a quote is open at a `|` or at the end. A piece that scans completely on its
    own starts and ends outside quotes, so when every piece does, every `|` separates stages.
    """
    staged: list[Staged] = []
    pipes: list[int] = []
    start = 0
    for piece in text.split("|"):
        end = start + len(piece)
        if "'" in piece or '"' in piece:
            stage = _quoted_stage(text, piece, start, end)
            if stage is None:
                return None
            staged.append(stage)
        else:
            words = _space_split(piece, start)
            staged.append((start, end, words[0][1], words[-1][2], words) if words else (start, end, end, end, words))
        pipes.append(end)
        start = end + 1
    pipes.pop()  # the last piece ends the text, not at a `|`
    return staged, pipes


def _space_split(piece: str, pos: int) -> list[Word]:
    """The words of a piece starting at `pos`, with no quotes and only spaces as whitespace."""
    words: list[Word] = []
    for raw in piece.split(" "):
        if raw:
            end = pos + len(raw)
            words.append((raw, pos, end, None))
            pos = end + 1
        else:
            pos += 1
    return words


def _quoted_stage(text: str, piece: str, start: int, end: int) -> Staged | None:
    """The stage `piece` (`text[start:end]`), which has quotes and only spaces as whitespace.

    Words without quotes are split at spaces; one regex match takes each word with a quote,
    and the space-separated chunks inside it are skipped. None if a quote is still open at `end`.
    """
    words: list[Word] = []
    lo = hi = skip = -1
    pos = start
    for chunk in piece.split(" "):
        at = pos
        pos += len(chunk) + 1
        if not chunk or at < skip:
            continue
        word: Word
        if "'" not in chunk and '"' not in chunk:
            word = chunk, at, pos - 1, None
        elif _lone_quoted(chunk):
            word = chunk[1:-1], at, pos - 1, range(at + 1, pos - 2)
        else:
            match = pipeline_word_scanner().match(text, at, end)
            if match is None or (match.end() < end and text[match.end()] != " "):
                return None
            word = _matched_word(match)
            skip = match.end()
        lo = at if lo < 0 else lo
        hi = word[2]
        words.append(word)
    return start, end, lo, hi, words


def _lone_quoted(chunk: str) -> bool:
    """Whether `chunk` is one quoted string without escapes: then its value is between the quotes."""
    quote = chunk[0]
    return quote in "'\"" and len(chunk) > 1 and chunk[-1] == quote and chunk.count(quote) == 2 and "\\" not in chunk


def _matched_word(match: re.Match[str]) -> Word:
    """Decode a word matched by `pipeline_word_scanner`."""
    raw = match.group()
    start, end = match.span()
    if match.lastgroup in ("SQ_STRING", "DQ_STRING") and "\\" not in raw:  # one quoted part, no escapes
        return raw[1:-1], start, end, range(start + 1, end - 1)
    return _decode_word(raw, _parts(raw, start))


def _scan_words(text: str) -> tuple[list[Group], list[int]] | int:
    """The stages of any text as scanned, with one regex of whole words; or an unclosed quote's offset."""
    groups: list[Group] = []
    pipes: list[int] = []
    words: list[Word] = []
    quoted = False
    pos = stage_start = 0
    for space, pipe, bare, single, double, other in pipeline_word_scanner().findall(text):
        pos += len(space)
        if pipe:
            groups.append((stage_start, pos, words, quoted))
            pipes.append(pos)
            pos += len(pipe)
            stage_start, words, quoted = pos, [], False
        else:
            word = bare or single or double or other
            quoted = quoted or not bare
            words.append((word, pos, pos + len(word), None))
            pos += len(word)
    # findall skips what it cannot match; then the matches' lengths fall short of the text.
    if pos != len(text) and pipeline_space().fullmatch(text, pos) is None:
        return _unclosed_at(text)
    groups.append((stage_start, len(text), words, quoted))
    return groups, pipes


def _unclosed_at(text: str) -> int:
    """The end of the tokens that match one after another from the start: an unclosed quote."""
    expected = 0
    for match in pipeline_scanner().finditer(text):
        if match.start() != expected:
            break
        expected = match.end()
    return expected


def _parts(raw: str, pos: int) -> list[Part]:
    """The parts of the word `raw`, which starts at `pos`."""
    matches = pipeline_scanner().finditer(raw)
    return [(match.lastgroup or "", pos + match.start(), pos + match.end()) for match in matches]


def _stage_words(text: str, start: int, end: int, words: list[Word], quoted: bool) -> Staged:
    """The stage's bounds after a JavaScript trim and its words' values."""
    if words:
        lo, hi = words[0][1], words[-1][2]
        if text[lo] not in JS_WHITESPACE and text[hi - 1] not in JS_WHITESPACE:  # only `_WS` was trimmed
            return start, end, lo, hi, _decoded(words, lo, hi) if quoted else words
    lo, hi = js_trim_range(text, start, end)
    return start, end, lo, hi, _decoded(words, lo, hi)


def _decoded(words: list[Word], lo: int, hi: int) -> list[Word]:
    """Scanned words with quotes removed, cut to `lo`..`hi`; a word with quotes is kept even when empty."""
    values: list[Word] = []
    for word in words:
        raw, start, end, _ = word
        if lo <= start and end <= hi and "'" not in raw and '"' not in raw:
            values.append(word)  # one bare part: the value is the source text
            continue
        parts = [(kind, max(a, lo), min(b, hi)) for kind, a, b in _parts(raw, start) if max(a, lo) < min(b, hi)]
        if parts:
            value = _decode_word(raw[parts[0][1] - start : parts[-1][2] - start], parts)
            if value[0] or any(kind != "BARE" for kind, _, _ in parts):
                values.append(value)
    return values


class _Builder:
    """Builds IR stages from their words, attaching templates when asked to."""

    __slots__ = ("locate", "templates", "text")

    def __init__(self, text: str, locate: Locator, templates: bool) -> None:
        self.text = text
        self.locate = locate
        self.templates = templates

    def stage(self, words: list[Word], lo: int, hi: int) -> ir.Stage:
        """The first word names the command; the others are `--k=v`, `--k v`, `--k` or positional."""
        word, span = self.word, self.locate.span
        bare_only = BOOLEAN_FLAGS.get(words[0][0], frozenset())
        args: list[ir.StageArg] = []
        i, count = 1, len(words)
        while i < count:
            value, start, end, offsets = words[i]
            i += 1
            if value[:2] != "--":
                positional = word(value, start, end, offsets)
                args.append(ir.Positional(positional, positional.span))
                continue
            eq = value.find("=")
            if eq >= 0:
                name_end = start + eq if offsets is None else offsets[eq]
                after = word(*_after(words[i - 1], eq))
                flag = ir.Flag(value[2:eq], after, "equals", span(start, end), span(start, name_end))
            elif i < count and words[i][0][:2] != "--" and value[2:] not in bare_only:
                nxt = words[i]
                i += 1
                flag = ir.Flag(value[2:], word(*nxt), "separate", span(start, nxt[2]), span(start, end))
            else:
                name_span = span(start, end)
                flag = ir.Flag(value[2:], None, "bare", name_span, name_span)
            args.append(flag)
        return ir.Stage(word(*words[0]), tuple(args), self.text[lo:hi], span(lo, hi))

    def word(self, value: str, start: int, end: int, offsets: Sequence[int] | None) -> ir.Word:
        """The IR word; its span covers the source text, quotes included."""
        span = self.locate.span(start, end)
        if self.templates and "$" in value:
            if offsets is None:  # no quotes: the whole value's span is the word's own
                where = _WordLocator(range(start, end), end, self.locate, span)
            else:
                where = _WordLocator(offsets, end, self.locate)
            return ir.Word(value, span, parse_template(value, where))
        return ir.Word(value, span, None)


def _after(word: Word, eq: int) -> Word:
    """The part of a `--name=value` word after the `=`."""
    value, start, end, offsets = word
    if offsets is None:
        return value[eq + 1 :], start + eq + 1, end, None
    return value[eq + 1 :], offsets[eq] + 1, end, offsets[eq + 1 :]


class _WordLocator:
    """Maps offsets in a word's value to the file, through the word's source offsets.

    The span of the whole value is made once: a template asks for it, and again for a
    reference that is the whole value.
    """

    __slots__ = ("_end", "_offsets", "_outer", "_whole")

    def __init__(self, offsets: Sequence[int], end: int, outer: Locator, whole: Span | None = None) -> None:
        self._offsets = offsets
        self._end = end
        self._outer = outer
        self._whole = whole

    def span(self, start: int, end: int) -> Span:
        if start == 0 and end == len(self._offsets):
            if self._whole is None:
                self._whole = self._map(start, end)
            return self._whole
        return self._map(start, end)

    def _map(self, start: int, end: int) -> Span:
        lo = self._offsets[start] if start < len(self._offsets) else self._end
        hi = self._offsets[end - 1] + 1 if 0 < end <= len(self._offsets) else lo
        return self._outer.span(lo, max(lo, hi))


def _decode_word(raw: str, parts: list[Part]) -> Word:
    """The value of a word from its parts; `raw` is its source text from the first part's start."""
    value: list[str] = []
    offsets: list[int] = []
    base = parts[0][1]
    for kind, start, end in parts:
        _decode_part(kind, raw[start - base : end - base], start, value, offsets)
    return "".join(value), base, parts[-1][2], offsets


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
