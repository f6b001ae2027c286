"""Files in the state directory: regular files only, never followed, never blocking, read to a bound.

Anyone who can write to the state directory can put a FIFO, a socket, a device node, a
directory or a symlink where lobster expects one of its files, or a sparse file of many
gigabytes. Every file lobster reads or appends to there is checked with `lstat` first (a special
file is never opened, an oversized one never read), then read with the bounded reader
(`lobsterlang.reading`, symlinks refused) or opened with `O_NOFOLLOW | O_NONBLOCK` and checked
again on the descriptor (`open_regular`, for journals and locks). Anything else is
`CorruptState`, which callers turn into `state_integrity`.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat

from lobsterlang.reading import kind_of as _special_kind
from lobsterlang.reading import read_file

NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
MAX_STATE_BYTES = 1 << 30
"""The largest resume state or run journal read (they hold step outputs; each step's are capped, see outputcap)."""
MAX_INDEX_BYTES = 1 << 20
"""The largest approval index read (an index holds one token, well under a kilobyte)."""


class CorruptState(ValueError):
    """A state file exists but cannot be used: not JSON, not a regular file, a symlink, or too large."""


def kind_of(mode: int) -> str:
    """What a file mode describes, in words (`a symbolic link`, `a FIFO (named pipe)`, `a directory`, …)."""
    return "a symbolic link" if stat.S_ISLNK(mode) else _special_kind(mode)


def _checked(path: str, limit: int | None = None) -> bool:
    """True for a regular file (no larger than `limit`), False when nothing is there; `CorruptState` otherwise."""
    name = os.path.basename(path)
    try:
        info = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return False
    if not stat.S_ISREG(info.st_mode):
        raise CorruptState(f"{name} is {kind_of(info.st_mode)}, not a regular file")
    if limit is not None and info.st_size > limit:
        raise CorruptState(f"{name} is larger than {limit} bytes")
    return True


def open_regular(path: str, flags: int = os.O_RDONLY, mode: int = 0o600) -> int | None:
    """A descriptor of the regular file at `path` (blocking again), None when nothing is there; else `CorruptState`.

    With `os.O_CREAT` in `flags` a missing file is created (0600) and opened; nothing is followed.
    """
    name = os.path.basename(path)
    if not _checked(path) and not flags & os.O_CREAT:
        return None
    try:
        fd = os.open(path, flags | NOFOLLOW | os.O_NONBLOCK, mode)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        why = "a symbolic link" if exc.errno == errno.ELOOP else exc.strerror
        raise CorruptState(f"{name} cannot be opened: {why}") from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise CorruptState(f"{name} is {kind_of(info.st_mode)}, not a regular file")
    os.set_blocking(fd, True)
    return fd


def read_regular(path: str, limit: int, *, private: bool = False) -> bytes | None:
    """The bytes of the regular file at `path`, None when there is none; `CorruptState` for anything else.

    `private`: the file must be this user's with no group or other permissions (a key).
    """
    name = os.path.basename(path)
    if not _checked(path, limit):
        return None
    try:
        data = read_file(path, limit, follow_symlinks=False, private=private)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        if private and exc.errno == errno.EPERM:
            raise CorruptState(f"{name} must be a file of yours with mode 0600 (chmod 600 {path})") from None
        why = "a symbolic link" if exc.errno == errno.ELOOP else exc.strerror
        raise CorruptState(f"{name} cannot be read: {why}") from None
    if len(data) > limit:
        raise CorruptState(f"{name} is larger than {limit} bytes")
    return data


def is_real_dir(path: str) -> bool:
    """True for a directory, False when nothing is there; `CorruptState` for a symlink or any other file."""
    try:
        info = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return False
    if not stat.S_ISDIR(info.st_mode):
        raise CorruptState(f"{os.path.basename(path)} is {kind_of(info.st_mode)}, not a directory")
    return True


def private_subdir(root: str, name: str) -> str:
    """`root/name` as a 0700 directory (created when missing); `CorruptState` when it is a symlink or a file."""
    path = os.path.join(root, name)
    with contextlib.suppress(FileExistsError):  # a file of that name: refused below
        os.makedirs(path, mode=0o700, exist_ok=True)
    info = os.lstat(path)
    if not stat.S_ISDIR(info.st_mode):
        raise CorruptState(f"{name} in {root} is {kind_of(info.st_mode)}, not a directory")
    if info.st_mode & 0o077:
        os.chmod(path, 0o700)
    return path
