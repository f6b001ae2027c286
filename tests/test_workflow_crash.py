"""Crash safety: SIGKILL a run at a random moment, then `lobster resume --run ID` finishes it.

Every step recorded as complete appears in the ledger exactly once; only the step reported
uncertain (started, not recorded) may appear twice; every run completes.
"""

from __future__ import annotations

import json
import os
import random
import signal
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import lobsterlang.interpret.workflow.frontend
import lobsterlang.interpret.workflow.runs  # noqa: F401  (loaded before forking, so a child starts at once)
from lobsterlang.cli import main
from lobsterlang.interpret.state import StateStore
from lobsterlang.interpret.workflow.runlog import RunLog, list_runs, read_journal, runs_dir

STEPS = ["s1", "s2", "s3", "s4", "s5"]
WORKFLOW = "steps:\n" + "".join(f'  - id: {s}\n    run: echo {s} >> "$LEDGER"\n' for s in STEPS)
SEEDS = range(50)


def _run_in_child(path: Path) -> int:
    """Fork a process that runs the workflow (imports are already loaded, so it starts at once)."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        try:
            from lobsterlang.interpret.workflow.frontend import run_file

            os._exit(run_file(str(path), None, "tool", False, False))
        finally:
            os._exit(70)
    return pid


def _ledger(path: Path) -> Counter[str]:
    return Counter(path.read_text().split()) if path.exists() else Counter()


def _resume(run_id: str, capsys: Any, *flags: str) -> dict[str, Any]:
    main(["resume", "--run", run_id, *flags])
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def _finish(log: RunLog, capsys: Any) -> None:
    envelope = _resume(log.run_id, capsys)
    if not envelope["ok"]:
        assert log.uncertain is not None and "uncertain" in envelope["error"]["message"], envelope
        envelope = _resume(log.run_id, capsys, "--retry-step")
    assert envelope["ok"] and envelope["status"] == "ok", envelope


@pytest.mark.slow
@pytest.mark.parametrize("seed", SEEDS)
def test_sigkill_then_resume(seed: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    state, ledger = tmp_path / "state", tmp_path / "ledger"
    monkeypatch.setenv("LOBSTER_STATE_DIR", str(state))
    monkeypatch.setenv("LEDGER", str(ledger))
    path = tmp_path / "ledger.lobster"
    path.write_text(WORKFLOW, encoding="utf-8")
    pid = _run_in_child(path)
    time.sleep(random.Random(seed).uniform(0, 0.22))
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    time.sleep(0.05)  # a step's shell lives in its own process group and may still be appending
    logs = list_runs(StateStore(state))
    journals = list(runs_dir(StateStore(state)).glob("*.jsonl")) if state.exists() else []
    if logs:
        (log,) = logs
        _finish(log, capsys)
        done = {step for step in STEPS if step in log.results}
        uncertain = log.uncertain[1] if log.uncertain else None
    else:
        assert all(read_journal(j) is None for j in journals)
        if not _ledger(ledger):
            assert main(["run", "--mode", "tool", "--file", str(path)]) == 0
            capsys.readouterr()
        done, uncertain = set(STEPS), None
    counts = _ledger(ledger)
    assert set(counts) == set(STEPS), counts
    for step in STEPS:
        assert counts[step] == 1 or (step == uncertain and counts[step] == 2), (step, counts, done, uncertain)
    assert list_runs(StateStore(state)) == []
