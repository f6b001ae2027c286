"""What the tests of gates in `pipeline:` steps share: the `$LEDGER` fixture, tool-mode runs, an answering terminal."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from lobsterlang.cli import main
from lobsterlang.compile import compile_workflow

if TYPE_CHECKING:
    from lobsterlang.interpret.workflow.engine import Outcome


@pytest.fixture
def ledger(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The file the steps append to (`$LEDGER`): what ran, and how often; the run's state under `tmp_path`."""
    monkeypatch.setenv("LOBSTER_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("LEDGER", str(tmp_path / "ledger"))
    return tmp_path / "ledger"


def tool(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any]]:
    """`lobster ARGS` (a tool-mode run or resume): its exit code and the envelope it printed."""
    code = main(args)
    return code, json.loads(capsys.readouterr().out)


def on_terminal(path: Path, answer: str) -> tuple[Outcome, str]:
    """Run the workflow file at `path` as on a terminal whose user types `answer`: the outcome and what it showed."""
    from lobsterlang.interpret.process import Cancellation
    from lobsterlang.interpret.workflow.context import Frame, Options
    from lobsterlang.interpret.workflow.engine import Runner

    workflow = compile_workflow(path.read_text(encoding="utf-8"), str(path)).ir
    assert workflow is not None
    shown = io.StringIO()
    opts = Options(mode="human", interactive=True, prompt_in=io.StringIO(answer), prompt_out=shown)
    outcome = Runner(Frame(workflow, str(path), {}, dict(os.environ), str(path.parent), Cancellation()), opts).run()
    return outcome, shown.getvalue()
