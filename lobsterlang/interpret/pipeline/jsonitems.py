"""`exec --json`'s items: a top-level array is parsed a batch at a time as later stages pull, never whole.

The child's output has been read to the end (its exit status checked) before the first item goes on.
The items and every error are those of `json.loads` on the whole stripped text: an error names the
same position, line and column, and a stage that stops early (`head`) still gets it, because the rest
is parsed (and dropped) when the stream is closed.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable, Iterator
from typing import Any

from lobsterlang.interpret.errors import CommandError
from lobsterlang.interpret.process import Cancellation

BATCH_CHARS = 1 << 20
"""About how much text one batch parses: large enough that the per-batch work is noise."""

_SCAN: Callable[[str, int], tuple[Any, int]] = json.JSONDecoder().scan_once  # type: ignore[attr-defined]
"""The decoder's scanner: one value at an index, and where it ends (StopIteration when none starts there)."""
_SPACE = re.compile(r"[ \t\n\r]*")
_COMMA = re.compile(r"[ \t\n\r]*,")
_OPENERS, _CLOSERS = '{["', '}]"'


def parse_failure(problem: ValueError | str) -> CommandError:
    return CommandError(f"exec --json could not parse stdout as JSON: {problem}")


def parse_whole(text: str) -> list[Any]:
    """The stripped text's value (an empty text is `null`); an array is its items, anything else one item."""
    try:
        value = json.loads(text.strip() or "null")
    except ValueError as exc:
        raise parse_failure(exc) from None
    return value if isinstance(value, list) else [value]


def json_items(chunks: Iterator[str], cancel: Cancellation, batch_chars: int = BATCH_CHARS) -> Iterator[Any]:
    """The items of the text `chunks` yields (read as they are parsed), as `parse_whole` of their join gives them."""
    head = _first_text(chunks)
    if not head.startswith("["):
        return iter(parse_whole(head + "".join(chunks)))
    return BatchedItems(_ArrayReader(chunks, head[1:], batch_chars).batches(), cancel)


def _first_text(chunks: Iterator[str]) -> str:
    """The text from its first non-space character on (what `str.strip` keeps at the front), or "" if none."""
    for chunk in chunks:
        text = chunk.lstrip()
        if text:
            return text
    return ""


class BatchedItems(Iterator[Any]):
    """The batches' items; if the consumer stops early, `close` parses the rest anyway so a bad document is still an error.

    A `for` loop over it runs on a C iterator (`iter()` gives the chain of batches itself): no Python
    frame is resumed per item, which over a million items is about a tenth of a second.
    """

    def __init__(self, batches: Iterator[list[Any]], cancel: Cancellation) -> None:
        self.batches, self.cancel = batches, cancel
        self.items = itertools.chain.from_iterable(batches)

    def __iter__(self) -> Iterator[Any]:
        return self.items

    def __next__(self) -> Any:
        return next(self.items)

    def close(self) -> None:
        if self.cancel.reason is None:
            for _ in self.batches:
                pass


class _ArrayReader:
    """The elements of a JSON array whose `[` has been read, from the text after it.

    `rest` always starts where an element may start (after the `[` or after a `,`), and `prefix`
    is a valid text that leaves the parser in that same state (`[` or `[0,`). `consumed`, `lines`
    and `last_break` describe the text dropped before `rest`, so that an error in `rest` is located
    as `json.loads` of the whole text locates it.
    """

    def __init__(self, chunks: Iterator[str], rest: str, batch_chars: int) -> None:
        self.chunks, self.rest, self.prefix = chunks, rest, "["
        self.more = True
        self.consumed, self.lines, self.last_break = 1, 0, -1
        self.separator: str | None = None
        self.batch_chars = self.wanted = batch_chars

    def batches(self) -> Iterator[list[Any]]:
        while self.more:
            self._refill()
            batch = self._take()
            self.wanted = self.batch_chars if batch else 2 * len(self.rest)
            yield batch
        yield self._last()

    def _refill(self) -> None:
        """At least one more chunk, up to `wanted` characters (doubling while no element completes, so linear)."""
        parts, size = [self.rest], len(self.rest)
        while size < self.wanted or len(parts) == 1:
            chunk = next(self.chunks, None)
            if chunk is None:
                self.more = False
                break
            parts.append(chunk)
            size += len(chunk)
        self.rest = "".join(parts)

    def _take(self) -> list[Any]:
        batch = self._batch()
        if batch is not None:
            return batch
        first = self._one_by_one()
        return first + (self._batch() or [])

    def _batch(self) -> list[Any] | None:
        """Every element before the last `separator` in one `json.loads` (one C call, keys shared), or None.

        A cut at a `,` is between two top-level elements exactly when the text before it, inside
        brackets, parses: a cut inside an element leaves a string or a bracket open.
        """
        if self.separator is None:
            return None
        found = self.rest.rfind(self.separator)
        if found < 0:
            return None
        cut = self.rest.index(",", found)
        try:
            batch: list[Any] = json.loads("[" + self.rest[:cut] + "]")
        except (ValueError, RecursionError):
            return None
        self._consume(cut + 1)
        return batch

    def _one_by_one(self) -> list[Any]:
        """The complete elements at the front of `rest`, each followed by its `,`; up to the first separator if none is known."""
        text, at, batch = self.rest, 0, []
        while True:
            start = _SPACE.match(text, at).end()  # type: ignore[union-attr]
            try:
                item, end = _SCAN(text, start)
            except (StopIteration, ValueError, RecursionError):
                break
            comma = _COMMA.match(text, end)
            if comma is None:
                break
            batch.append(item)
            at = comma.end()
            if self.separator is None and self._learned_separator(text, end, at):
                break
        self._consume(at)
        return batch

    def _learned_separator(self, text: str, end: int, after_comma: int) -> bool:
        """Learn the text from one element's last character to the next one's first, when both are brackets or quotes."""
        following = _SPACE.match(text, after_comma).end()  # type: ignore[union-attr]
        if following < len(text) and text[end - 1] in _CLOSERS and text[following] in _OPENERS:
            self.separator = text[end - 1:following + 1]
        return self.separator is not None

    def _consume(self, count: int) -> None:
        if not count:
            return
        rest = self.rest
        last_break = rest.rfind("\n", 0, count)  # memrchr: compact JSON (no line breaks) is never counted through
        if last_break >= 0:
            self.lines += rest.count("\n", 0, count)
            self.last_break = self.consumed + last_break
        self.consumed += count
        self.rest = rest[count:]
        self.prefix = "[0,"

    def _last(self) -> list[Any]:
        """The elements left once all text is in, and the closing `]`; a bad text's error as the whole parse words it."""
        document = self.prefix + self.rest.rstrip()
        try:
            value: list[Any] = json.loads(document)
        except json.JSONDecodeError as exc:
            raise parse_failure(self._located(exc, document)) from None
        except ValueError as exc:
            raise parse_failure(exc) from None
        return value[1:] if self.prefix != "[" else value

    def _located(self, exc: json.JSONDecodeError, document: str) -> str:
        """`exc`'s message with the position, line and column in the whole text (as `JSONDecodeError` prints them)."""
        start = len(self.prefix)
        pos = max(exc.pos, start)
        offset = self.consumed + pos - start
        breaks = document.count("\n", start, pos)
        column = pos - document.rfind("\n", start, pos) if breaks else offset - self.last_break
        return f"{exc.msg}: line {self.lines + breaks + 1} column {column} (char {offset})"
