"""Pipeline scanners built from the grammar's own terminal definitions (grammar/pipeline.lark).

The pipeline language is regular (no nesting), so it is scanned with regexes instead of a parser.
The patterns and their priority order are generated from the grammar into `_terminals.py`, so the
grammar files stay the single definition; tests/test_grammar.py checks the scan against Lark.
"""

from __future__ import annotations

import re
from functools import cache

from lobsterlang.syntax._terminals import TERMINALS

PIPELINE_TERMINALS = ("PIPE", "_WS", "BARE", "SQ_STRING", "DQ_STRING")


@cache
def pipeline_scanner() -> re.Pattern[str]:
    """The pipeline terminals as one regex of named groups (`_WS` is the group `WS`)."""
    return _scanner(PIPELINE_TERMINALS)


def _scanner(names: tuple[str, ...]) -> re.Pattern[str]:
    ordered = sorted(names, key=lambda name: -TERMINALS[name][1])
    return re.compile("|".join(f"(?P<{name.lstrip('_')}>{TERMINALS[name][0]})" for name in ordered))


QUOTED_FAST = {
    "SQ_STRING": r"'[^'\\]*(?:(?:\\'|\\(?!'))[^'\\]*)*'",
    "DQ_STRING": r'"[^"\\]*(?:\\[\s\S][^"\\]*)*"',
}
"""The quoted-string terminals unrolled: they match exactly what the grammar's patterns match
(tests/test_pipeline_fastpath.py checks), but take a run of plain characters at a time
instead of one regex branch per character."""


@cache
def pipeline_word_scanner() -> re.Pattern[str]:
    """Whole words of a pipeline, with six groups: leading `_WS`; then a `PIPE`, or a word that is
    one `BARE`, one `SQ_STRING` or one `DQ_STRING` part (groups named so), or any other word.

    A word is `_part+` (grammar/pipeline.lark) and ends at whitespace, a pipe or the end. Every
    part's first character decides its terminal, so matching parts greedily in one regex
    splits the text exactly as scanning it token by token does.
    """
    pipe, space, bare = (TERMINALS[name][0] for name in ("PIPE", "_WS", "BARE"))
    single, double = QUOTED_FAST["SQ_STRING"], QUOTED_FAST["DQ_STRING"]
    end = f"(?={space}|{pipe}|\\Z)"
    lone = f"(?P<BARE>{bare}){end}|(?P<SQ_STRING>{single}){end}|(?P<DQ_STRING>{double}){end}"
    return re.compile(f"((?:{space})?)(?:({pipe})|{lone}|((?:{bare}|{single}|{double})+))")


@cache
def pipeline_space() -> re.Pattern[str]:
    """The pipeline whitespace terminal `_WS` alone."""
    return re.compile(TERMINALS["_WS"][0])
