"""The lint cache's folder on disk: private to its user, each file sealed with a keyed MAC, read bounded, written atomically.

Whatever is in the folder is checked before it is believed, and any doubt is a miss: a file whose seal
does not match (written by hand, copied from another file, restored from someone else's cache), a
symlink, a FIFO, a device, a file over `FILE_LIMIT`, a subfolder that is a symlink or not this user's.
The key is 32 random bytes in `key` (0600), made on first use; the folder is kept 0700. Files are written
to `tmp/.tmp-<pid>-…` and renamed into place; a writer that was killed leaves its temporary file, which
the next run removes once that process is gone.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import stat
from pathlib import Path

from lobsterlang.reading import read_file

KEY_NAME = "key"
TMP_NAME = "tmp"
FILE_LIMIT = 64 * 1024 * 1024
"""A larger cache file is a miss (an entry holds one file's findings: far less)."""
_PREFIX = ".tmp-"
_MAC_HEX = 64


class CacheFolder:
    """The cache folder `root` and its key; with no key (the folder cannot be trusted) every read misses and
    nothing is written."""

    def __init__(self, root: Path, key: bytes | None) -> None:
        self.root = root
        self.key = key

    def read(self, name: str) -> bytes | None:
        """The content stored under `name` (`ab/abcd….json`), or None: absent, unreadable or not sealed with the key."""
        if self.key is None or not _private_dir(self.root / Path(name).parent, create=False):
            return None
        try:
            raw = read_file(self.root / name, FILE_LIMIT, follow_symlinks=False)
        except OSError:
            return None
        mac, newline, data = raw.partition(b"\n")
        if len(raw) > FILE_LIMIT or not newline or not hmac.compare_digest(mac, self._seal(name, data)):
            return None
        return data

    def write(self, name: str, data: bytes) -> None:
        """Store `data` under `name`, sealed, replacing what was there. Best effort: a cache that cannot be written
        only costs time."""
        if self.key is None:
            return
        import tempfile  # only when writing

        folder, spool = self.root / Path(name).parent, self.root / TMP_NAME
        if not (_private_dir(folder, create=True) and _private_dir(spool, create=True)):
            return
        try:
            fd, tmp = tempfile.mkstemp(dir=spool, prefix=f"{_PREFIX}{os.getpid()}-")
        except OSError:
            return
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(self._seal(name, data) + b"\n" + data)
            os.replace(tmp, self.root / name)
        except OSError:
            Path(tmp).unlink(missing_ok=True)

    def sweep(self) -> None:
        """Remove the temporary files of writers that are gone (killed before they could rename them)."""
        spool = self.root / TMP_NAME
        if self.key is None or not _private_dir(spool, create=False):
            return
        try:
            names = os.listdir(spool)
        except OSError:
            return
        for name in names:
            pid = _writer(name)
            if pid is not None and not _alive(pid):
                (spool / name).unlink(missing_ok=True)

    def _seal(self, name: str, data: bytes) -> bytes:
        assert self.key is not None
        return hmac.new(self.key, name.encode("utf-8") + b"\0" + data, hashlib.sha256).hexdigest().encode("ascii")


def open_folder(root: Path) -> CacheFolder:
    """The cache folder at `root`, made (0700) if missing, with its key; keyless (unused) when `root` is not a
    directory of this user's, or its key cannot be read or made. Temporary files of dead writers are swept."""
    try:
        root.mkdir(mode=0o700, parents=True, exist_ok=True)
        real = Path(os.path.realpath(root))
        info = os.lstat(real)
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid():
            return CacheFolder(real, None)
        if info.st_mode & 0o077:
            os.chmod(real, 0o700)  # a folder made by an older lobster, or by hand
        folder = CacheFolder(real, _key(real))
    except OSError:
        return CacheFolder(root, None)
    folder.sweep()
    return folder


def _key(root: Path) -> bytes:
    """The folder's key: read when `key` is a private regular file of 64 hex characters, else made anew (which
    turns every entry into a miss)."""
    path = root / KEY_NAME
    found = _read_key(path)
    if found is not None:
        return found
    if not _private_dir(root / TMP_NAME, create=True):
        raise PermissionError(f"{root / TMP_NAME}: not a directory of this user's")
    fresh = secrets.token_hex(32)
    tmp = root / TMP_NAME / f"{_PREFIX}{os.getpid()}-{secrets.token_hex(4)}.key"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        with os.fdopen(fd, "w", encoding="ascii") as out:
            out.write(fresh)
        try:
            os.link(tmp, path)  # two runs making a key at once end up with one of them
        except FileExistsError:
            if _read_key(path) is None:
                os.replace(tmp, path)  # a damaged key (a symlink, a FIFO, a readable file): replaced
    finally:
        tmp.unlink(missing_ok=True)
    key = _read_key(path)
    if key is None:
        raise PermissionError(f"{path}: the lint cache key cannot be made")
    return key


def _read_key(path: Path) -> bytes | None:
    try:
        text = read_file(path, _MAC_HEX, follow_symlinks=False, private=True).decode("ascii").strip()
        return bytes.fromhex(text) if len(text) == _MAC_HEX else None
    except (OSError, ValueError):
        return None


def _private_dir(path: Path, create: bool) -> bool:
    """Whether `path` is a directory of this user's (not a symlink to one); with `create`, made (0700) if missing."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        if not create:
            return False
        try:
            os.mkdir(path, 0o700)
            info = os.lstat(path)
        except OSError:
            return False
    except OSError:
        return False
    return stat.S_ISDIR(info.st_mode) and info.st_uid == os.geteuid()


def _writer(name: str) -> int | None:
    """The process id in a temporary file's name (`.tmp-<pid>-…`), None for another name."""
    if not name.startswith(_PREFIX):
        return None
    digits = name[len(_PREFIX):].partition("-")[0]
    return int(digits) if digits.isdecimal() and digits.isascii() else None


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # another user's process (it cannot have written here), or a check that is not allowed
    return True
