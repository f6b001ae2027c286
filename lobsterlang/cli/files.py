"""File input and output for commands: reading sources and atomic writes."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from lobsterlang.cli.usage import workflow_path_problem

if TYPE_CHECKING:
    import click


def read_workflow_bytes(path: str, stdin_filename: str | None) -> tuple[bytes, str]:
    """Read a workflow file (or stdin for `-`); usage problems raise click.UsageError."""
    found = workflow_source(path, stdin_filename)
    if isinstance(found, str):
        raise _usage_error(found)
    return found


def workflow_source(path: str, stdin_filename: str | None) -> tuple[bytes, str] | str:
    """A workflow file's bytes and the name to report (stdin for `-`), or what is wrong with `path`."""
    if path == "-":
        return sys.stdin.buffer.read(), stdin_filename or "<stdin>"
    problem = workflow_path_problem(path)
    if problem is not None:
        return problem
    try:
        return Path(path).read_bytes(), path
    except OSError as exc:
        return f"cannot read {path}: {exc.strerror or exc}"


def write_atomic(path: str, text: str) -> None:
    """Write `text` to `path` via a temporary file and rename, so no reader sees half a file.

    The file gets the mode a plain `open()` would give it (0666 less the umask, or the
    existing file's mode). Problems with the path raise click.UsageError.
    """
    target = Path(path)
    if target.is_dir():
        raise _usage_error(f"{path}: is a directory")
    if not target.parent.is_dir():
        raise _usage_error(f"{path}: directory {target.parent} does not exist")
    import tempfile  # only when writing: it costs start-up time otherwise

    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise _usage_error(f"cannot write {path}: {exc.strerror or exc}") from None
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


def _usage_error(message: str) -> click.UsageError:
    """click's usage error, imported only when there is one (the compile fast path has no click)."""
    import click

    return click.UsageError(message)
