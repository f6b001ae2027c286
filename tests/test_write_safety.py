"""`lobster fmt` and `lobster lint --fix` write what they mean to: through a symlink to its target, never over an
edit made while they worked, never over a read-only file unless told to (`fmt --force`)."""

from __future__ import annotations

import stat
from pathlib import Path
from typing import Any

import pytest
from helpers import write_file

from lobsterlang.cli import fmt_jobs, lint_cmd, main
from lobsterlang.fmt.api import format_parsed

Capture = pytest.CaptureFixture[str]
MESSY = "steps:\n- run: echo hi\n  id: a\n"
TIDY = "steps:\n  - run: echo hi\n    id: a\n"
FIXABLE = "steps:\n  - id: a\n    pipeline: llm.invoke --refresh 'Summarize'\n"
FIXED = "steps:\n  - id: a\n    pipeline: llm.invoke --refresh=true 'Summarize'\n"
EDITED = "steps:\n  - id: edited\n    run: echo by hand\n"


def lint_fix(path: Path) -> int:
    return main(["lint", "--fix", "--no-cache", "--no-shellcheck", str(path)])


@pytest.mark.parametrize("command", ["fmt", "lint"])
def test_a_symlink_is_written_through_and_stays_a_symlink(command: str, tmp_path: Path, capsys: Capture) -> None:
    target = write_file(tmp_path / "real", "flow.lobster", MESSY if command == "fmt" else FIXABLE)
    link = tmp_path / "link.lobster"
    link.symlink_to(target)
    assert (main(["fmt", str(link)]) if command == "fmt" else lint_fix(link)) == 0, capsys.readouterr()
    assert link.is_symlink() and link.resolve() == target
    assert target.read_text(encoding="utf-8") == (TIDY if command == "fmt" else FIXED)


def _editing_meanwhile(path: Path, original: Any) -> Any:
    """`original`, after someone saved `EDITED` into `path`: what happens between the read and the write."""
    def edit_then(*args: Any, **kwargs: Any) -> Any:
        path.write_text(EDITED, encoding="utf-8")
        return original(*args, **kwargs)

    return edit_then


def test_fmt_never_replaces_an_edit_made_while_it_formatted(tmp_path: Path, capsys: Capture,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    path = write_file(tmp_path, "flow.lobster", MESSY)
    monkeypatch.setattr(fmt_jobs, "format_parsed", _editing_meanwhile(path, format_parsed))
    assert main(["fmt", str(path)]) == 1
    assert path.read_text(encoding="utf-8") == EDITED
    assert f"{path}: not formatted: it changed while it was being formatted" in capsys.readouterr().err
    assert [p.name for p in tmp_path.iterdir()] == ["flow.lobster"]  # no temporary file left


def test_lint_fix_never_replaces_an_edit_made_while_it_fixed(tmp_path: Path, capsys: Capture,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    path = write_file(tmp_path, "flow.lobster", FIXABLE)
    monkeypatch.setattr(lint_cmd, "fix_source", _editing_meanwhile(path, lint_cmd.fix_source))
    lint_fix(path)
    assert path.read_text(encoding="utf-8") == EDITED
    assert f"{path}: not fixed: it changed while it was being fixed" in capsys.readouterr().err


def test_fmt_leaves_a_read_only_file_unless_forced(tmp_path: Path, capsys: Capture) -> None:
    path = write_file(tmp_path, "flow.lobster", MESSY)
    path.chmod(0o444)
    assert main(["fmt", str(path)]) == 1
    assert path.read_text(encoding="utf-8") == MESSY
    assert f"{path}: not formatted: the file is read-only (--force rewrites it)" in capsys.readouterr().err
    assert main(["fmt", "--check", str(path)]) == 1  # checking needs no write
    assert main(["fmt", "--force", str(path)]) == 0
    assert path.read_text(encoding="utf-8") == TIDY
    assert stat.S_IMODE(path.stat().st_mode) == 0o444  # still read-only


def test_lint_fix_leaves_a_read_only_file(tmp_path: Path, capsys: Capture) -> None:
    path = write_file(tmp_path, "flow.lobster", FIXABLE)
    path.chmod(0o444)
    assert lint_fix(path) == 1
    assert path.read_text(encoding="utf-8") == FIXABLE
    assert f"{path}: not fixed: the file is read-only" in capsys.readouterr().err
