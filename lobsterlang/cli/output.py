"""Printing diagnostics from commands: format and colour choice, summary line (no click: the fast paths use it)."""

from __future__ import annotations

import os
import sys

from lobsterlang.diagnostics import Diagnostic
from lobsterlang.report import Report, render_json, render_text, summary


def use_color(choice: str) -> bool:
    if choice != "auto":
        return choice == "always"
    return sys.stderr.isatty() and not os.environ.get("NO_COLOR")


def print_diagnostics(reports: list[Report], fmt: str, color: str) -> None:
    """Write diagnostics to stderr; text output ends with a `Found …` summary."""
    if fmt == "json":
        _write_err(render_json(reports))
        return
    all_diags: list[Diagnostic] = [d for r in reports for d in r.diagnostics]
    if not all_diags:
        return
    colored = use_color(color)
    _write_err(render_text(reports, color=colored))
    _write_err(summary(all_diags))


def _write_err(text: str) -> None:
    sys.stderr.write(text)
    sys.stderr.flush()
