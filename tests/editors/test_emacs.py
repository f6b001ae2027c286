"""Emacs with the init.el of docs/editors.md and Eglot, in `--batch`, through one editing session with `lobster lsp`:
Emacs 28.2 and Eglot 1.9 from Debian 12 (installed by the test as root when missing)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from editor_setup import EMACS, WORKFLOW, documented, run_session, user_env, workspace

from lobsterlang.compile import compile_workflow
from lobsterlang.fmt import format_text

pytestmark = pytest.mark.slow

DRIVER = Path(__file__).with_name("emacs_driver.el")


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    problem = EMACS.ready()
    if problem is not None:
        pytest.skip(problem)
    emacs = shutil.which("emacs")
    assert emacs is not None
    home = tmp_path_factory.mktemp("home")
    init = home / ".emacs.d" / "init.el"
    init.parent.mkdir()
    init.write_text(documented("emacs"), encoding="utf-8")
    path = workspace(tmp_path_factory.mktemp("project"))
    report = home / "report.json"
    # --batch skips what an interactive start does before init.el: activating the installed packages (Eglot, on 28)
    command = [emacs, "--batch", "--eval", "(package-activate-all)", "-l", str(init), "-l", str(DRIVER)]
    return run_session(command, path.parent, user_env(home, report), report)


def test_the_documented_setup_runs_to_the_end(session: dict[str, Any]) -> None:
    assert session.get("error") is None, session
    assert session["emacs"].startswith("28.") and session["eglot"] == "1.9", session
    assert session["mode"] == "lobster-mode"


def test_highlighting_without_other_packages(session: dict[str, Any]) -> None:
    assert session["steps_face"] == "font-lock-keyword-face"


def test_diagnostics_on_open_after_an_edit_and_after_a_save(session: dict[str, Any]) -> None:
    assert {"L310", "L201"} <= set(session["opened"])
    assert "L105" in session["edited"] and "L310" not in session["edited"]
    assert {"L310", "L105"} <= set(session["saved"])


def test_hover_is_plain_text_without_markdown_mode(session: dict[str, Any]) -> None:
    hover = session["hover"]
    assert hover.startswith("exec: ") and "--shell (string)" in hover
    assert "**" not in hover and "`" not in hover, hover


def test_definition_and_completion(session: dict[str, Any]) -> None:
    assert session["definition"] == [WORKFLOW.splitlines().index("  - id: count") + 1, len("  - id: ")]
    assert "count" in session["completion"]


def test_the_did_you_mean_quick_fix_and_renames(session: dict[str, Any]) -> None:
    assert "| pick a" in session["code_action"] and "pikc" not in session["code_action"]
    refused = session["refused_rename"]
    assert refused["unchanged"] and "-32803" in refused["message"], refused
    assert "a step named `greet` already exists" in refused["message"]
    renamed = session["rename"]
    assert "  - id: tally\n" in renamed and "stdin: $tally.json" in renamed and "count" not in renamed


def test_formatting_gives_what_lobster_fmt_gives(session: dict[str, Any]) -> None:
    formatted = session["formatted"]
    assert "{ default: world }" in formatted
    assert formatted == format_text(session["rename"], "workflow.lobster")
    assert compile_workflow(formatted, "workflow.lobster").ok


def test_the_server_logged_no_error(session: dict[str, Any]) -> None:
    assert "Traceback" not in session["stderr_buffer"] and "ERROR" not in session["stderr_buffer"], session["stderr_buffer"]
