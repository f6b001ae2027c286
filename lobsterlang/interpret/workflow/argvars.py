"""The variables that carry args to every step: LOBSTER_ARGS_JSON and LOBSTER_ARG_<NAME>."""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import Any

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
