"""Every feature on every prefix of real files (what an editor sees while a file is typed): no exception, ever."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import EXAMPLES
from lobsterlang_lsp import assist, editing, views
from lobsterlang_lsp.documents import Documents
from lobsterlang_lsp.hovers import hover_text

from lobsterlang.query.at import at_offset

SAMPLES = ["pr-monitor.lobster", "foreach.lobster", "parallel-fetch.lobster", "compose.lobster"]


def every_feature(documents: Documents, uri: str, text: str, version: int) -> None:
    analysis = documents.analysis(uri, text, version)
    documents.findings(analysis)
    for offset in {0, len(text) // 2, max(0, len(text) - 1), len(text)}:
        assist.complete(analysis, offset, markdown=True)
        if analysis.workflow is not None:
            hit = at_offset(analysis.workflow, text, offset)
            if hit is not None:
                hover_text(analysis, hit)
    views.encoded_tokens(analysis)
    views.inlay_hints(analysis, 0, len(text))
    views.links(analysis, tooltip=True)
    assist.folding(analysis)
    assist.code_lenses(analysis)
    editing.whole_document(analysis)
    editing.approval_action(analysis, len(text) // 2)


@pytest.mark.parametrize("name", SAMPLES)
def test_every_prefix_of_an_example(name: str) -> None:
    path = EXAMPLES / name
    text = path.read_text(encoding="utf-8")
    documents = Documents()
    documents.dirty.add(path.as_uri())  # no shellcheck process per prefix
    step = max(1, len(text) // 150)
    for version, end in enumerate(range(0, len(text) + 1, step)):
        every_feature(documents, path.as_uri(), text[:end], version)


@pytest.mark.parametrize("text", [
    "", "\n", "steps", "steps:", "steps:\n  -", "steps:\n  - id:", "- a\n- b\n", "[1, 2", "steps: {a: 1}", "\t\x00\ufeff",
    "steps:\n  - id: a\n    pipeline: \"exec --json |\n", "steps:\n  - id: a\n    run: echo ${\n", "steps:\n  - id: a\n    when: $\n",
    "steps:\n  - id: 🦞\n    run: echo $🦞.json\n", "args: 3\nsteps:\n  - id: a\n    for_each: 3\n    steps: 4\n",
])
def test_odd_documents(text: str, tmp_path: Path) -> None:
    documents = Documents()
    uri = (tmp_path / "odd.lobster").as_uri()
    documents.dirty.add(uri)
    every_feature(documents, uri, text, 1)
