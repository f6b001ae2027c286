"""Placing comments walks only the collections around them: the same comments, owners and placements as a
walk of the whole document, wherever comments stand (a hypothesis property over real workflow files)."""

from __future__ import annotations

import pytest
from helpers import ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

from lobsterlang.span import LineIndex
from lobsterlang.syntax import comments
from lobsterlang.syntax.yamlload import compose_yaml

FILES = sorted(ROOT.glob("examples/*.lobster")) + sorted((ROOT / "tests" / "lint" / "corpus_real").glob("*.lobster"))[:20]
TEXTS = [path.read_text(encoding="utf-8") for path in FILES]


def placed(text: str, whole: bool) -> object:
    index = LineIndex(text)
    root, problems = compose_yaml(text, index)
    if problems:
        return None
    with pytest.MonkeyPatch.context() as patch:
        if whole:
            patch.setattr(comments, "_skippable", lambda *args: None)
        return comments.find_comments(root, text, index)


edits = st.lists(st.tuples(st.integers(0, 400), st.integers(0, 12), st.sampled_from(["own line", "trailing", "blank"])),
                 min_size=1, max_size=5)


@settings(max_examples=150, deadline=None)
@given(text=st.sampled_from(TEXTS), edits=edits)
def test_comments_anywhere_are_placed_as_by_a_whole_walk(text: str, edits: list[tuple[int, int, str]]) -> None:
    lines = text.split("\n")
    for number, (line, column, kind) in enumerate(edits):
        at = line % (len(lines) + 1)
        if kind == "own line":
            lines.insert(at, " " * column + f"# note {number}")
        elif kind == "trailing" and at < len(lines) and lines[at].strip():
            lines[at] += f"  # note {number}"
        else:
            lines.insert(at, "")
    edited = "\n".join(lines)
    assert placed(edited, whole=False) == placed(edited, whole=True)
