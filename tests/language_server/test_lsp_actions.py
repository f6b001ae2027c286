"""Code actions in process: safe and unsafe fixes, suppressions that keep the file's meaning, the approval refactoring."""

from __future__ import annotations

import tempfile
from pathlib import Path

from lobsterlang_lsp.convert import Capabilities
from lobsterlang_lsp.documents import Analysis, Documents
from lobsterlang_lsp.editing import approval_action, fix_actions, suggestion_actions, suppress_actions
from lsprotocol import types

from lobsterlang.diagnostics import Diagnostic, Edit, Fix, Severity
from lobsterlang.query.fixes import suggested_edit
from lobsterlang.span import LineIndex

BLOCK = """\
args:
  who:
    default: me
steps:
  - id: greet
    run: |
      echo hello
      echo ${who}
"""


class UnsafeFix(Fix):
    """A fix as the linter may mark it (`applicability`), read defensively by the server."""

    applicability: str = "unsafe"


_REFERENCE_TARGET = Path(tempfile.mkdtemp(prefix="lobster-lsp-actions-"))
(_REFERENCE_TARGET / ".lobster.toml").write_text('[lint]\ntarget = "reference"\n', encoding="utf-8")
"""A folder whose config lints for the reference runtime, where a raw `${who}` in shell text is L301."""


def analysis_of(text: str) -> tuple[Documents, Analysis]:
    documents = Documents()
    uri = (_REFERENCE_TARGET / "flow.lobster").as_uri()
    documents.dirty.add(uri)
    return documents, documents.analysis(uri, text, 1)


CAPS = Capabilities(types.ClientCapabilities(), pull=False)


def test_unsafe_fixes_are_labelled_and_never_preferred() -> None:
    _, analysis = analysis_of(BLOCK)
    span = LineIndex(BLOCK).span(0, 4)
    safe = Diagnostic("L999", Severity.WARNING, "m", span, Fix("quote it", (Edit(span, "x"),)))
    unsafe = Diagnostic("L999", Severity.WARNING, "m", span, UnsafeFix("rewrite it", (Edit(span, "x"),)))
    first, second = fix_actions(analysis, [safe, unsafe], CAPS)
    assert (first.title, first.is_preferred) == ("quote it", True)
    assert second.title.startswith("rewrite it (unsafe") and not second.is_preferred


def test_a_line_comment_inside_a_block_script_is_not_offered() -> None:
    documents, analysis = analysis_of(BLOCK)
    findings = [d for d in documents.findings(analysis) if d.code == "L301"]
    assert findings, "the raw ${who} in the script is a finding"
    titles = [a.title for a in suppress_actions(analysis, findings, CAPS)]
    assert titles == ["Suppress L301 for step greet"]


def test_suppressing_for_the_step_silences_the_finding() -> None:
    documents, analysis = analysis_of(BLOCK)
    [finding] = [d for d in documents.findings(analysis) if d.code == "L301"]
    [action] = suppress_actions(analysis, [finding], CAPS)
    assert action.edit is not None and action.edit.changes is not None
    [edit] = action.edit.changes[analysis.uri]
    text = BLOCK.replace("  - id: greet\n", edit.new_text + "  - id: greet\n")
    later = documents.analysis(analysis.uri, text, 2)
    assert "L301" not in {d.code for d in documents.findings(later)}


def test_no_approval_offered_where_there_is_no_side_effect_or_one_already() -> None:
    _, analysis = analysis_of(BLOCK)
    assert approval_action(analysis, BLOCK.index("echo hello")) is None
    gated = "steps:\n  - id: ok\n    approval: sure?\n  - id: post\n    run: curl -X POST https://x\n"
    _, analysis = analysis_of(gated)
    assert approval_action(analysis, gated.index("curl")) is None


def test_capabilities_follow_the_client() -> None:
    bare = Capabilities(types.ClientCapabilities(), pull=False)
    assert not bare.related and not bare.code_description and not bare.completion_markdown


def test_inlay_hints_show_defaults_of_flags_left_out() -> None:
    from lobsterlang_lsp.views import inlay_hints

    text = "steps:\n  - id: a\n    pipeline: exec --json --shell 'ls' | head\n  - id: b\n    pipeline: exec --json --shell 'ls' | head --n 3\n"
    _, analysis = analysis_of(text)
    labels = [(h.position.line, str(h.label)) for h in inlay_hints(analysis, 0, len(text))]
    assert labels == [(2, " --n 10")]


def test_the_added_approval_gates_the_side_effect_for_the_linter_too() -> None:
    text = "steps:\n  - id: fetch\n    run: echo hi\n  - id: post\n    run: curl -X POST https://example.com/hook\n"
    documents, analysis = analysis_of(text)
    assert "L401" in {d.code for d in documents.findings(analysis)}
    action = approval_action(analysis, text.index("curl"))
    assert action is not None and action.edit is not None and action.edit.changes is not None
    [edit] = action.edit.changes[analysis.uri]
    gated = text.replace("  - id: post\n", edit.new_text + "  - id: post\n")
    later = documents.analysis(analysis.uri, gated, 2)
    assert later.result.ok and "L401" not in {d.code for d in documents.findings(later)}


def test_dry_run_of_a_workflow_that_fails_to_plan_is_an_error_text() -> None:
    from lobsterlang_lsp.views import dry_run_text

    _, analysis = analysis_of("steps:\n  - id: p\n    pipeline: nosuchcmd --x\n")
    assert dry_run_text(analysis) == "Error: Workflow step p pipeline references unknown command: nosuchcmd"
    _, analysis = analysis_of("steps: [")
    assert dry_run_text(analysis).startswith("Error: ")


