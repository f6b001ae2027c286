"""How many CPUs this process may use: the one figure the parallel paths (fmt, lint, shellcheck) size their pools by."""

from __future__ import annotations

import os


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity mask where the OS has one), at least 1."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
