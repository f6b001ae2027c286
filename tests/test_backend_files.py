"""The backend interface with the default file backend: `resume --run ID --cancel` and `lobster cancel` never run a step."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from lobsterlang.cli import main
from lobsterlang.interpret.state import StateStore
from lobsterlang.interpret.workflow.filebackend import FileBackend
from lobsterlang.interpret.workflow.loader import load_workflow
from lobsterlang.interpret.workflow.stores import backend_of

WORKFLOW = 'steps:\n  - id: a\n    run: echo a >> "$LEDGER"\n  - id: b\n    run: echo b >> "$LEDGER"\n'


@pytest.fixture
def interrupted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A run journaled up to the end of step `a` (its process died before `b` started)."""
    monkeypatch.setenv("LOBSTER_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("LEDGER", str(tmp_path / "ledger"))
    monkeypatch.delenv("LOBSTER_BACKEND", raising=False)
    path = tmp_path / "two.lobster"
    path.write_text(WORKFLOW)
    workflow, _ = load_workflow(str(path))
    journal = backend_of(StateStore(tmp_path / "state")).journal("rfeedface0001")
    journal.start(str(path), {}, workflow, None, False)
    journal.step_done(0, workflow.steps[0], {"a": {"id": "a"}}, "a")
    journal.close()
    return "rfeedface0001"


@pytest.mark.parametrize("argv", [["resume", "--cancel", "--run"], ["cancel"]])
def test_cancelling_an_interrupted_run_runs_nothing(argv: list[str], interrupted: str, tmp_path: Path,
                                                    capsys: Any) -> None:
    main([*argv, interrupted])
    envelope = json.loads(capsys.readouterr().out)
    assert envelope["ok"] and envelope["status"] == "cancelled", envelope
    assert not (tmp_path / "ledger").exists()
    assert backend_of(StateStore(tmp_path / "state")).list_runs() == []


def test_the_default_backend_is_the_state_directory(tmp_path: Path) -> None:
    store = StateStore(tmp_path)
    backend = backend_of(store)
    assert isinstance(backend, FileBackend) and backend.store is store
    assert backend.read_run("../escape") is None and backend.read_run("") is None


@pytest.mark.parametrize("flags", [["--dry-run", "--detach"], ["--detach", "--approval-ttl", "1h"]])
def test_detach_never_queues_a_dry_run_nor_drops_an_option(flags: list[str], tmp_path: Path, capsys: Any,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LOBSTER_BACKEND", f"postgresql://nobody@/none?host={tmp_path}/no-server")
    monkeypatch.setenv("LEDGER", str(tmp_path / "ledger"))
    (tmp_path / "two.lobster").write_text(WORKFLOW)
    code = main(["run", "--mode", "tool", *flags, str(tmp_path / "two.lobster")])
    envelope = json.loads(capsys.readouterr().out)
    if "--dry-run" in flags:
        assert (code, envelope["ok"], envelope["output"]) == (0, True, [])
    else:
        assert code == 2 and "--approval-ttl does not travel" in envelope["error"]["message"]
    assert not (tmp_path / "ledger").exists()


def test_resume_detach_without_a_postgres_backend_is_a_usage_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("LOBSTER_BACKEND", raising=False)
    monkeypatch.setenv("LOBSTER_STATE_DIR", str(tmp_path / "state"))
    assert main(["resume", "--id", "abcd1234", "--approve", "yes", "--detach"]) == 2
    envelope = json.loads(capsys.readouterr().out)
    assert envelope["error"]["type"] == "parse_error" and "needs a Postgres backend" in envelope["error"]["message"]
    assert not (tmp_path / "state").exists()
