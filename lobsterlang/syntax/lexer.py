"""Regular scanners built from the grammar's own terminal definitions (grammar/*.lark).

The pipeline and template languages are regular (no nesting), so they are scanned with one
compiled regex each instead of running the LALR parser token by token. The patterns and their
priority order are generated from the grammar into `_terminals.py`, so the grammar files stay
the single definition and the parser module is not even imported for them.
tests/test_grammar.py checks that both give the same structure.
"""

from __future__ import annotations

import re
from functools import cache

from lobsterlang.syntax._terminals import CONDITION_TERMINALS, TERMINALS

TEMPLATE_TERMINALS = ("TEXT", "STEPREF", "ARGREF", "DOLLAR")
PIPELINE_TERMINALS = ("PIPE", "_WS", "BARE", "SQ_STRING", "DQ_STRING")


@cache
def template_scanner() -> re.Pattern[str]:
    """The template terminals as one regex of named groups, highest priority first."""
    return _scanner(TEMPLATE_TERMINALS)


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


@cache
def condition_scanner() -> re.Pattern[str]:
    """The condition terminals in Lark's lexer order; its tokens are fed to the LALR parser."""
    return re.compile("|".join(f"(?P<{name.lstrip('_')}>{regex})" for name, regex in CONDITION_TERMINALS))
