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
DOCS_SITE = "https://lobsterlang.dev/"
"""The documentation site (`[project.urls]` Documentation; tests/test_project_urls.py keeps them the same)."""


class Rule(Record):
    """A lint rule. `check` is None for rules the engine implements itself (suppressions, shellcheck)."""

    code: str
    name: str
    severity: Severity
    summary: str
    check: Check | None = None
    fixable: bool = False
    per_step: bool = False
    """The check reads one top-level step at a time: its findings on a workflow are its findings on the workflow
    without steps, plus, for each step, its findings inside that step on the workflow with only that step.
    The language server then re-checks only the steps an edit changed (`lint.stepwise`);
    `tests/lint/test_stepwise.py` holds every such rule to it on the corpora."""

    @property
    def docs_path(self) -> str:
        return f"{DOCS_DIR}/{self.code}.md"

    @property
    def docs_url(self) -> str:
        """The rule's page on the documentation site (built from `docs_path`)."""
        return f"{DOCS_SITE}rules/{self.code}/"


RULES: dict[str, Rule] = {}
PER_STEP_CHECKS: set[Check] = set()
"""The checks of the rules that are `per_step`."""


def register(rule: Rule) -> Rule:
    if rule.code in RULES:
        raise ValueError(f"lint rule {rule.code} registered twice")
    RULES[rule.code] = rule
    if rule.per_step and rule.check is not None:
        PER_STEP_CHECKS.add(rule.check)
    return rule


def rule(code: str, name: str, severity: Severity, summary: str, *, fixable: bool = False,
         per_step: bool = False) -> Callable[[Check], Check]:
    """Decorator: register the decorated function as the check of rule `code` (`per_step`: see `Rule.per_step`)."""

    def decorate(check: Check) -> Check:
        register(Rule(code, name, severity, summary, check, fixable, per_step))
        return check

    return decorate


def all_rules() -> dict[str, Rule]:
    """Every registered rule, importing the rule modules on first use."""
    from lobsterlang.lint.rules import (  # noqa: F401  (importing registers)
        approvals,
        meta,
        pipelines,
        programcode,
        programs,
        rawargs,
        references,
        robustness,
        shell,
        shellcheck,
        templates,
    )

    return RULES

