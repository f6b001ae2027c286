"""What the real-editor tests share: the configurations documented in docs/editors.md, the workspace a user opens,
a temporary home, and Debian packages installed when missing (as root only)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from debian_packages import DebianPackages
from helpers import ROOT

DOCS = ROOT / "docs" / "editors.md"
FOLDER = "tests/editors/"
"""Where the editor tests are (node ids start with it)."""
DEADLINE_SECONDS = 60
"""How long a driver waits for any one thing the editor should show: a failsafe, never reached when all works."""
SESSION_SECONDS = 600
"""A failsafe on a whole editor session (a hung editor is killed)."""

WORKFLOW = """\
args:
  name: {default: world}
steps:
  - id: count
    run: echo $HOME/*.txt
  - id: greet
    pipeline: exec --json --shell "echo []" | pikc a
    stdin: $count.json
"""
"""The file the editors open: shellcheck finds the unquoted `$HOME` (L310), `pikc` is a typo of `pick` (L201), and
`{default: world}` is not formatted."""


def documented(name: str) -> str:
    """The code block of docs/editors.md marked `<!-- editor-config: NAME -->`."""
    found = re.search(rf"<!-- editor-config: {re.escape(name)} -->\n```[a-z]*\n(.*?)^```", DOCS.read_text(encoding="utf-8"),
                      re.MULTILINE | re.DOTALL)
    assert found is not None, f"docs/editors.md has no block marked editor-config: {name}"
    return found.group(1)


def workspace(root: Path) -> Path:
    """A project folder with a config file and the workflow; returns the workflow's path."""
    root.mkdir(parents=True, exist_ok=True)
    (root / ".lobster.toml").write_text("[lint]\n", encoding="utf-8")
    path = root / "workflow.lobster"
    path.write_text(WORKFLOW, encoding="utf-8")
    return path


def user_env(home: Path, report: Path) -> dict[str, str]:
    """A user whose home is `home` (no other configuration), with `lobster` and shellcheck of this venv on PATH."""
    xdg = {name: str(home / sub) for name, sub in (("XDG_CONFIG_HOME", ".config"), ("XDG_DATA_HOME", ".local/share"),
                                                   ("XDG_STATE_HOME", ".local/state"), ("XDG_CACHE_HOME", ".cache"))}
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    return {**os.environ, **xdg, "HOME": str(home), "PATH": path, "TERM": "dumb",
            "LOBSTER_EDITOR_REPORT": str(report), "LOBSTER_EDITOR_DEADLINE_MS": str(DEADLINE_SECONDS * 1000)}


def run_session(command: list[str], cwd: Path, env: dict[str, str], report: Path) -> dict[str, Any]:
    """Run an editor driven by a script until it quits; what its driver reported."""
    proc = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=SESSION_SECONDS, check=False)
    assert report.is_file(), f"the editor wrote no report (exit {proc.returncode})\n{proc.stdout}\n{proc.stderr}"
    found: dict[str, Any] = json.loads(report.read_text(encoding="utf-8"))
    found["exit"], found["stderr"] = proc.returncode, proc.stderr
    return found


EMACS = DebianPackages(("emacs-nox", "elpa-eglot"))
NEOVIM_07 = DebianPackages(("neovim",))


def start_installs_if_selected(nodeids: list[str]) -> list[str]:
    """Begin the Debian installs of the selected editor tests (conftest.py, once collection is done); the packages
    that are installed now (as root only: otherwise the tests are skipped with the command to run)."""
    installing = []
    for name, packages in (("test_emacs.py", EMACS), ("test_neovim.py", NEOVIM_07)):
        if any(nodeid.startswith(FOLDER + name) for nodeid in nodeids):
            if os.geteuid() == 0 and shutil.which("apt-get") is not None:
                installing += packages.missing()
            packages.start()
    return installing
