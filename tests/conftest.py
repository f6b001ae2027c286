"""Test set-up: `helpers` and `tools` importable, no test writes to the real ~/.lobster, long builds and installs
overlap the tests."""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(1, str(HERE.parent))
sys.path.insert(2, str(HERE / "editors"))

if "LOBSTER_STATE_DIR" not in os.environ:
    _STATE = tempfile.mkdtemp(prefix="lobster-test-state-")
    os.environ["LOBSTER_STATE_DIR"] = _STATE
    atexit.register(shutil.rmtree, _STATE, True)

if "LOBSTER_CACHE_DIR" not in os.environ:  # `lobster lint` keeps a shellcheck cache; never in the real ~/.cache
    _CACHE = tempfile.mkdtemp(prefix="lobster-test-cache-")
    os.environ["LOBSTER_CACHE_DIR"] = _CACHE
    atexit.register(shutil.rmtree, _CACHE, True)


_FIRST_RUN: list[str] = []
"""What this session installs because this clone or machine has not run the tests before."""


def pytest_sessionstart() -> None:
    """Start the npm installs of a fresh clone now, so they overlap with the Python tests."""
    from npm_installs import start_in_background

    _FIRST_RUN.extend(f"npm ci in {folder}" for folder in start_in_background())


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run the editor tests near the end, so that the editors (installed in the background) are ready by then."""
    from editor_setup import FOLDER

    items.sort(key=lambda item: 1 if item.nodeid.startswith(FOLDER) else 0)


def pytest_collection_finish(session: pytest.Session) -> None:
    from editor_setup import start_installs_if_selected

    if not session.config.option.collectonly:
        debian = start_installs_if_selected([item.nodeid for item in session.items])
        if debian:
            _FIRST_RUN.append("apt-get install " + " ".join(debian))
        _say_first_run(session.config)


def _say_first_run(config: pytest.Config) -> None:
    """Say up front why this run takes longer than the next (issue 30 item 3): the installs it starts."""
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if _FIRST_RUN and reporter is not None:
        reporter.write_line("First run in this clone or on this machine: installing in the background, while the other "
                            "tests run (the tests that need them wait): " + "; ".join(_FIRST_RUN) + ".")
