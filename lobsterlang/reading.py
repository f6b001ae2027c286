"""Read files and streams without trusting them: regular files only, never blocking on open, at most a limit plus one byte.

Every file or stdin that lobster reads as input (workflow files, sub-workflows, configs, the lint cache, the
language server's workspace) comes through here, so a FIFO, a device, an endless stream or a sparse
8 GB file costs at most `limit + 1` bytes and never hangs. A caller that gets more than `limit` bytes
back knows the input is over its limit (and says so: E008 for workflow files).
"""

from __future__ import annotations

import errno
import os
import stat
from typing import BinaryIO

_CHUNK = 1 << 20
"""Bytes asked for per read once the expected size is used up (a stream, or a file that grew)."""
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class NotRegularFile(OSError):
    """The path names a FIFO, a device, a socket or a directory: it is not read (reading could block or never end)."""

    def __init__(self, path: str, mode: int) -> None:
        super().__init__(errno.EINVAL, f"{kind_of(mode)}, not a regular file", path)


def kind_of(mode: int) -> str:
    """`a FIFO (named pipe)`, `a character device`, …, for an `st_mode` that is not a regular file's."""
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def special_kind(path: str | os.PathLike[str]) -> str | None:
    """What `path` is when it exists and is not a regular file (symlinks followed, nothing opened); else None."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return None
    return None if stat.S_ISREG(mode) else kind_of(mode)


def read_file(path: str | os.PathLike[str], limit: int, *, follow_symlinks: bool = True, private: bool = False) -> bytes:
    """At most `limit + 1` bytes of the regular file at `path`.

    The file is opened without blocking (a FIFO without a writer would block `open`) and checked on the
    open descriptor, so a path swapped for a FIFO or a device after a check is refused too
    (NotRegularFile, an OSError). With `follow_symlinks` False a symlink is refused (ELOOP); with
    `private`, a file that another user owns or that group or others may read or write (PermissionError).
    """
    flags = os.O_RDONLY | _NONBLOCK | getattr(os, "O_CLOEXEC", 0) | (0 if follow_symlinks else _NOFOLLOW)
    fd = os.open(path, flags)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotRegularFile(os.fspath(path), info.st_mode)
        if private and (info.st_uid != os.geteuid() or info.st_mode & 0o077):
            raise PermissionError(errno.EPERM, "not private to this user (owner and mode 0600)", os.fspath(path))
        return _read_fd(fd, limit, info.st_size)
    finally:
        os.close(fd)


def _read_fd(fd: int, limit: int, expected: int) -> bytes:
    chunks = []
    total = 0
    want = min(expected, limit) + 1  # one read for a file that does not change; the extra byte sees growth
    while total <= limit:
        chunk = os.read(fd, min(want, limit + 1 - total))
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
        want = _CHUNK
    return b"".join(chunks)


def read_stream(stream: BinaryIO, limit: int) -> bytes:
    """At most `limit + 1` bytes of a binary stream (stdin): an endless writer is read no further."""
    chunks = []
    total = 0
    while total <= limit:
        chunk = stream.read(min(_CHUNK, limit + 1 - total))
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    return b"".join(chunks)
