"""The variables that carry args to every step (LOBSTER_ARGS_JSON and LOBSTER_ARG_<NAME>), and which args are the
file's own text (a default its author wrote) rather than a value a caller supplied."""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from typing import Any

from lobsterlang import ir
from lobsterlang.interpret.values import js_string, stringify
from lobsterlang.syntax.text import js_trim_range

_NOT_ALNUM = re.compile(r"[^A-Z0-9]+")


@functools.lru_cache(maxsize=256)
def arg_var_name(name: str) -> str:
    """`LOBSTER_ARG_<N>`: trimmed, upper-cased, other characters as `_`, outer `_` stripped; `` if empty."""
    lo, hi = js_trim_range(name)
    normal = _NOT_ALNUM.sub("_", name[lo:hi].upper()).strip("_")
    return f"LOBSTER_ARG_{normal}" if normal else ""


def arg_env(args: Mapping[str, Any]) -> dict[str, str]:
    """The variables every step gets from the args (a later arg wins a shared name)."""
    env = {"LOBSTER_ARGS_JSON": stringify(dict(args))}
    for name, value in args.items():
        var = arg_var_name(name)
        if var:
            env[var] = js_string(value)
    return env


def authored_args(declared: Sequence[ir.ArgDecl] | None, args: Mapping[str, Any]) -> frozenset[str]:
    """The args whose value is the default the file declares for them: text its author wrote, which shell text may
    run as written (as the reference does). A caller that passes the very same value changes nothing; any other
    value is data.
    """
    return frozenset(
        decl.name for decl in declared or ()
        if decl.has_default and decl.name in args and _same(args[decl.name], decl.default)
    )


def _same(given: Any, default: Any) -> bool:
    """Equal and of the same JSON type (`1` is not `true`, nor `"1"`)."""
    return type(given) is type(default) and bool(given == default)
