"""Access to the generated standalone Lark parser, built once per process on first use."""

from __future__ import annotations

from functools import cache
from typing import Any

from lobsterlang.syntax import _parser

UnexpectedInput = _parser.UnexpectedInput
UnexpectedCharacters = _parser.UnexpectedCharacters
UnexpectedToken = _parser.UnexpectedToken
Token = _parser.Token
Transformer = _parser.Transformer


@cache
def parser() -> Any:
    """The LALR parser for the start symbols `pipeline`, `condition` and `template`."""
    return _parser.Lark_StandAlone()


def parse(text: str, start: str) -> Any:
    """Parse `text` from the given start symbol into a Lark tree."""
    return parser().parse(text, start=start)
