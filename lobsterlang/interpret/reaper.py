"""Every descendant of a run, found and killed: a child subreaper, and a /proc sweep by a tag in the environment.

A step's command can leave its process group (`setsid`, a double fork), so killing the group
misses it. Each child a run starts carries `LOBSTER_PROCESS_TAG=<run tag>.<n>` in its environment,
which its descendants inherit; the runner is a child subreaper (Linux `PR_SET_CHILD_SUBREAPER`),
so orphans stay its descendants instead of moving to init. A sweep walks the runner's descendants
in /proc and kills those whose environment carries the tag (and the live tree under a child).
Where /proc is missing (macOS), the sweep finds nothing and process groups are all there is.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys

TAG_VAR = "LOBSTER_PROCESS_TAG"
PR_SET_CHILD_SUBREAPER = 36
_PROC = "/proc"


def become_subreaper() -> bool:
    """Make this process adopt its orphaned descendants (Linux only); True when it worked."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes  # only here: it costs start-up time, and only Linux runners need it

    try:
        libc = ctypes.CDLL(None, use_errno=True)  # the process's own symbols, libc's prctl among them
        return int(libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def _parent_map() -> dict[int, list[int]]:
    """Children of every process, from /proc/<pid>/stat (empty without /proc)."""
    children: dict[int, list[int]] = {}
    with contextlib.suppress(OSError):
        for name in os.listdir(_PROC):
            if name.isdigit():
                ppid = _ppid(int(name))
                if ppid is not None:
                    children.setdefault(ppid, []).append(int(name))
    return children


def _ppid(pid: int) -> int | None:
    try:
        with open(f"{_PROC}/{pid}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return int(fields[1]) if len(fields) > 1 and fields[0] != b"Z" else None


def descendants(root: int) -> list[int]:
    """Live (non-zombie) descendants of `root`, parents before children."""
    children = _parent_map()
    found: list[int] = []
    queue = list(children.get(root, ()))
    while queue:
        pid = queue.pop(0)
        found.append(pid)
        queue.extend(children.get(pid, ()))
    return found


def carries_tag(pid: int, tag: str) -> bool:
    """Whether process `pid` started with `LOBSTER_PROCESS_TAG` equal to `tag` or under it (`tag.<n>`)."""
    try:
        with open(f"{_PROC}/{pid}/environ", "rb") as environ:
            entries = environ.read().split(b"\0")
    except OSError:
        return False
    prefix = f"{TAG_VAR}={tag}".encode()
    return any(entry == prefix or entry.startswith(prefix + b".") for entry in entries)


def kill_tagged(tag: str, roots: tuple[int, ...] = ()) -> list[int]:
    """SIGKILL every descendant of this process that carries `tag`, and every descendant of `roots`."""
    victims = [pid for pid in descendants(os.getpid()) if carries_tag(pid, tag)]
    for root in roots:
        victims.extend(descendants(root))
    for pid in dict.fromkeys(victims):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
    return victims
