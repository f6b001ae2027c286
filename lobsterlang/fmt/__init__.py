"""The formatter: idempotent, comment-preserving text from the IR that keeps the author's layout choices (docs/fmt.md)."""

from __future__ import annotations

from lobsterlang.fmt.api import FormatError, emit, format_step, format_text, format_workflow
from lobsterlang.fmt.style import Style

__all__ = ["FormatError", "Style", "emit", "format_step", "format_text", "format_workflow"]
