"""The persistent lint cache: one entry per linted file, holding its findings and its scripts' shellcheck comments.

The files live in a `CacheFolder` (`cache_files`): private, sealed with a per-user key, read bounded; an
entry that fails any check is a miss.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

from lobsterlang import __version__
from lobsterlang.diagnostics import Diagnostic, Edit, Fix, Severity
from lobsterlang.lint.cache_files import CacheFolder
from lobsterlang.span import Span
from lobsterlang.syntax.source import MAX_INPUT_BYTES_ENV

Comments = list[dict[str, object]]
FORMAT = "2"
"""The entry layout; part of every key, so a new layout never reads an old entry."""
_DEPENDENCIES = ("PyYAML", "tree-sitter", "tree-sitter-bash")
"""Packages whose versions can change a finding."""


def default_dir() -> Path:
    """`$LOBSTER_CACHE_DIR/lint`, else `$XDG_CACHE_HOME/lobsterlang/lint`, else `~/.cache/lobsterlang/lint`."""
    override = os.environ.get("LOBSTER_CACHE_DIR")
    if override:
        return Path(override) / "lint"
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "lobsterlang" / "lint"


class Entry:
    """What the cache holds for one file: findings (when `key` matches the file's key now) and script comments."""

    def __init__(self, key: str | None = None, findings: tuple[Diagnostic, ...] = (), scripts: dict[str, Comments] | None = None) -> None:
        self.key = key
        self.findings = findings
        self.scripts = scripts or {}


class LintCache:
    """The cache of one run: its folder, and the identity of everything but the file that decides a finding.

    Each linted path has one entry file (named by a digest of its absolute path), replaced whole by a
    write to a temporary file and a rename: concurrent runs never see a torn entry, and the cache holds
    at most one entry per file ever linted.
    """

    def __init__(self, folder: CacheFolder, identity: str, shellcheck: str | None, flags: str = "",
                 reuse_findings: bool = True) -> None:
        self.folder = folder
        self.identity = identity
        self.shellcheck = shellcheck
        """shellcheck's `--version` text; None when this run starts no shellcheck."""
        self.flags = flags
        """The options shellcheck runs with."""
        self.reuse_findings = reuse_findings

    def file_key(self, path: str, data: bytes | str) -> str:
        """The key of one file's findings: the run's identity, the path as given, and the file's contents."""
        raw = data if isinstance(data, bytes) else data.encode("utf-8", "surrogatepass")
        return _digest(self.identity.encode(), path.encode("utf-8", "surrogatepass"), raw)

    def script_key(self, text: str) -> str:
        """The key of shellcheck's comments on one script: shellcheck's version and options, and the script."""
        return _digest(str(self.shellcheck).encode(), self.flags.encode(), text.encode("utf-8", "surrogatepass"))

    def load(self, path: str, scripts: bool = True) -> Entry:
        """The entry for `path` (without script comments unless `scripts`); an empty one when absent or
        damaged (a damaged entry is a miss).

        An entry is two lines of JSON: the key and the findings, then the script comments, so that
        a hit reads only the first.
        """
        stored = self.folder.read(self._entry_name(path))
        if stored is None:
            return Entry()
        try:
            head, _, tail = stored.partition(b"\n")
            first = json.loads(head)
            findings = tuple(_decode(d) for d in first["findings"])
            return Entry(first["key"], findings, _checked_scripts(json.loads(tail)) if scripts else None)
        except (ValueError, KeyError, TypeError, IndexError, RecursionError):
            return Entry()

    def store(self, path: str, key: str | None, findings: tuple[Diagnostic, ...], scripts: dict[str, Comments]) -> None:
        """Replace the entry for `path`; `key` None keeps only the script comments."""
        head = {"key": key, "findings": [_encode(d) for d in findings] if key else []}
        text = json.dumps(head, separators=(",", ":")) + "\n" + json.dumps(scripts, separators=(",", ":"))
        self.folder.write(self._entry_name(path), text.encode("utf-8", "surrogatepass"))

    def _entry_name(self, path: str) -> str:
        name = _digest(os.path.abspath(path).encode("utf-8", "surrogatepass"))
        return f"{name[:2]}/{name}.json"


def open_cache(folder: CacheFolder, config_repr: str, shellcheck: str | None, flags: str,
               reuse_findings: bool = True) -> LintCache:
    """The cache in `folder` for a run with this configuration (its repr), shellcheck version (None: no
    shellcheck) and options."""
    parts = (FORMAT, code_fingerprint(), config_repr, os.environ.get(MAX_INPUT_BYTES_ENV, ""), str(shellcheck), flags)
    return LintCache(folder, "\0".join(parts), shellcheck, flags, reuse_findings)


@cache
def code_fingerprint() -> str:
    """This lobsterlang (its version and `modules_fingerprint`: an edited rule is a new linter), the Python,
    and the versions of the packages a finding depends on."""
    from importlib.metadata import PackageNotFoundError, version

    versions = []
    for dependency in _DEPENDENCIES:
        try:
            versions.append(f"{dependency}={version(dependency)}")
        except PackageNotFoundError:
            versions.append(f"{dependency}=none")
    package = Path(__file__).resolve().parents[1]
    return _digest(__version__.encode(), sys.version.encode(), modules_fingerprint(package).encode(), *(v.encode() for v in versions))


def modules_fingerprint(package: Path) -> str:
    """The name, size and modification time of every module file under `package` (source or compiled)."""
    files = []
    for folder, _, names in os.walk(package):
        for name in names:
            if name.endswith((".py", ".so", ".pyd")):
                path = os.path.join(folder, name)
                stat = os.stat(path)
                files.append(f"{os.path.relpath(path, package)}:{stat.st_size}:{stat.st_mtime_ns}")
    return _digest(*(f.encode() for f in sorted(files)))


def shellcheck_version(folder: CacheFolder | None, program: str) -> str:
    """shellcheck's `--version` text, remembered in `folder` (when given) per binary (path, size, mtime):
    a warm run starts no shellcheck."""
    try:
        resolved = Path(program).resolve()
        stat = resolved.stat()
    except OSError:
        return _ask_version(program)
    if folder is None:
        return _version_of(str(resolved), stat.st_size, stat.st_mtime_ns)
    name = "versions/" + _digest(f"{resolved}\0{stat.st_size}\0{stat.st_mtime_ns}".encode()) + ".txt"
    known = (folder.read(name) or b"").decode("utf-8", "replace").strip()
    if known:
        return known
    found = _ask_version(program)
    folder.write(name, found.encode("utf-8", "replace"))
    return found


@cache
def _version_of(program: str, size: int, mtime_ns: int) -> str:
    """Asked once per binary and process."""
    return _ask_version(program)


def _ask_version(program: str) -> str:
    try:
        proc = subprocess.run([program, "--version"], capture_output=True, text=True, check=False)
    except OSError:
        return f"unknown:{program}"
    return proc.stdout.strip() or f"unknown:{program}"


_COMMENT_FIELDS = {"line": int, "column": int, "endLine": int, "endColumn": int, "code": int, "level": str, "message": str}
"""The fields of a shellcheck comment that L310 reads, with their types."""


def _checked_scripts(data: Any) -> dict[str, Comments]:
    """`data` when it is a map of shellcheck comment lists with the fields L310 reads; else ValueError."""
    if not isinstance(data, dict) or not all(isinstance(c, list) and all(_is_comment(x) for x in c) for c in data.values()):
        raise ValueError("scripts: not a map of comment lists")
    return data


def _is_comment(data: Any) -> bool:
    return isinstance(data, dict) and all(type(data.get(name)) is kind for name, kind in _COMMENT_FIELDS.items())


def _encode(diag: Diagnostic) -> list[Any]:
    fix = diag.fix
    encoded_fix = None if fix is None else [fix.message, fix.applicability, [[e.span.to_list(), e.new_text] for e in fix.edits]]
    return [diag.code, diag.severity.value, diag.message, diag.span.to_list(), diag.hint, encoded_fix]


def _decode(data: list[Any]) -> Diagnostic:
    code, severity, message, span, hint, fix = data
    return Diagnostic(str(code), Severity(severity), str(message), _span(span), _fix(fix), None if hint is None else str(hint))


def _fix(data: list[Any] | None) -> Fix | None:
    if data is None:
        return None
    message, applicability, edits = data
    return Fix(str(message), tuple(Edit(_span(span), str(text)) for span, text in edits), str(applicability))


def _span(data: list[Any]) -> Span:
    if len(data) != 6 or not all(type(n) is int for n in data):
        raise ValueError("span: not six integers")
    return Span(*data)


def _digest(*parts: bytes) -> str:
    hasher = hashlib.sha256()
    for part in parts:
        hasher.update(len(part).to_bytes(8, "little"))
        hasher.update(part)
    return hasher.hexdigest()
