"""File input and output for commands: reading sources and atomic writes."""

from __future__ import annotations

import fnmatch
import os
import re
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


LOBSTER_SUFFIXES = (".lobster", ".lobster.yaml", ".lobster.yml", ".lobster.json")
"""Files a directory search always takes; other `.yaml`/`.yml`/`.json` files only when they are workflows."""
_SKIP_DIRS = frozenset({"node_modules", "venv", "__pycache__"})
_STEPS_KEY = re.compile(rb'^steps\s*:|"steps"\s*:', re.M)
"""A quick test for a top-level `steps:` before parsing a candidate file."""


def workflows_under(directory: Path, exclude: tuple[str, ...] = ()) -> list[Path]:
    """Workflow files below `directory` in sorted order: `*.lobster*`, and `.yaml`/`.yml`/`.json` files whose top level
    has a `steps:` list of mappings with `id` (as ruff finds Python files).

    Hidden directories, virtualenvs and `node_modules` are skipped, and so are paths matching an
    `exclude` glob or ignored by a `.gitignore` at or below `directory`.
    """
    out: list[Path] = []
    ignores: list[tuple[Path, list[str]]] = []
    for root, dirs, files in os.walk(directory):
        here = Path(root)
        patterns = _gitignore(here)
        if patterns:
            ignores.append((here, patterns))
        dirs[:] = sorted(d for d in dirs if not _skipped(here / d, d, exclude, ignores, directory))
        for name in sorted(files):
            path = here / name
            if not _skipped(path, name, exclude, ignores, directory) and _is_workflow(path):
                out.append(path)
    return out


def _skipped(path: Path, name: str, exclude: tuple[str, ...], ignores: list[tuple[Path, list[str]]], top: Path) -> bool:
    if path.is_dir() and (name.startswith(".") or name in _SKIP_DIRS or name.endswith("venv")):
        return True
    relative = path.relative_to(top).as_posix()
    if any(fnmatch.fnmatch(relative, p) or fnmatch.fnmatch(name, p) or fnmatch.fnmatch(relative, p.rstrip("/") + "/*") for p in exclude):
        return True
    return any(_gitignored(path, base, patterns) for base, patterns in ignores if base in path.parents)


def _gitignore(directory: Path) -> list[str]:
    """The patterns of `directory/.gitignore` (negations are not supported and are left out)."""
    try:
        lines = (directory / ".gitignore").read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return []
    return [line.strip() for line in lines if line.strip() and not line.startswith(("#", "!"))]


def _gitignored(path: Path, base: Path, patterns: list[str]) -> bool:
    relative = path.relative_to(base).as_posix()
    for pattern in patterns:
        if pattern.endswith("/") and not path.is_dir():
            continue
        bare = pattern.strip("/")
        anchored = "/" in pattern.rstrip("/")
        if fnmatch.fnmatch(relative, bare) or (not anchored and fnmatch.fnmatch(path.name, bare)):
            return True
    return False


def _is_workflow(path: Path) -> bool:
    name = path.name.lower()
    if name.endswith(LOBSTER_SUFFIXES):
        return True
    if path.suffix.lower() not in (".yaml", ".yml", ".json"):
        return False
    try:
        data = path.read_bytes()
    except OSError:
        return False
    return _STEPS_KEY.search(data) is not None and _has_steps(data, name.endswith(".json"))


def _has_steps(data: bytes, is_json: bool) -> bool:
    """Whether the document's top level is a mapping with a `steps:` list of mappings that have an `id`."""
    import json

    import yaml

    try:
        document = json.loads(data) if is_json else yaml.safe_load(data)
    except (ValueError, yaml.YAMLError):
        return False
    steps = document.get("steps") if isinstance(document, dict) else None
    return isinstance(steps, list) and bool(steps) and all(isinstance(s, dict) and "id" in s for s in steps)
