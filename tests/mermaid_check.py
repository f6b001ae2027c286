"""Mermaid as the VS Code extension's graph preview runs it (its own `mermaid` and `jsdom`, one npm install):
parse texts, and draw them, from the Python tests (vscode-extension/test/mermaid-check.mjs)."""

from __future__ import annotations

import json
import shutil
import subprocess
from typing import Any

import pytest
from helpers import ROOT
from npm_installs import install

EXTENSION = ROOT / "vscode-extension"
SCRIPT = "test/mermaid-check.mjs"


def ready() -> None:
    """The extension's node_modules installed (skip the test when Node or npm is absent)."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip("node and npm are needed to run Mermaid (the extension's node_modules)")
    result = install(EXTENSION)
    assert result is None or result.returncode == 0, result.stdout + result.stderr


def mermaid_check(texts: list[str], *, draw: bool = False) -> list[dict[str, Any]]:
    """Each text as Mermaid reads it (ok, error, config, nodes, edges) and, with `draw`, what it draws."""
    command = ["node", SCRIPT, *(["--draw"] if draw else [])]
    proc = subprocess.run(command, cwd=EXTENSION, input=json.dumps(texts), capture_output=True, text=True,
                          timeout=600, check=True)
    return json.loads(proc.stdout)  # type: ignore[no-any-return]
