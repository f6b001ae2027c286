"""How much a child may write per stream: LOBSTER_MAX_OUTPUT_BYTES, `--max-output-bytes`, or `maxStdoutBytes`."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

DEFAULT_OUTPUT_CAP = 16 << 20
MIN_OUTPUT_CAP = 1024
CAP_VAR = "LOBSTER_MAX_OUTPUT_BYTES"
CAP_SETTING_VAR = "LOBSTER_OUTPUT_CAP_SETTING"


@dataclass(frozen=True)
class OutputCap:
    """Bytes a child may write to stdout, and separately to stderr; `setting` names where the limit comes from."""

    limit: int
    setting: str = "LOBSTER_MAX_OUTPUT_BYTES"


def output_cap(env: Mapping[str, str]) -> OutputCap:
    """`LOBSTER_MAX_OUTPUT_BYTES` (at least 1024; `lobster run --max-output-bytes` sets it), 16 MiB by default.

    The tool call sets it to the request's `maxStdoutBytes` and names that setting in the error.
    """
    try:
        limit = int(env.get(CAP_VAR, ""))
    except ValueError:
        return OutputCap(DEFAULT_OUTPUT_CAP)
    return OutputCap(max(MIN_OUTPUT_CAP, limit), env.get(CAP_SETTING_VAR) or CAP_VAR)


@contextlib.contextmanager
def cap_from_flag(value: str) -> Iterator[str | None]:
    """`lobster run --max-output-bytes N`: the cap for this run (and the processes it starts), or the problem."""
    text = value.strip()
    if not text.isdigit() or int(text) < MIN_OUTPUT_CAP:
        yield f"--max-output-bytes must be a whole number of bytes, at least {MIN_OUTPUT_CAP} (got {value})"
        return
    saved = {var: os.environ.get(var) for var in (CAP_VAR, CAP_SETTING_VAR)}
    os.environ.update({CAP_VAR: text, CAP_SETTING_VAR: "--max-output-bytes"})
    try:
        yield None
    finally:
        for var, old in saved.items():
            if old is None:
                os.environ.pop(var, None)
            else:
                os.environ[var] = old
