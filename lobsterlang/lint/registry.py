"""Rule registration: each rule has a code, a name, a default severity, a docs page and a check."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from lobsterlang.diagnostics import Diagnostic, Severity
from lobsterlang.record import Record

if TYPE_CHECKING:
    from lobsterlang.lint.context import LintContext

Check = Callable[["LintContext"], Iterable[Diagnostic]]

DOCS_DIR = "docs/rules"


class Rule(Record):
    """A lint rule. `check` is None for rules the engine implements itself (suppressions, shellcheck)."""

    code: str
    name: str
    severity: Severity
    summary: str
    check: Check | None = None
    fixable: bool = False

    @property
    def docs_path(self) -> str:
        return f"{DOCS_DIR}/{self.code}.md"


RULES: dict[str, Rule] = {}


def register(rule: Rule) -> Rule:
    if rule.code in RULES:
        raise ValueError(f"lint rule {rule.code} registered twice")
    RULES[rule.code] = rule
    return rule


def rule(code: str, name: str, severity: Severity, summary: str, *, fixable: bool = False) -> Callable[[Check], Check]:
    """Decorator: register the decorated function as the check of rule `code`."""

    def decorate(check: Check) -> Check:
        register(Rule(code, name, severity, summary, check, fixable))
        return check

    return decorate


def all_rules() -> dict[str, Rule]:
    """Every registered rule, importing the rule modules on first use."""
    from lobsterlang.lint.rules import (  # noqa: F401  (importing registers)
        approvals,
        meta,
        pipelines,
        programs,
        rawargs,
        references,
        robustness,
        shell,
        shellcheck,
    )

    return RULES

