"""How much a child may write per stream: LOBSTER_MAX_OUTPUT_BYTES, `--max-output-bytes`, or `maxStdoutBytes`."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from lobsterlang.interpret.bytesetting import byte_setting, is_byte_count

DEFAULT_OUTPUT_CAP = 256 << 20
"""256 MiB: twice a million-item `exec --json` (about 117 MB), while a step that holds its whole output and
its parsed JSON (about 12 times the text) stays near 3 GB (docs/cli.md, "Output cap")."""
MEASURE_FLOOR = 64 << 20
CAP_VAR = "LOBSTER_MAX_OUTPUT_BYTES"
CAP_SETTING_VAR = "LOBSTER_OUTPUT_CAP_SETTING"


@dataclass(frozen=True)
class OutputCap:
    """Bytes a child may write to stdout, and separately to stderr; `setting` names where the limit comes from."""

    limit: int
    setting: str = CAP_VAR

    @property
    def measure_limit(self) -> int:
        """Past the cap, how far a stream is still counted (keeping nothing) to tell what the cap would have to be."""
        return max(4 * self.limit, MEASURE_FLOOR)

    def exceeded(self, stream: str, written: int, complete: bool) -> str:
        """The error: the stream, the setting and its value, and what the command wrote: when it ended, the value the
        setting needs; else how much it had written when it was stopped."""
        head = f"lobster {stream} exceeded {self.setting} ({self.limit} bytes)"
        if complete:
            return f"{head}: the command wrote {written} bytes; raise {self.setting} to at least {written}"
        return f"{head}: the command was still writing after {written} bytes and was stopped"


def output_cap(env: Mapping[str, str]) -> OutputCap:
    """`LOBSTER_MAX_OUTPUT_BYTES` (`lobster run --max-output-bytes` sets it), DEFAULT_OUTPUT_CAP when unset or blank.

    Anything but a positive integer is an error, as in the reference. The tool call sets it to the request's
    `maxStdoutBytes` and names that setting in the error.
    """
    limit = byte_setting(env, CAP_VAR)
    if limit is None:
        return OutputCap(DEFAULT_OUTPUT_CAP)
    return OutputCap(limit, env.get(CAP_SETTING_VAR) or CAP_VAR)


@contextlib.contextmanager
def cap_from_flag(value: str) -> Iterator[str | None]:
    """`lobster run --max-output-bytes N`: the cap for this run (and the processes it starts), or the problem."""
    text = value.strip()
    if not is_byte_count(text):
        yield f"--max-output-bytes must be a positive whole number of bytes (got {value})"
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
