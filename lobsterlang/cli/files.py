"""File input and output for commands: reading sources and atomic writes."""

from __future__ import annotations

import fnmatch
import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from lobsterlang.cli.usage import workflow_path_problem
from lobsterlang.reading import read_file, special_kind
from lobsterlang.syntax.source import max_input_bytes, over_limit, read_source, read_source_stream
from lobsterlang.terminal import visible

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
        return read_source_stream(), stdin_filename or "<stdin>"
    problem = workflow_path_problem(path)
    if problem is not None:
        return problem
    try:
        return read_source(path), path
    except OSError as exc:
        return f"cannot read {path}: {exc.strerror or exc}"


class FileChanged(Exception):
    """The file no longer holds the bytes its new text was made from (someone edited it meanwhile): nothing was written."""


def write_atomic(path: str, text: str, *, read_digest: str | None = None) -> None:
    """Write `text` to the file `path` names via a temporary file and rename, so no reader sees half a file.

    A symlink is written through: its target gets the text and the link stays. The file gets the
    mode a plain `open()` would give it (0666 less the umask, or the existing file's mode). With
    `read_digest` (`digest` of the bytes the text was made from), the file is compared again just
    before the rename and FileChanged is raised, nothing written, when it changed meanwhile.
    Problems with the path raise click.UsageError.
    """
    target = Path(os.path.realpath(path))
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
        if read_digest is not None and file_digest(target) != read_digest:
            raise FileChanged(path)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def digest(data: bytes) -> str:
    """What `write_atomic(read_digest=…)` compares: the SHA-256 of a file's bytes."""
    import hashlib

    return hashlib.sha256(data).hexdigest()


def file_digest(path: str | Path) -> str | None:
    """`digest` of the file's bytes as read now (None when it cannot be read)."""
    try:
        return digest(read_source(path))
    except OSError:
        return None


def read_only(path: str) -> bool:
    """Whether the file at `path` (through symlinks) is one its owner keeps from being written: no write
    permission for this user, or none for anyone (root may write every file, but a 0444 file says not to)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not mode & 0o222 or not os.access(path, os.W_OK)


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
_FIRST_STEP_ID = re.compile(rb"^steps[ \t]*:[ \t]*(?:#[^\n]*)?\n(?:[ \t]*(?:#[^\n]*)?\n)*[ \t]*-[ \t]+id[ \t]*:", re.M)
"""A top-level block `steps:` whose first item is a mapping that starts with `id:`: a workflow, without parsing."""


Skipped = tuple[Path, str]
"""A file a directory search did not take, and why (`a FIFO (named pipe), not a regular file`)."""


def workflows_under(directory: Path, exclude: tuple[str, ...] = ()) -> tuple[list[Path], list[Skipped]]:
    """Workflow files below `directory` in sorted order: `*.lobster*`, and `.yaml`/`.yml`/`.json` files whose top level
    has a `steps:` list of mappings with `id` (as ruff finds Python files); and the candidates that are not
    regular files (FIFOs, devices, sockets, broken symlinks), which are never opened.

    Hidden directories, virtualenvs and `node_modules` are skipped, and so are paths matching an
    `exclude` glob or ignored by a `.gitignore` at or below `directory`.
    """
    out: list[Path] = []
    skipped: list[Skipped] = []
    ignores: list[tuple[Path, list[str]]] = []
    for root, dirs, files in os.walk(directory):
        here = Path(root)
        patterns = _gitignore(here)
        if patterns:
            ignores.append((here, patterns))
        dirs[:] = sorted(d for d in dirs if not _skipped(here / d, d, exclude, ignores, directory))
        for name in sorted(files):
            path = here / name
            if not _is_candidate(name) or _skipped(path, name, exclude, ignores, directory):
                continue
            problem = _not_regular(path)
            if problem is not None:
                skipped.append((path, problem))
            elif _is_workflow(path):
                out.append(path)
    return out, skipped


def say_skipped(command: str, skipped: list[Skipped]) -> None:
    """One line on stderr per file a directory search left out because it is not a regular file."""
    for path, reason in skipped:
        sys.stderr.write(f"lobster {command}: skipped {visible(str(path))}: {reason}\n")
    sys.stderr.flush()


def _is_candidate(name: str) -> bool:
    lowered = name.lower()
    return lowered.endswith(LOBSTER_SUFFIXES) or lowered.endswith((".yaml", ".yml", ".json"))


def _not_regular(path: Path) -> str | None:
    """Why `path` is not read: it is a FIFO, a device, a socket… or a symlink to nothing; None for a regular file."""
    special = special_kind(path)
    if special is not None:
        return f"{special}, not a regular file"
    return None if path.exists() else "a broken symbolic link"


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
        lines = read_file(directory / ".gitignore", max_input_bytes()).decode("utf-8").splitlines()
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
        data = read_source(path)
    except OSError:
        return False
    if _STEPS_KEY.search(data) is None:
        return False
    if _FIRST_STEP_ID.search(data) is not None:
        return True
    return over_limit(data) or _has_steps(data, name.endswith(".json"))  # too big to parse: linting it says E008


def _has_steps(data: bytes, is_json: bool) -> bool:
    """Whether the document's top level is a mapping with a `steps:` list of mappings that have an `id`.

    YAML is read with libyaml's loader when PyYAML has it (about 15× faster than the pure-Python one, which
    dominated a warm `lint DIR`)."""
    import json

    import yaml

    try:
        document = json.loads(data) if is_json else yaml.load(data, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except (ValueError, yaml.YAMLError):
        return False
    steps = document.get("steps") if isinstance(document, dict) else None
    return isinstance(steps, list) and bool(steps) and all(isinstance(s, dict) and "id" in s for s in steps)
