"""Formatting never loses a comment: one after a byte-order mark is seen, and a result that dropped one is refused,
also when the compiler could not see it (the `#` count owes nothing to the comment scanner)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lobsterlang.cli import main
from lobsterlang.compile import compile_workflow
from lobsterlang.fmt import api
from lobsterlang.fmt.comments import with_comments

Capture = pytest.CaptureFixture[str]
BOM = b"\xef\xbb\xbf"
HEADED = b"# licence header\nsteps:\n- id: a\n  run: echo hi  # greet\n"


def test_a_header_comment_after_a_byte_order_mark_is_kept(tmp_path: Path, capsys: Capture) -> None:
    path = tmp_path / "flow.lobster"
    path.write_bytes(BOM + HEADED)
    assert [c.text for c in compile_workflow(path.read_bytes(), str(path)).ir.comments] == ["# licence header", "# greet"]  # type: ignore[union-attr]
    assert main(["fmt", str(path)]) == 0
    assert path.read_bytes() == b"# licence header\nsteps:\n  - id: a\n    run: echo hi  # greet\n"


def test_the_byte_order_mark_is_dropped_by_every_way_in(tmp_path: Path, capsys: Capture, monkeypatch: pytest.MonkeyPatch) -> None:
    """A YAML file's BOM is dropped (UTF-8 needs none): `--check` says the file would change, stdin loses it too, and the
    result is stable."""
    path = tmp_path / "flow.lobster"
    path.write_bytes(BOM + b"steps:\n  - id: a\n    run: echo hi\n")
    assert main(["fmt", "--check", str(path)]) == 1
    assert capsys.readouterr().out == f"would reformat {path}\n"
    import io

    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(path.read_bytes())))
    assert main(["fmt", "-"]) == 0
    assert capsys.readouterr().out == "steps:\n  - id: a\n    run: echo hi\n"
    assert main(["fmt", str(path)]) == 0 and not path.read_bytes().startswith(BOM)
    assert main(["fmt", "--check", str(path)]) == 0


def test_a_result_that_lost_a_comment_is_refused(tmp_path: Path, capsys: Capture, monkeypatch: pytest.MonkeyPatch) -> None:
    """The meaning check ignores comments; the comment check does not."""
    path = tmp_path / "flow.lobster"
    path.write_bytes(HEADED)

    def dropping_the_last(layout: Any, comments: tuple[Any, ...], gap: bool) -> list[str]:
        return original(layout, comments[:-1], gap)

    original = with_comments
    monkeypatch.setattr(api, "with_comments", dropping_the_last)
    assert main(["fmt", str(path)]) == 1
    assert path.read_bytes() == HEADED
    assert "not formatted: the result would change what it means or lose a comment" in capsys.readouterr().err


def test_a_comment_the_compiler_did_not_see_still_counts() -> None:
    source = "steps:\n  - id: a\n    run: echo hi\n# unseen\n"
    without = "steps:\n  - id: a\n    run: echo hi\n"
    blind = compile_workflow(without, "flow.lobster").ir  # what a scanner that missed the comment would give
    assert blind is not None
    assert api.verified(blind, without, "flow.lobster")
    assert not api.verified(blind, without, "flow.lobster", source)
