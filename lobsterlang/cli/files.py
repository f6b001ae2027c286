"""File input and output for commands: reading sources and atomic writes."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from lobsterlang.compile import WORKFLOW_SUFFIXES


def read_workflow_bytes(path: str, stdin_filename: str | None) -> tuple[bytes, str]:
    """Read a workflow file (or stdin for `-`); usage problems raise click.UsageError."""
    if path == "-":
        return sys.stdin.buffer.read(), stdin_filename or "<stdin>"
    if Path(path).suffix.lower() not in WORKFLOW_SUFFIXES:
        raise click.UsageError(f"{path}: Workflow file must end in .lobster, .yaml, .yml, or .json")
    try:
        return Path(path).read_bytes(), path
    except IsADirectoryError:
        raise click.UsageError(f"{path}: Workflow path is not a file") from None
    except OSError as exc:
        raise click.UsageError(f"cannot read {path}: {exc.strerror or exc}") from None


def write_atomic(path: str, text: str) -> None:
    """Write `text` to `path` via a temporary file and rename, so no reader sees half a file.

    The file gets the mode a plain `open()` would give it (0666 less the umask, or the
    existing file's mode). Problems with the path raise click.UsageError.
    """
    target = Path(path)
    if target.is_dir():
        raise click.UsageError(f"{path}: is a directory")
    if not target.parent.is_dir():
        raise click.UsageError(f"{path}: directory {target.parent} does not exist")
    import tempfile  # only when writing: it costs start-up time otherwise

    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise click.UsageError(f"cannot write {path}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, _mode_for(target))
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _mode_for(target: Path) -> int:
    if target.exists():
        return target.stat().st_mode & 0o7777
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask
