"""Opening files in the state directory: regular files only, never followed, never blocking, read to a bound.

Anyone who can write to the state directory can put a FIFO, a socket, a device node, a
directory or a symlink where lobster expects one of its files, or a sparse file of many
gigabytes. Every file lobster reads or appends to there is opened through `open_regular`:
`lstat` first (a special file is never opened), then `O_NOFOLLOW | O_NONBLOCK` (a FIFO swapped
in meanwhile cannot block, a symlink is not followed) and `fstat` on what was opened. Reads stop
at a limit. Anything else is `CorruptState`, which callers turn into `state_integrity`.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat

NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
MAX_STATE_BYTES = 1 << 30
"""The largest resume state or run journal read (they hold step outputs; each step's are capped, see outputcap)."""
MAX_INDEX_BYTES = 1 << 20
"""The largest approval index read (an index holds one token, well under a kilobyte)."""


class CorruptState(ValueError):
    """A state file exists but cannot be used: not JSON, not a regular file, a symlink, or too large."""


def kind_of(mode: int) -> str:
    """What a file mode describes, in words."""
    kinds = ((stat.S_ISDIR, "a directory"), (stat.S_ISLNK, "a symbolic link"), (stat.S_ISFIFO, "a FIFO"),
             (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))
    return next((word for test, word in kinds if test(mode)), "not a regular file")


def open_regular(path: str, flags: int = os.O_RDONLY, mode: int = 0o600) -> int | None:
    """A descriptor of the regular file at `path` (blocking again), None when nothing is there; else `CorruptState`.

    With `os.O_CREAT` in `flags` a missing file is created (0600) and opened; nothing is followed.
    """
    name = os.path.basename(path)
    try:
        info = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        if not flags & os.O_CREAT:
            return None
    else:
        if not stat.S_ISREG(info.st_mode):
            raise CorruptState(f"{name} is {kind_of(info.st_mode)}, not a regular file")
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


def read_bounded(fd: int, limit: int, name: str) -> bytes:
    """At most `limit` bytes of an open regular file; `CorruptState` when it holds more."""
    if os.fstat(fd).st_size > limit:
        raise CorruptState(f"{name} is larger than {limit} bytes")
    chunks, size = [], 0
    while size <= limit:
        chunk = os.read(fd, min(1 << 20, limit + 1 - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    if size > limit:
        raise CorruptState(f"{name} is larger than {limit} bytes")
    return b"".join(chunks)


def read_regular(path: str, limit: int) -> bytes | None:
    """The bytes of the regular file at `path`, None when there is none; `CorruptState` for anything else."""
    fd = open_regular(path)
    if fd is None:
        return None
    try:
        return read_bounded(fd, limit, os.path.basename(path))
    finally:
        os.close(fd)


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
