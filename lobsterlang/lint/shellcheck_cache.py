"""The persistent shellcheck cache: shellcheck's comments per script, keyed on the script, the shellcheck version and options."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import tempfile
from pathlib import Path

Comments = list[dict[str, object]]


def default_dir() -> Path:
    """`$LOBSTER_CACHE_DIR/shellcheck`, else `$XDG_CACHE_HOME/lobsterlang/shellcheck`, else `~/.cache/lobsterlang/shellcheck`."""
    override = os.environ.get("LOBSTER_CACHE_DIR")
    if override:
        return Path(override) / "shellcheck"
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "lobsterlang" / "shellcheck"


class ShellcheckCache:
    """One file per key under `root`; written to a temp file and renamed into place, so concurrent runs are safe."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def version(self, program: str) -> str:
        """shellcheck's version, remembered per binary (path, size, mtime) so a warm run starts no shellcheck."""
        try:
            stat = Path(program).resolve().stat()
        except OSError:
            return self._ask_version(program)
        identity = f"{Path(program).resolve()}\0{stat.st_size}\0{stat.st_mtime_ns}"
        path = self._path("v-" + _digest(identity))
        try:
            known = path.read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError):
            known = ""
        if known:
            return known
        found = self._ask_version(program)
        self._write(path, found)
        return found

    def key(self, version: str, options: str, text: str) -> str:
        return _digest(f"{version}\0{options}\0{text}")

    def get(self, key: str) -> Comments | None:
        """The stored comments, or None when absent or damaged (a damaged entry is a miss)."""
        try:
            data = json.loads(self._path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(data, list) or not all(isinstance(c, dict) for c in data):
            return None
        return data

    def put(self, key: str, comments: Comments) -> None:
        self._write(self._path(key), json.dumps(comments))

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    @staticmethod
    def _ask_version(program: str) -> str:
        proc = subprocess.run([program, "--version"], capture_output=True, text=True, check=False)
        return proc.stdout.strip() or f"unknown:{program}"

    @staticmethod
    def _write(path: Path, text: str) -> None:
        """Best effort: a cache that cannot be written only costs time."""
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
        except OSError:
            return
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write(text)
            os.replace(tmp, path)
        except OSError:
            Path(tmp).unlink(missing_ok=True)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
