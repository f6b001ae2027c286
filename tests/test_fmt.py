"""`lobster fmt` guarantees over every example and case: meaning kept, comments kept, idempotent."""

from __future__ import annotations

from pathlib import Path

import pytest
from fmt_helpers import FMT, check_guarantees, compiled, formattable_files
from helpers import ROOT

from lobsterlang import ir
from lobsterlang.fmt import FormatError, format_text, format_workflow
from lobsterlang.fmt.meaning import meaning

FILES = formattable_files()


def _actions(step: ir.Step) -> list[object]:
    if isinstance(step.action, ir.ForEach):
        return [sub.action for sub in step.action.steps]
    if isinstance(step.action, ir.Parallel):
        return [branch.action for branch in step.action.branches]
    return [step.action]


def _shell_texts(workflow: ir.Workflow) -> list[str]:
    """The shell text of every run:/command: as written (for the byte-for-byte check)."""
    return [a.command.text for step in workflow.steps for a in _actions(step) if isinstance(a, ir.ShellRun)]


def test_the_corpus_is_substantial() -> None:
    assert len(FILES) >= 30


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_guarantees(path: Path) -> None:
    name = str(path.relative_to(ROOT))
    check_guarantees(path.read_text(encoding="utf-8"), name)


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_shell_text_is_unchanged(path: Path) -> None:
    name = str(path.relative_to(ROOT))
    text = path.read_text(encoding="utf-8")
    assert _shell_texts(compiled(format_text(text, name), name)) == _shell_texts(compiled(text, name))


@pytest.mark.parametrize("path", sorted(FMT.glob("identity/*")), ids=lambda p: p.name)
def test_identity_fixtures(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert format_text(text, path.name) == text


@pytest.mark.parametrize("path", sorted(FMT.glob("pretty/*.in.*")), ids=lambda p: p.name)
def test_pretty_pairs(path: Path) -> None:
    expected = path.with_name(path.name.replace(".in.", ".out."))
    name = path.name.replace(".in.", ".")
    out = check_guarantees(path.read_text(encoding="utf-8"), name)
    assert out == expected.read_text(encoding="utf-8")


@pytest.mark.parametrize("path", sorted(FMT.glob("canonical/*.in.*")), ids=lambda p: p.name)
def test_canonical_pairs(path: Path) -> None:
    """Text written from IR (`emit`, `--from-ir`, the builder) is canonical: key order, quoting, layout."""
    expected = path.with_name(path.name.replace(".in.", ".out."))
    name = path.name.replace(".in.", ".")
    workflow = compiled(path.read_text(encoding="utf-8"), name)
    out = format_workflow(workflow, as_json=name.endswith(".json"))
    assert out == expected.read_text(encoding="utf-8")
    assert meaning(compiled(out, name)) == meaning(workflow)
    assert format_workflow(compiled(out, name), as_json=name.endswith(".json")) == out


def test_files_with_errors_are_refused() -> None:
    with pytest.raises(FormatError) as info:
        format_text("steps:\n  - id: a\n", "broken.lobster")
    assert [d.code for d in info.value.diagnostics if d.is_error] == ["S110"]
