"""The formatter's two settings (line width, quote character) and the source layout it keeps."""

from __future__ import annotations

from lobsterlang.record import Record

QUOTE_STYLES = ("preserve", "single", "double")
DEFAULT_WIDTH = 100


class Style(Record):
    """`line_width`: where a pipeline is laid out one stage per line (and, in canonical output,
    where long strings are folded). `quote_style`: the quote character of quoted strings:
    `preserve` keeps the author's (single quotes where a plain string needs quoting), or
    `single`/`double` (single quotes fall back to double where escapes are needed)."""

    line_width: int = DEFAULT_WIDTH
    quote_style: str = "preserve"


DEFAULT_STYLE = Style()
