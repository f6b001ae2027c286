"""A signing key the host supplies, kept out of every step's reach.

`LOBSTER_SIGNING_KEY` (64 hex characters) or `LOBSTER_SIGNING_KEY_FD` (a descriptor lobster
inherits, holding the 64 hex characters) replaces `signing.key`: no key file is read or made,
for any backend. The `lobster` process takes the key at start-up (`take_from_process`): it
removes both variables from its environment, closes the descriptor, and makes itself
non-dumpable, so a step running as the same user cannot read the key from `/proc/<pid>/environ`,
`/proc/<pid>/fd` or its memory (root still can). Every child gets an environment without them
(`without_key`); the tool call's runner gets the key on its stdin, never in its environment.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
from collections.abc import Mapping

from lobsterlang.digits import whole_number

KEY_VAR = "LOBSTER_SIGNING_KEY"
FD_VAR = "LOBSTER_SIGNING_KEY_FD"
SECRET_VARS = (KEY_VAR, FD_VAR)
KEY_BYTES = 32
_HEX = re.compile(r"[0-9a-fA-F]{64}")
_PR_SET_DUMPABLE = 4


class HostKeyError(ValueError):
    """The key the host supplied is unusable (not 64 hex characters, an unreadable descriptor)."""


_held: bytes | None = None
_problem: str | None = None


def parse(text: str, source: str = KEY_VAR) -> bytes:
    """The 32 bytes of a 64-hex-character key; `HostKeyError` naming `source` otherwise."""
    clean = text.strip()
    if not _HEX.fullmatch(clean):
        raise HostKeyError(f"{source} must be {KEY_BYTES * 2} hex characters (for example from `openssl rand -hex 32`)")
    return bytes.fromhex(clean)


def hold(key: bytes) -> None:
    """Use `key` in this process from now on (the tool call's runner gets it this way)."""
    global _held, _problem
    _held, _problem = key, None
    protect_process()


def take_from_process() -> None:
    """At start-up: take the key from the environment or the descriptor, then forget where it came from."""
    global _problem
    text, fd_text = os.environ.get(KEY_VAR), os.environ.get(FD_VAR)
    if text is None and fd_text is None:
        return
    protect_process()
    _wipe_environment_block()
    os.environ.pop(KEY_VAR, None)
    os.environ.pop(FD_VAR, None)
    try:
        hold(_read_fd(fd_text) if fd_text is not None else parse(text or ""))
    except HostKeyError as exc:
        _problem = str(exc)


def for_env(env: Mapping[str, str]) -> bytes | None:
    """The host's key for a run with environment `env`: the one this process took, else `env`'s; None: use the store's."""
    if _problem is not None:
        raise HostKeyError(_problem)
    if _held is not None:
        return _held
    text = env.get(KEY_VAR, "")
    return parse(text) if text.strip() else None  # a caller of the Python API that passes the key in `env`


def without_key(env: Mapping[str, str]) -> dict[str, str]:
    """`env` without the key's variables: what any child process gets."""
    return {name: value for name, value in env.items() if name not in SECRET_VARS}


def _read_fd(fd_text: str) -> bytes:
    """The key read from descriptor `fd_text` (until 64 characters arrived or end of file); the descriptor is closed."""
    fd = whole_number(fd_text.strip())
    if fd is None:
        raise HostKeyError(f"{FD_VAR} must be the number of an open descriptor")
    data = b""
    try:
        while len(data.strip()) < 2 * KEY_BYTES and len(data) < 8 * KEY_BYTES:
            chunk = os.read(fd, 8 * KEY_BYTES - len(data))
            if not chunk:
                break
            data += chunk
    except OSError as exc:
        raise HostKeyError(f"{FD_VAR}={fd}: {exc.strerror}") from None
    finally:
        with contextlib.suppress(OSError):
            os.close(fd)
    return parse(data.decode("ascii", "replace"), f"the key read from {FD_VAR}={fd}")


def _wipe_environment_block() -> None:
    """Overwrite the key's value in the process's C environment, which `/proc/<pid>/environ` shows even after
    `unsetenv` (Linux; elsewhere only the variables are removed)."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    with contextlib.suppress(OSError, ValueError, AttributeError):
        entries = ctypes.POINTER(ctypes.c_void_p).in_dll(ctypes.CDLL(None), "environ")
        index = 0
        while entries[index]:
            address = int(entries[index] or 0)
            entry = ctypes.string_at(address)
            name = entry.split(b"=", 1)[0].decode("ascii", "replace")
            if name in SECRET_VARS:
                start = len(name) + 1
                ctypes.memset(address + start, ord("0"), len(entry) - start)
            index += 1


def protect_process() -> None:
    """Make this process non-dumpable (Linux): other processes of the same user cannot read its memory,
    environment or descriptors under /proc. Children are dumpable again once they exec."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes  # only when a host key is in use: it costs start-up time

    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)
