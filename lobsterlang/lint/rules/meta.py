"""L0xx: findings about lint itself (suppression comments that suppress nothing)."""

from __future__ import annotations

from lobsterlang.diagnostics import Severity
from lobsterlang.lint.registry import Rule, register

UNUSED_SUPPRESSION = register(
    Rule("L001", "unused-suppression", Severity.WARNING, "a `# lobster: ignore[...]` comment that suppresses nothing")
)
