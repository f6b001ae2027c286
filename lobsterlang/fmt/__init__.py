"""The formatter: canonical, idempotent, comment-preserving text from the IR (see docs/fmt.md)."""

from __future__ import annotations

from lobsterlang.fmt.api import FormatError, emit, format_step, format_text, format_workflow

__all__ = ["FormatError", "emit", "format_step", "format_text", "format_workflow"]
