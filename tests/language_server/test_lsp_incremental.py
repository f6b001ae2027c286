"""Diagnostics after each edit of a run equal those a fresh server computes for the text (no stale state), though
unchanged steps keep their IR, lint findings and related names from version to version."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lobsterlang_lsp.convert import Capabilities, diagnostic
from lobsterlang_lsp.documents import Analysis, Documents
from lsprotocol import types

from lobsterlang.query.names import Occurrence

URI = "file:///nowhere/flow.lobster"
START = """\
args:
  repo:
    default: o/r
steps:
  - id: setup
    run: curl -s https://example.com/install.sh | sh
  - id: fetch
    run: gh pr list --repo ${repo} --json
  - id: gate
    approval: required
  - id: post
    run: curl -X POST https://example.com/hook
    stdin: $fetch.json
    when: $gate.approved
    retry: {max: 2}
"""
SNIPPETS = [
    "  - id: fetch\n    run: echo again\n",  # a duplicate id
    "  - id: early\n    run: cat\n    stdin: $late.json\n",  # a forward reference
    "  - id: late\n    pipeline: \"exec --json --shell 'ls' | where 'n>2'\"\n",
    "    when: $post.approved\n",
    "    run: rm -rf /tmp/x\n",
    "# a comment 🦞\n",
    "  - id: gate\n    approval: required\n",
    "    bad: [unclosed\n",
    "  - id: step${repo}\n    run: echo ${missing}\n",
    "\n",
    "    retry: {max: 3}\n",  # a retried side effect (a per-step rule)
    "  - id: install\n    run: curl -s https://x.sh | sh && eval \"$fetch.stdout\"\n",
]
CAPS = Capabilities(
    types.ClientCapabilities(
        text_document=types.TextDocumentClientCapabilities(
            publish_diagnostics=types.PublishDiagnosticsClientCapabilities(related_information=True, code_description_support=True)
        )
    ),
    pull=False,
)

Edit = tuple[str, float, int]
EDITS = st.lists(st.tuples(st.sampled_from(["insert", "delete", "type"]), st.floats(0, 1), st.integers(0, len(SNIPPETS) - 1)), max_size=6)


def lsp_diagnostics(documents: Documents, text: str, version: int) -> list[types.Diagnostic]:
    documents.dirty.add(URI)  # edited text: no shellcheck process
    analysis = documents.analysis(URI, text, version)
    return [diagnostic(d, analysis, CAPS) for d in documents.findings(analysis)]


def edited(text: str, edit: Edit) -> str:
    """Insert a snippet at a line start, delete a line, or type one character at any offset."""
    kind, where, which = edit
    lines = text.splitlines(keepends=True)
    line = min(int(where * len(lines)), len(lines))
    if kind == "insert":
        return "".join([*lines[:line], SNIPPETS[which], *lines[line:]])
    if kind == "delete":
        return "".join(lines[:line] + lines[line + 1 :])
    offset = int(where * len(text))
    return text[:offset] + "x:-$ '\"{"[which % 8] + text[offset:]


@settings(max_examples=60, deadline=None)
@given(EDITS)
def test_edits_give_the_diagnostics_of_a_fresh_start(edits: list[Edit]) -> None:
    documents, text = Documents(), START
    lsp_diagnostics(documents, text, 1)
    for version, edit in enumerate(edits, start=2):
        text = edited(text, edit)
        assert lsp_diagnostics(documents, text, version) == lsp_diagnostics(Documents(), text, 1)
        _ = documents.analysis(URI, text, version).occurrences  # what a hover or rename between edits computes


TYPO = START.replace("    when: $gate.approved\n", "    when: $gate.approved\n  - id: show\n    run: echo $fetch.jsn\n")


def _typo_span(documents: Documents, text: str, version: int) -> tuple[int, int]:
    [found] = [d for d in documents.analysis(URI, text, version).findings or () if d.code == "L108"]
    return found.span.start, found.span.end


def _typo(items: list[types.Diagnostic]) -> types.Diagnostic:
    [found] = [d for d in items if d.code == "L108"]
    return found


def test_a_findings_related_names_follow_its_step(monkeypatch: pytest.MonkeyPatch) -> None:
    """L108 makes a new finding at every lint, on the span of the IR's `$fetch.jsn`: the names under it are kept while
    that step is unchanged (its span the same object), moved with it, and looked up again once the step changes."""
    looked_up: list[tuple[int, int]] = []
    occurrences_in = Analysis.occurrences_in

    def noted(self: Analysis, start: int, end: int) -> list[Occurrence]:
        looked_up.append((start, end))
        return occurrences_in(self, start, end)

    monkeypatch.setattr(Analysis, "occurrences_in", noted)
    documents = Documents()
    first = _typo(lsp_diagnostics(documents, TYPO, 1))
    assert first.related_information is not None
    assert [r.message for r in first.related_information] == ["step `fetch` is defined here"]
    assert _typo_span(documents, TYPO, 1) in looked_up

    looked_up.clear()
    shifted_text = "# a line above\n" + TYPO
    shifted = _typo(lsp_diagnostics(documents, shifted_text, 2))
    assert _typo_span(documents, shifted_text, 2) not in looked_up
    assert shifted == _typo(lsp_diagnostics(Documents(), shifted_text, 1))
    assert (shifted.range.start.line, shifted.range.start.character) == (first.range.start.line + 1, first.range.start.character)
    assert shifted.message == first.message
    assert shifted.related_information is not None
    assert shifted.related_information[0].location.range.start.line == first.related_information[0].location.range.start.line + 1

    changed_text = shifted_text.replace("echo $fetch.jsn", "echo $setup.jsn")
    changed = _typo(lsp_diagnostics(documents, changed_text, 3))
    assert _typo_span(documents, changed_text, 3) in looked_up
    assert changed == _typo(lsp_diagnostics(Documents(), changed_text, 1))
    assert changed.related_information is not None
    assert [r.message for r in changed.related_information] == ["step `setup` is defined here"]
