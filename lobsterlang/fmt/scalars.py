"""YAML scalars: plain where YAML 1.2 core and YAML 1.1 readers agree it is a string, else quoted; literal blocks."""

from __future__ import annotations

import math
import re

import yaml

from lobsterlang.syntax.yamlload import CoreLoader

_INDICATORS = frozenset("-?:,[]{}#&*!|>'\"%@`")
_RESERVED_WORDS = frozenset(
    {
        "~", "null", "Null", "NULL", "true", "True", "TRUE", "false", "False", "FALSE", "=", "<<",
        "y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO", "on", "On", "ON", "off", "Off", "OFF",
    }
)
"""Null and booleans in YAML 1.2 core, plus YAML 1.1's yes/no/on/off, `=` (value) and `<<` (merge)."""
_NUMBER_LIKE = re.compile(r"[-+]?(?:\.?[0-9][0-9A-Za-z_.:+-]*|\.(?:inf|Inf|INF|nan|NaN|NAN))")
_PLAIN_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_$/(")
"""First characters that make neither an indicator nor a number, `~`, `=`, `<<`, `---` or `...`."""
_UNPRINTABLE = re.compile("[^\t\n\r\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]")
"""What YAML does not allow unescaped in a stream, plus the BOM and Unicode line breaks."""
_UNSAFE_IN_QUOTES = re.compile(_UNPRINTABLE.pattern + "|[\t\n\r]")
_TO_ESCAPE = re.compile(_UNSAFE_IN_QUOTES.pattern + '|["\\\\]')
_NAMED_ESCAPES = {
    "\0": "\\0", "\a": "\\a", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\v": "\\v", "\f": "\\f",
    "\r": "\\r", "\x1b": "\\e", '"': '\\"', "\\": "\\\\", "\x85": "\\N", "\xa0": "\\_",
    "\u2028": "\\L", "\u2029": "\\P",
}


def is_plain_safe(text: str) -> bool:
    """True when `text` written plain reads back as this same string in every YAML reader."""
    if (
        text[:1] in _PLAIN_START
        and text.isprintable()
        and text[-1] not in " :"
        and ": " not in text
        and " #" not in text
    ):
        return text not in _RESERVED_WORDS  # the common case, no need for the checks below
    if not text or text != text.strip() or (text[0] in _INDICATORS and not _dash_word(text)):
        return False
    if text in _RESERVED_WORDS or _NUMBER_LIKE.fullmatch(text) or text.startswith(("---", "...")):
        return False
    if ": " in text or " #" in text or text.endswith(":") or "\t" in text:
        return False
    return text.isprintable()


def kept_plain(text: str) -> bool:
    """Whether a string the author wrote plain can stay plain: `is_plain_safe`, or text that only looks like
    a number (`10-fetch.lobster`, `2fa`) and reads back as this string in YAML 1.2 core and in YAML 1.1
    (pyyaml's resolvers: ints and floats in base 60 too, timestamps). Read, not guessed: it is rare."""
    if is_plain_safe(text):
        return True
    if text in _RESERVED_WORDS or not _NUMBER_LIKE.fullmatch(text) or ": " in text or " #" in text:
        return False
    return all(_read_plain(text, loader) == text for loader in (CoreLoader, _YAML11_LOADER))


_YAML11_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _read_plain(text: str, loader: type) -> object:
    try:
        read = yaml.load("k: " + text, Loader=loader)  # both loaders are safe ones
    except yaml.YAMLError:
        return None
    return read.get("k") if isinstance(read, dict) else None


def _dash_word(text: str) -> bool:
    """`-x` and `--json` are plain strings; `- x` and `-` alone are not."""
    return text[0] == "-" and len(text) > 1 and text[1] not in " \t" and not text.startswith("---")


def quoted(text: str) -> str:
    """`text` in quotes: single quotes unless escapes are needed or only apostrophes would need doubling."""
    if _quotable(text):
        if "'" in text and '"' not in text and "\\" not in text:
            return '"' + text + '"'
        return "'" + text.replace("'", "''") + "'"
    return double_quoted(text)


def quoted_with(text: str, quote: str) -> str:
    """`text` in the given quote character; single quotes fall back to double where escapes are needed."""
    if quote == "'" and _quotable(text):
        return "'" + text.replace("'", "''") + "'"
    return double_quoted(text)


def _quotable(text: str) -> bool:
    """No character that quotes must escape; `str.isprintable()` answers for most text in one pass
    (every character it calls printable, YAML allows)."""
    return text.isprintable() or not _UNSAFE_IN_QUOTES.search(text)


def _unprintable(text: str) -> bool:
    """Whether `text` has a character YAML does not allow unescaped (line breaks and tabs are allowed)."""
    return not text.replace("\n", " ").isprintable() and _UNPRINTABLE.search(text) is not None


def double_quoted(text: str) -> str:
    return '"' + _TO_ESCAPE.sub(_escape, text) + '"'


def _escape(match: re.Match[str]) -> str:
    ch = match.group()
    named = _NAMED_ESCAPES.get(ch)
    if named is not None:
        return named
    code = ord(ch)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def string(text: str) -> str:
    """A single-line YAML scalar for a string."""
    return text if is_plain_safe(text) else quoted(text)


_FLOW_INDICATORS = frozenset(",[]{}:")


def flow_string(text: str) -> str:
    """A scalar inside a flow collection: plain only where no flow indicator (`,[]{}`) could end it and no `:`
    appears (inside a flow collection pyyaml refuses a plain `a:b`, which block style allows)."""
    return text if is_plain_safe(text) and _FLOW_INDICATORS.isdisjoint(text) else quoted(text)


def needs_escaping(text: str) -> bool:
    """A one-line string that cannot be plain and holds quotes or backslashes (which quoting would escape),
    yet can stand alone as the only line of a `|-` block (no line break, not even `\\r`; no edge spaces; printable)."""
    return (
        "\n" not in text
        and "\r" not in text
        and not is_plain_safe(text)
        and any(ch in text for ch in "'\"\\")
        and text == text.strip()
        and not _unprintable(text)
    )


def literal_block(text: str) -> tuple[str, list[str]] | None:
    """The header (`|`, `|-`, `|2`...) and content lines of a literal block for `text`, if one can hold it.

    A block holds text with a line break, printable characters only, at most one final
    newline (kept with `|`, none with `|-`), and not only whitespace.
    """
    if "\n" not in text or text.endswith("\n\n") or not text.strip():
        return None
    if "\r" in text or _unprintable(text):
        return None
    body, chomp = (text[:-1], "") if text.endswith("\n") else (text, "-")
    indent = "2" if body[0] in " \t\n" else ""
    return "|" + indent + chomp, body.split("\n")


def one_line_block(text: str) -> tuple[str, list[str]] | None:
    """`|-` and the one line of `text`, if a literal block can hold it: printable, no edge spaces."""
    if not text or text != text.strip() or "\n" in text or "\r" in text or _unprintable(text):
        return None
    return "|-", [text]


def folded_block(text: str, lengths: tuple[int, ...] | None, width: int) -> tuple[str, list[str]] | None:
    """The header (`>` or `>-`) and lines of a folded block for `text`: broken where the author broke it
    (`lengths` of the source lines) when those breaks still fit the text, else at `width`; None when a
    folded block cannot hold it (a line break inside, or nothing to fold)."""
    body, header = (text[:-1], ">") if text.endswith("\n") else (text, ">-")
    if not body or "\n" in body or body != body.strip() or not foldable(body):
        return None
    lines = split_at(body, lengths) if lengths else None
    if lines is None:
        lines = folded_lines(body, width) or [body]
    return header, lines


def split_at(text: str, lengths: tuple[int, ...]) -> list[str] | None:
    """`text` cut into lines of these lengths at single spaces (which folding puts back), if it can be."""
    lines: list[str] = []
    start = 0
    for length in lengths[:-1]:
        at = start + length
        if at + 1 >= len(text) or text[at] != " " or text[at - 1] in " \t" or text[at + 1] in " \t":
            return None
        lines.append(text[start:at])
        start = at + 1
    return [*lines, text[start:]] if len(text) - start == lengths[-1] else None


def number(value: float | int) -> str:
    """An int or float as YAML 1.2 core writes it (`1.0e+16`, `.inf`, `.nan`)."""
    if isinstance(value, int):
        return str(value)
    if math.isnan(value):
        return ".nan"
    if math.isinf(value):
        return ".inf" if value > 0 else "-.inf"
    text = repr(value)
    mantissa, e, exponent = text.partition("e")
    if e and "." not in mantissa:
        return f"{mantissa}.0e{exponent}"
    return text


def foldable(text: str) -> bool:
    """Folded blocks join lines with spaces: no line break, nothing YAML must escape."""
    return _quotable(text.replace("\t", " "))


def folded_lines(text: str, width: int) -> list[str] | None:
    """`text` broken at single spaces into lines of at most `width` (where possible) for a `>-` block.

    Folding joins the lines with one space, so a break may only replace a space that has no
    space or tab beside it. None when the text cannot be folded or has nowhere to break.
    """
    if text != text.strip() or not foldable(text):
        return None
    breaks = [i for i in range(1, len(text) - 1) if text[i] == " " and text[i - 1] not in " \t" and text[i + 1] not in " \t"]
    if not breaks:
        return None
    lines: list[str] = []
    start = 0
    for position, at in enumerate(breaks):
        following = breaks[position + 1] if position + 1 < len(breaks) else len(text)
        if following - start > width and at > start:
            lines.append(text[start:at])
            start = at + 1
    lines.append(text[start:])
    return lines if len(lines) > 1 else None
