"""The lint cache believes nothing it did not seal: a crafted entry, a symlinked subfolder, a FIFO or a device in the
cache is a miss (the file is linted again) and nothing is written outside it; the folder and its key are private;
temporary files of a killed writer are swept by the next run."""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from input_guards import bounded_memory, fifo_released

from lobsterlang.cli import main

Capture = pytest.CaptureFixture[str]
BROKEN = "steps:\n  - id: a\n    run: cat\n    stdin: $nope.json\n"


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("LOBSTER_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache" / "lint"


def lint(path: Path, capsys: Capture, fifo: Path | None = None) -> tuple[int, str]:
    with fifo_released(fifo), bounded_memory():
        code = main(["lint", "--no-shellcheck", str(path)])
    return code, capsys.readouterr().out


def _linted_once(tmp_path: Path, cache: Path, capsys: Capture) -> tuple[Path, Path, str]:
    """A file with an error, linted once (so the cache holds its entry); the file, the entry and the output."""
    path = tmp_path / "flow.lobster"
    path.write_text(BROKEN, encoding="utf-8")
    code, out = lint(path, capsys)
    assert code == 1 and "L101" in out, out
    [entry] = [p for p in cache.rglob("*.json") if p.parent.name not in ("versions", "tmp")]
    return path, entry, out


def test_a_crafted_entry_cannot_hide_an_error(tmp_path: Path, cache: Path, capsys: Capture) -> None:
    path, entry, first = _linted_once(tmp_path, cache, capsys)
    crafted = re.sub(rb'"findings":\[.*?\]\]\]?(?=[,}])', b'"findings":[]', entry.read_bytes(), count=1, flags=re.S)
    assert crafted != entry.read_bytes()
    entry.write_bytes(crafted)
    assert lint(path, capsys) == (1, first)


def test_a_symlinked_subfolder_is_never_written_through(tmp_path: Path, cache: Path, capsys: Capture) -> None:
    path, entry, first = _linted_once(tmp_path, cache, capsys)
    outside = tmp_path / "outside"
    outside.mkdir()
    folder = entry.parent
    for old in folder.iterdir():
        old.unlink()
    folder.rmdir()
    folder.symlink_to(outside)
    assert lint(path, capsys) == (1, first)
    assert list(outside.iterdir()) == []


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_a_special_file_entry_is_a_miss(kind: str, tmp_path: Path, cache: Path, capsys: Capture) -> None:
    path, entry, first = _linted_once(tmp_path, cache, capsys)
    entry.unlink()
    if kind == "fifo":
        os.mkfifo(entry)
    else:
        entry.symlink_to("/dev/zero")
    assert lint(path, capsys, entry if kind == "fifo" else None) == (1, first)


def test_the_folder_and_its_key_are_private(tmp_path: Path, cache: Path, capsys: Capture) -> None:
    _linted_once(tmp_path, cache, capsys)
    assert stat.S_IMODE(cache.stat().st_mode) == 0o700
    assert stat.S_IMODE((cache / "key").stat().st_mode) == 0o600
    (cache / "key").chmod(0o644)  # a key others can read is not trusted: a new one is made, the entries become misses
    _linted_once(tmp_path, cache, capsys)
    assert stat.S_IMODE((cache / "key").stat().st_mode) == 0o600


def test_temporary_files_of_a_killed_writer_are_swept(tmp_path: Path, cache: Path, capsys: Capture) -> None:
    _linted_once(tmp_path, cache, capsys)
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True)
    dead = cache / "tmp" / f".tmp-{int(gone.stdout)}-abc123"
    live = cache / "tmp" / f".tmp-{os.getpid()}-def456"
    dead.write_text("half an entry", encoding="utf-8")
    live.write_text("being written", encoding="utf-8")
    _linted_once(tmp_path, cache, capsys)
    assert not dead.exists() and live.exists()