TYPOS = """\
args:
  name: {default: x}
steps:
  - id: list
    run: echo ${nme}
    retries: 2
  - id: sorted
    pipeline: sort --kye a | pikc a
    stdin: $lst.json
"""


def test_every_did_you_mean_is_a_quick_fix_that_removes_its_finding() -> None:
    documents, analysis = analysis_of(TYPOS)
    meant = [d for d in documents.findings(analysis) if "did you mean" in (d.hint or "")]
    assert sorted(d.code for d in meant) == ["L101", "L105", "L201", "L202", "W001"]
    titles = [a.title for a in suggestion_actions(analysis, meant, CAPS)]
    assert "Change `pikc` to `pick`" in titles and "Change `$lst` to `$list`" in titles
    for finding in meant:
        [action] = suggestion_actions(analysis, [finding], CAPS)
        assert action.kind == types.CodeActionKind.QuickFix and not action.is_preferred
        assert action.edit is not None and action.edit.changes is not None
        [edit] = action.edit.changes[analysis.uri]
        fixed = apply_lsp_edit(TYPOS, edit)
        fresh, later = analysis_of(fixed)  # (a later version of the same document would move the spans of this one)
        assert finding.code not in {d.code for d in fresh.findings(later)}, (action.title, fixed)


def test_a_suggestion_is_offered_only_where_the_name_is_written_as_is() -> None:
    quoted = 'steps:\n  - id: a\n    run: echo hi\n    "retries": 2\n'
    documents, analysis = analysis_of(quoted)
    [finding] = [d for d in documents.findings(analysis) if d.code == "W001"]
    assert suggested_edit(finding, quoted) == (quoted.index("retries"), quoted.index("retries") + len("retries"), "retry")
    escaped = 'steps:\n  - id: a\n    pipeline: "exec --json --shell x | p\\x69kc a"\n'  # `pikc`, written with an escape
    documents, analysis = analysis_of(escaped)
    [finding] = [d for d in documents.findings(analysis) if d.code == "L201"]
    assert "did you mean `pick`" in (finding.hint or "") and suggested_edit(finding, escaped) is None


def test_every_did_you_mean_of_the_corpus_has_an_edit() -> None:
    """Every workflow file of the tests and examples: each finding that suggests a name can be fixed by writing it,
    by its own fix (S121's `$ok.aproved`, which then gets no second, suggested edit) or by the suggested edit."""
    from helpers import EXAMPLES, ROOT

    from lobsterlang.lint import Config, Source, lint_source

    files = sorted((ROOT / "tests").rglob("*.lobster")) + sorted(EXAMPLES.rglob("*.lobster"))
    meant = 0
    for path in files:
        text = path.read_text(encoding="utf-8")
        for finding in lint_source(Source(str(path), text), Config(shellcheck=False)).diagnostics:
            if "did you mean" in (finding.hint or ""):
                meant += 1
                if finding.fix is not None:
                    written = (finding.hint or "").split("`")[1]
                    assert [e.new_text for e in finding.fix.edits] == [written], (path, finding)
                else:
                    assert suggested_edit(finding, text) is not None, (path, finding)
    assert meant >= 5


def apply_lsp_edit(text: str, edit: types.TextEdit) -> str:
    lines = text.splitlines(keepends=True)
    start = sum(map(len, lines[: edit.range.start.line])) + edit.range.start.character
    end = sum(map(len, lines[: edit.range.end.line])) + edit.range.end.character
    return text[:start] + edit.new_text + text[end:]


def test_a_gate_field_typo_inside_a_loop_is_shown_and_fixed_after_an_edit() -> None:
    """S121 on a loop's own approval sub-step, in a version whose other steps the server compiled before."""
    text = ("steps:\n  - id: files\n    run: echo '[1]'\n  - id: each\n    for_each: $files.json\n    steps:\n"
            "      - id: approve\n        approval: Delete it?\n      - id: rm\n        run: echo rm\n"
            "        when: $approve.approved\n")
    typo_is_shown_and_fixed_after_an_edit(text, 11)


def typo_is_shown_and_fixed_after_an_edit(text: str, line: int) -> None:
    """`$approve.approved` in `text` made `$approve.aproved` by an edit: S121 on `line`, and its code action undoes it."""
    documents, first = analysis_of(text)
    assert "S121" not in {d.code for d in documents.findings(first)}
    typo = text.replace("$approve.approved", "$approve.aproved")
    later = documents.analysis(first.uri, typo, 2)
    [finding] = [d for d in documents.findings(later) if d.code == "S121"]
    assert finding.span.line == line and finding.hint == "did you mean `$approve.approved`?"
    [action] = fix_actions(later, [finding], CAPS)
    assert action.title == "read `$approve.approved`" and action.edit is not None and action.edit.changes is not None
    [edit] = action.edit.changes[later.uri]
    assert apply_lsp_edit(typo, edit) == text


def test_a_gate_field_typo_in_an_env_value_is_shown_and_fixed_after_an_edit() -> None:
    """S121 in a loop's `env:` (rendered for each of its sub-steps) after an edit, with its fix as a code action."""
    text = ("steps:\n  - id: approve\n    approval: Delete them?\n  - id: each\n    for_each: $approve.json\n"
            "    env:\n      OK: $approve.approved\n    steps:\n      - id: rm\n        run: echo \"$OK\"\n")
    typo_is_shown_and_fixed_after_an_edit(text, 7)
