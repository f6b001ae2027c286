"""The background `npm ci` of a test session outlives the session safely: the next one waits for it, never starts a
second install in the same folder."""

from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import npm_installs
import pytest

FAKE_NPM = """#!/bin/sh
echo started >> "$NPM_LOG"
while [ ! -e "$RELEASE" ]; do sleep 0.05; done
mkdir -p node_modules && touch node_modules/.package-lock.json
echo finished >> "$NPM_LOG"
"""
SESSION = """import sys
from collections.abc import Callable
from pathlib import Path
sys.path.insert(0, sys.argv[2])
import npm_installs
folder = Path(sys.argv[1])
npm_installs.FOLDERS[folder] = "node_modules/.package-lock.json"
npm_installs.install(folder)
"""


def wait_for(predicate: Callable[[], bool], what: str) -> None:
    for _ in range(600):
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def test_a_killed_session_leaves_npm_holding_the_lock(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder, bin_dir, log, release = tmp_path / "ext", tmp_path / "bin", tmp_path / "npm.log", tmp_path / "release"
    folder.mkdir()
    bin_dir.mkdir()
    (folder / "package.json").write_text("{}")
    npm = bin_dir / "npm"
    npm.write_text(FAKE_NPM)
    npm.chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "NPM_LOG": str(log), "RELEASE": str(release)}
    session = subprocess.Popen([sys.executable, "-c", SESSION, str(folder), str(Path(__file__).parent)], env=env)
    wait_for(lambda: log.exists(), "the first session's npm to start")
    session.send_signal(signal.SIGKILL)
    session.wait()
    with (folder / "package.json").open() as handle, pytest.raises(BlockingIOError):  # the orphaned npm holds it
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    release.touch()
    monkeypatch.setenv("PATH", env["PATH"])
    monkeypatch.setenv("NPM_LOG", str(log))
    monkeypatch.setenv("RELEASE", str(release))
    monkeypatch.setitem(npm_installs.FOLDERS, folder, "node_modules/.package-lock.json")
    assert npm_installs.install(folder) is None  # waited for that npm, then found the install done
    assert log.read_text().split() == ["started", "finished"]
