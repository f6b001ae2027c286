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


def pytest_sessionstart() -> None:
    """Start the npm installs of a fresh clone now, so they overlap with the Python tests."""
    from npm_installs import start_in_background

    start_in_background()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Run the editor tests near the end, so that the editors (installed in the background) are ready by then."""
    from editor_setup import FOLDER

    items.sort(key=lambda item: 1 if item.nodeid.startswith(FOLDER) else 0)


def pytest_collection_finish(session: pytest.Session) -> None:
    from editor_setup import start_installs_if_selected

    if not session.config.option.collectonly:
        start_installs_if_selected([item.nodeid for item in session.items])
