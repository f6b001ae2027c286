"""The npm folder the tests use, the VS Code extension's, installed once per clone: its `mermaid` also serves the
graph tests (tests/mermaid_check.py), so Mermaid is installed once.

`npm ci` takes 20-80 s on a fresh clone (measured on a loaded 2-core machine: 32 s and 19 s with an empty npm cache,
43 s and 14 s with a full one, when the tests also installed Mermaid on its own). The session starts the install in the
background (conftest.py), so it overlaps with the Python tests, and says so first; each fixture that needs it calls
`install` too, which waits on the same lock and finds the work done (or does it, when the background one failed).
`--prefer-offline` takes what npm's cache holds without asking the registry again (a second clone on the same machine).
"""

from __future__ import annotations

import fcntl
import shutil
import subprocess
import threading
from pathlib import Path

from helpers import ROOT

FOLDERS = {
    ROOT / "vscode-extension": "node_modules/.package-lock.json",
}
"""Each npm folder and the path that exists once its `npm ci` has finished."""


def installed(folder: Path) -> bool:
    return (folder / FOLDERS[folder]).exists()


def install(folder: Path, timeout: float = 900) -> subprocess.CompletedProcess[str] | None:
    """`npm ci` in `folder` unless done; one at a time per folder across threads and processes (None: nothing to do).

    npm inherits the locked file, so the lock lasts as long as npm does: a test session that ends (or is killed)
    while its background install runs leaves npm holding it, and the next session waits for that npm instead of
    starting a second one in the same folder (which failed with ENOTEMPTY).
    """
    with (folder / "package.json").open() as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        if installed(folder):
            return None
        return subprocess.run([str(shutil.which("npm")), "ci", "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts"],
                              cwd=folder, capture_output=True, text=True, timeout=timeout, check=False,
                              pass_fds=(handle.fileno(),))


def start_in_background() -> list[str]:
    """Begin every missing install in a daemon thread (nothing when Node or npm is absent); the folders, named."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        return []
    started = []
    for folder in FOLDERS:
        if not installed(folder):
            threading.Thread(target=install, args=(folder,), daemon=True, name=f"npm ci {folder.name}").start()
            started.append(folder.relative_to(ROOT).as_posix())
    return started
