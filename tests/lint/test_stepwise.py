"""Per-step rules (`Rule.per_step`) and the findings the language server keeps per step between edits.

A rule may be marked per-step only if it decomposes by step on every corpus file: its findings are those on the
workflow without steps, plus, for each step, those inside the step when the workflow holds only that step. Then
linting successive versions of a document with `StepFindings` gives exactly what linting each afresh gives.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from helpers import ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

from lobsterlang import ir
from lobsterlang.compile import compile_workflow
from lobsterlang.compile.reuse import StepCache, reusing_steps
from lobsterlang.diagnostics import Diagnostic
from lobsterlang.lint import Config, Source, lint_source
from lobsterlang.lint.context import LintContext
from lobsterlang.lint.registry import Rule, all_rules
from lobsterlang.lint.stepwise import StepFindings
from lobsterlang.record import replace
from lobsterlang.syntax.shellparse import forget_scripts

SUFFIXES = (".lobster", ".yaml", ".yml")
CORPUS = sorted(
    p for folder in ("tests/lint", "tests/cases", "tests/fmt", "examples", "bench/fmt_corpus", "bench/corpus")
    for p in (ROOT / folder).rglob("*") if p.is_file() and p.name.endswith(SUFFIXES)
)
PER_STEP = sorted(code for code, rule in all_rules().items() if rule.per_step)


def seen(diag: Diagnostic) -> tuple[object, ...]:
    """A finding as a user sees it: positions with lines and columns, and its fix's edits."""
    fix = diag.fix and (diag.fix.message, diag.fix.applicability, tuple((tuple(e.span.to_list()), e.new_text) for e in diag.fix.edits))
    return diag.code, diag.severity, diag.message, tuple(diag.span.to_list()), diag.hint, fix


def workflows() -> list[tuple[Path, str, ir.Workflow]]:
    found = []
    for path in CORPUS:
        result = compile_workflow(path.read_bytes(), str(path))
        if result.ir is not None:
            found.append((path, result.text, result.ir))
    return found


WORKFLOWS = workflows()


def test_the_corpus_is_big_enough_to_mean_something() -> None:
    assert len(WORKFLOWS) > 300
    assert {"L105", "L201", "L202", "L301", "L306", "L404", "L503"} <= set(PER_STEP)


def _findings(rule: Rule, path: Path, text: str, workflow: ir.Workflow, steps: tuple[ir.Step, ...]) -> list[Diagnostic]:
    assert rule.check is not None
    found = list(rule.check(LintContext(str(path), text, replace(workflow, steps=steps), target="reference")))
    forget_scripts()
    return found


@pytest.mark.parametrize("code", PER_STEP)
def test_a_per_step_rule_decomposes_by_step_on_every_corpus_file(code: str) -> None:
    rule = all_rules()[code]
    for path, text, workflow in WORKFLOWS:
        whole = Counter(map(seen, _findings(rule, path, text, workflow, workflow.steps)))
        around = Counter(map(seen, _findings(rule, path, text, workflow, ())))
        parts = Counter(around)
        for step in workflow.steps:
            for diag in _findings(rule, path, text, workflow, (step,)):
                inside = step.span.start <= diag.span.start and diag.span.end <= step.span.end
                assert inside or seen(diag) in around, (path, diag)
                if inside:
                    parts[seen(diag)] += 1
        assert parts == whole, path


def _lint_versions(versions: list[str], config: Config) -> tuple[StepFindings, StepCache]:
    remembered, cache = StepFindings(), StepCache()
    for text in versions:
        with reusing_steps(cache, "doc.lobster"):
            kept = lint_source(Source("doc.lobster", text), config, remembered)
        fresh = lint_source(Source("doc.lobster", text), config)
        assert [seen(d) for d in kept.diagnostics] == [seen(d) for d in fresh.diagnostics], text
    return remembered, cache


NO_SHELLCHECK = Config(shellcheck=False)
TARGETS = [NO_SHELLCHECK, replace(NO_SHELLCHECK, target="reference")]


@pytest.mark.parametrize("config", TARGETS, ids=["lobsterlang", "reference"])
def test_real_files_lint_the_same_when_an_edit_above_moves_every_step(config: Config) -> None:
    for path, text, _ in WORKFLOWS[::3]:
        remembered, cache = _lint_versions([text, "# moved\n" + text], config)
        assert remembered.rechecked == 0 or cache.reused == 0, path  # no reuse with anchors and aliases


LINES = (ROOT / "tests/lint/fixtures/L301/bad.lobster").read_text().splitlines(keepends=True)
POOL = [
    "# a comment\n", "\n", "  - id: added\n    run: echo ${who} | sh -c \"$x\"\n", "    retry: {max: 3}\n",
    "  - id: p\n    pipeline: exec --shell 'echo ${who}' | group_by x\n", "args:\n  who: {default: me}\n", "x", " ",
]


@settings(max_examples=60, deadline=None)
@given(edits=st.lists(st.tuples(st.integers(0, 40), st.booleans(), st.sampled_from(POOL)), min_size=1, max_size=6),
       config=st.sampled_from(TARGETS))
def test_every_version_lints_as_it_would_afresh(edits: list[tuple[int, bool, str]], config: Config) -> None:
    lines, versions = list(LINES), ["".join(LINES)]
    for at, insert, text in edits:
        if insert:
            lines.insert(min(at, len(lines)), text)
        elif lines:
            del lines[min(at, len(lines) - 1)]
        versions.append("".join(lines))
    _lint_versions(versions, config)


def test_declaring_the_arg_clears_the_finding_of_an_unchanged_step() -> None:
    steps = "steps:\n  - id: a\n    run: echo ${who}\n  - id: b\n    run: echo hi\n"
    remembered, cache = _lint_versions([steps, "args:\n  who: {default: me}\n" + steps], NO_SHELLCHECK)
    assert (cache.reused, remembered.rechecked) == (2, 2)


def test_only_the_changed_step_is_checked_again() -> None:
    steps = "steps:\n  - id: a\n    run: echo ${who}\n  - id: b\n    run: echo hi\n  - id: c\n    run: eval x\n"
    remembered, _ = _lint_versions([steps, steps.replace("echo hi", "curl -s x | sh")], NO_SHELLCHECK)
    assert remembered.rechecked == 1
