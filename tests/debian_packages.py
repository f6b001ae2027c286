"""Debian packages a test needs (editors, Graphviz), installed with apt-get when missing, as root only, once per
session, in a background thread that can start before the tests that wait for it."""

from __future__ import annotations

import os
import shutil
import subprocess
import threading

_APT = threading.Lock()
"""One apt-get at a time in this process."""


class DebianPackages:
    """`apt-get install` of missing packages, once per session, in a thread that starts when a test that needs
    them is collected (conftest.py) or first asks for them, so that it overlaps with the other tests."""

    def __init__(self, packages: tuple[str, ...]) -> None:
        self.packages = packages
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._problem: str | None = None

    def missing(self) -> list[str]:
        """The packages not installed yet."""
        return [p for p in self.packages if not _installed(p)]

    def start(self) -> None:
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._install, daemon=True, name=f"apt-get {' '.join(self.packages)}")
                self._thread.start()

    def ready(self) -> str | None:
        """None once the packages are installed, else why they cannot be (the tests are skipped with it)."""
        self.start()
        assert self._thread is not None
        self._thread.join()
        return self._problem

    def _install(self) -> None:
        missing = self.missing()
        if not missing:
            return
        if shutil.which("apt-get") is None or os.geteuid() != 0:
            self._problem = f"needs the Debian packages {' '.join(missing)} (the test installs them with apt-get as root)"
            return
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        wait_for_lock = ["-o", "DPkg::Lock::Timeout=600"]  # another apt-get (another test session) may hold it
        install = ["apt-get", *wait_for_lock, "install", "-y", "-q", "--no-install-recommends", *missing]
        with _APT:
            done = subprocess.run(install, capture_output=True, text=True, env=env, check=False)
            if done.returncode != 0:  # a fresh machine has no package lists yet
                subprocess.run(["apt-get", *wait_for_lock, "update", "-q"], capture_output=True, text=True, env=env, check=False)
                done = subprocess.run(install, capture_output=True, text=True, env=env, check=False)
        if done.returncode != 0:
            self._problem = f"apt-get could not install {' '.join(missing)}:\n{done.stdout[-2000:]}{done.stderr[-2000:]}"


def _installed(package: str) -> bool:
    if shutil.which("dpkg-query") is None:
        return False
    status = subprocess.run(["dpkg-query", "-W", "-f=${Status}", package], capture_output=True, text=True, check=False)
    return status.returncode == 0 and status.stdout.endswith(" installed")
