"""A quick test, without a parse, of whether shell text can hold a place where bash evaluates a value.

`shellvalues` finds those places in the parse tree; each needs a word or an operator written in
the text (`let`, `declare`, `((`, `a[`, `-v`, `<<`…), with quotes and backslashes that could hide
it (`l''et`, `\\let`) removed first. The runtime calls `may_evaluate` on every shell text with an
`${arg}` and imports tree-sitter and `shellvalues` only where it is true.
"""

from __future__ import annotations

import re

_TRIGGERS = re.compile(
    r"\(\(|\$\[|[\w\]]\[|=\(|\$\{[^}]*:|<<|-(?:eq|ne|lt|le|gt|ge|v|R)\b"
    r"|\b(?:let|declare|typeset|local|export|readonly|integer|float|read\w*|mapfile|printf|unset|wait|getopts|test)\b"
)
"""What each place needs written in the text, once quotes and backslashes are removed."""
_QUOTING = re.compile(r"[\\'\"]")


def may_evaluate(text: str) -> bool:
    """False only when no expansion in `text` can stand where `shellvalues.value_uses` finds a use."""
    return "$'" in text or _TRIGGERS.search(_QUOTING.sub("", text)) is not None
